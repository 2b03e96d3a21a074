"""scripts/train_tensor.py: the tensor MLP learns the 2-D datasets."""

from __future__ import annotations

import json

import matplotlib.image
import pytest

from minitorch.datasets import simple, xor
from scripts import train_tensor


def test_short_training_learns_simple():
    result = train_tensor.train(simple(30, seed=1), hidden=6, epochs=40, lr=0.5)
    assert result.losses[-1] < result.losses[0] / 2, result.losses[:: len(result.losses) // 4]
    assert result.accuracy >= 0.95, f"accuracy {result.accuracy:.1%}"


@pytest.mark.slow
def test_training_learns_xor():
    result = train_tensor.train(xor(40, seed=0), hidden=8, epochs=300, lr=0.5)
    assert result.accuracy >= 0.95, f"accuracy {result.accuracy:.1%}"


def test_command_line_reports_accuracy(capsys):
    code = train_tensor.main(
        ["--dataset", "simple", "--points", "20", "--hidden", "4", "--epochs", "5", "--no-progress"]
    )
    assert code == 0
    assert "simple: final loss" in capsys.readouterr().out


def test_command_line_rejects_unknown_backend():
    with pytest.raises(SystemExit):
        train_tensor.main(["--backend", "nope", "--no-progress"])


def test_out_writes_the_metrics_and_the_figure_next_to_them(tmp_path, capsys):
    argv = ["--dataset", "simple", "--points", "20", "--hidden", "4", "--epochs", "6"]
    assert train_tensor.main([*argv, "--out", str(tmp_path)]) == 0
    assert "\r" not in capsys.readouterr().out  # no progress bar when stdout is not a terminal
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["dataset"] == "simple" and len(metrics["losses"]) == 6
    assert 0.0 <= metrics["accuracy"] <= 1.0
    height, width = matplotlib.image.imread(tmp_path / "figure.png").shape[:2]
    assert width > height >= 300  # two panels side by side
