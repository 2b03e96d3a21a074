"""scripts/train_mnist.py end to end on the bundled digits: it learns, writes every file it
promises, and `--resume` continues the run."""

from __future__ import annotations

import gzip
import json
import struct

import numpy as np
import pytest

import minitorch
from scripts import train_mnist

FILES = {
    "metrics.json",
    "curves.png",
    "predictions.png",
    "confusion.png",
    "model.safetensors",
    "optimizer.safetensors",
    "checkpoint.json",
}


@pytest.mark.slow
def test_digits_learn_and_resume_continues_the_run(tmp_path, capsys):
    assert train_mnist.main(["--dataset", "digits", "--epochs", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    # said once, first, where kernels compile (a fresh cache), else not at all
    assert out.count(train_mnist.COMPILING) <= 1
    assert train_mnist.COMPILING not in out or out.startswith(train_mnist.COMPILING)
    assert "\r" not in out  # no progress bar when stdout is not a terminal
    assert {p.name for p in tmp_path.iterdir()} == FILES
    first = json.loads((tmp_path / "metrics.json").read_text())
    assert [r["epoch"] for r in first] == [1] and first[0]["test_accuracy"] > 0.5, first

    argv = ["--dataset", "digits", "--epochs", "2", "--out", str(tmp_path), "--resume"]
    assert train_mnist.main(argv) == 0
    assert "epoch 2/2" in capsys.readouterr().out
    records = json.loads((tmp_path / "metrics.json").read_text())
    assert records[:1] == first and records[1]["epoch"] == 2
    # it went on from the saved weights and Adam state: a restart would be back at epoch 1
    assert records[1]["train_loss"] < first[0]["train_loss"] / 2, records
    assert records[1]["test_accuracy"] >= 0.9, records


def shape_images(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """`count` 28x28 uint8 images of four shapes (labels 0-3), placed at random with noise:
    a horizontal bar, a vertical bar, a filled square, a diagonal."""
    images = rng.integers(0, 40, size=(count, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 4, size=count, dtype=np.uint8)
    for image, label in zip(images, labels, strict=True):
        r, c = rng.integers(4, 14, size=2)
        if label == 0:
            image[r + 5 : r + 8, c : c + 12] = 255
        elif label == 1:
            image[r : r + 12, c + 5 : c + 8] = 255
        elif label == 2:
            image[r + 2 : r + 10, c + 2 : c + 10] = 255
        else:
            for k in range(12):
                image[r + k, c + k : c + k + 2] = 255
    return images, labels


def write_mnist(root, rng: np.random.Generator) -> None:
    """The four IDX files of a small MNIST (192 training, 64 test images) in `root/MNIST/raw/`,
    the training images gzipped (as torchvision's downloads are) and the rest plain."""
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for prefix, count in (("train", 192), ("t10k", 64)):
        images, labels = shape_images(count, rng)
        header = struct.pack(">IIII", 0x0803, count, 28, 28)
        content = header + images.tobytes()
        if prefix == "train":
            (raw / f"{prefix}-images-idx3-ubyte.gz").write_bytes(gzip.compress(content))
        else:
            (raw / f"{prefix}-images-idx3-ubyte").write_bytes(content)
        labels_file = struct.pack(">II", 0x0801, count) + labels.tobytes()
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(labels_file)


def test_mnist_run_on_small_idx_files_learns_and_writes_every_file(tmp_path, capsys):
    write_mnist(tmp_path / "data", np.random.default_rng(0))
    out = tmp_path / "run"
    argv = ["--dataset", "mnist", "--root", str(tmp_path / "data"), "--epochs", "1"]
    assert train_mnist.main([*argv, "--batch-size", "16", "--out", str(out)]) == 0
    assert "epoch 1/1" in capsys.readouterr().out
    assert {p.name for p in out.iterdir()} == FILES
    records = json.loads((out / "metrics.json").read_text())
    assert [r["epoch"] for r in records] == [1], records
    # it learned: guessing among the ten classes would lose ln 10 = 2.30 per image
    assert records[0]["test_loss"] < 2.0 and records[0]["train_loss"] < 2.2, records
    assert minitorch.load(out / "model.safetensors")["0.weight"].shape == (16, 1, 5, 5)
