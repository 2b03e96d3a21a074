"""scripts/train_tensor.py: the tensor MLP learns the 2-D datasets."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from minitorch.datasets import simple, xor

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "train_tensor.py"
spec = importlib.util.spec_from_file_location("train_tensor", SCRIPT)
train_tensor = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = train_tensor  # dataclasses look their module up there
spec.loader.exec_module(train_tensor)


def test_short_training_learns_simple():
    result = train_tensor.train(simple(30, seed=1), hidden=6, epochs=40, lr=0.5)
    assert result.losses[-1] < result.losses[0] / 2, result.losses[:: len(result.losses) // 4]
    assert result.accuracy >= 0.95, f"accuracy {result.accuracy:.1%}"


@pytest.mark.slow
def test_training_learns_xor():
    result = train_tensor.train(xor(40, seed=0), hidden=8, epochs=300, lr=0.5)
    assert result.accuracy >= 0.95, f"accuracy {result.accuracy:.1%}"


def test_loss_is_stable_cross_entropy():
    # logits 0 -> ln 2 per point; a confident right answer (z = 50 for y = 1) -> about e^-50
    logits = train_tensor.minitorch.tensor([0.0, 50.0, -50.0])
    labels = train_tensor.minitorch.tensor([1.0, 1.0, 0.0])
    loss = train_tensor.cross_entropy_with_logits(logits, labels).item()
    assert loss == pytest.approx(0.6931471805599453 / 3, rel=1e-5)
    wrong = train_tensor.cross_entropy_with_logits(logits[1:], 1 - labels[1:]).item()
    assert wrong == pytest.approx(50.0, rel=1e-5)  # finite, not ln 0


def test_command_line_reports_accuracy(capsys):
    code = train_tensor.main(
        ["--dataset", "simple", "--points", "20", "--hidden", "4", "--epochs", "5", "--no-progress"]
    )
    assert code == 0
    assert "simple: final loss" in capsys.readouterr().out


def test_command_line_rejects_unknown_backend():
    with pytest.raises(SystemExit):
        train_tensor.main(["--backend", "nope", "--no-progress"])
