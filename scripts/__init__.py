"""The project's scripts, importable by the tests as `scripts.<name>` (the repository root is on
pytest's sys.path). Run them as files: `python scripts/train_tensor.py --dataset xor`."""
