"""scripts/train_scalar.py: the Scalar network, its training loop, the figure and the CLI.

The network and its loss are recomputed here with plain floats, straight from their
definitions, so the Scalar version is checked against an independent implementation.
"""

from __future__ import annotations

import copy
import math
import random
import sys
from pathlib import Path

import pytest
from matplotlib import image

from minitorch import Scalar
from minitorch.datasets import simple, xor
from scripts import train_scalar

Layers = list[tuple[list[list[float]], list[float]]]  # (weights[i][j], biases[j]) per layer


def layers_of(model) -> Layers:
    """The model's current weights and biases as floats."""
    return [
        (
            [[w.value.data for w in row] for row in layer.weights],
            [b.value.data for b in layer.biases],
        )
        for layer in (model.layer1, model.layer2, model.layer3)
    ]


def float_forward(layers: Layers, point: tuple[float, float]) -> float:
    """$\\sigma(L_3(\\mathrm{relu}(L_2(\\mathrm{relu}(L_1(2x - 1))))))$ with
    $L(v)_j = b_j + \\sum_i w_{ij} v_i$."""
    values = [2.0 * x - 1.0 for x in point]
    for depth, (weights, biases) in enumerate(layers):
        values = [
            biases[j] + sum(weights[i][j] * v for i, v in enumerate(values))
            for j in range(len(biases))
        ]
        if depth < 2:
            values = [max(v, 0.0) for v in values]
    return 1.0 / (1.0 + math.exp(-values[0]))


def float_loss(layers: Layers, data) -> float:
    """Mean binary cross-entropy $-[y \\ln p + (1 - y) \\ln(1 - p)]$."""
    total = 0.0
    for point, label in zip(data.X, data.y, strict=True):
        p = float_forward(layers, point)
        total -= math.log(p) if label == 1 else math.log(1.0 - p)
    return total / data.n


def test_linear_layer_computes_bias_plus_weighted_sum() -> None:
    layer = train_scalar.Linear(2, 2, random.Random(0))
    for (i, j), w in {(0, 0): 2.0, (1, 0): -1.0, (0, 1): 0.5, (1, 1): 3.0}.items():
        layer.weights[i][j].update(Scalar(w))
    layer.biases[0].update(Scalar(10.0))
    out = layer([Scalar(3.0), 4.0])
    # y_0 = 10 + 2*3 - 1*4 = 12; y_1 = 0 + 0.5*3 + 3*4 = 13.5
    assert [y.data for y in out] == [12.0, 13.5], f"got {[y.data for y in out]}"


def test_network_parameters_and_names() -> None:
    model = train_scalar.Network(hidden=3, seed=0)
    names = [name for name, _ in model.named_parameters()]
    # (2*3 + 3) + (3*3 + 3) + (3*1 + 1) = 25 weights and biases
    assert len(names) == 25, f"{len(names)} parameters: {names}"
    assert "layer1.weight_1_2" in names and "layer3.bias_0" in names, names
    assert all(p.value.data == 0.0 for n, p in model.named_parameters() if "bias" in n)
    # He initialisation: |w| <= sqrt(6 / fan_in) in each layer
    for layer, fan_in in ((model.layer1, 2), (model.layer2, 3), (model.layer3, 3)):
        bound = math.sqrt(6.0 / fan_in)
        for row in layer.weights:
            for w in row:
                assert abs(w.value.data) <= bound, f"weight {w.value.data} beyond {bound}"
    # the same seed gives the same weights
    assert layers_of(train_scalar.Network(hidden=3, seed=0)) == layers_of(model)


def test_first_loss_and_update_match_a_float_implementation() -> None:
    data = simple(12, seed=5)
    lr = 0.3
    layers = layers_of(train_scalar.Network(hidden=3, seed=2))  # the weights train starts from
    result = train_scalar.train(data, hidden=3, epochs=1, lr=lr, seed=2)
    expected = float_loss(layers, data)
    assert math.isclose(result.losses[0], expected, rel_tol=1e-12), (
        f"first epoch's loss {result.losses[0]}, float implementation {expected}"
    )
    # one step of gradient descent: w <- w - lr dL/dw, with dL/dw by central differences
    trained = layers_of(result.model)
    for depth, i, j in [(0, 0, 1), (1, 2, 0), (2, 1, 0)]:
        w = layers[depth][0][i][j]

        def loss_at(value: float, depth=depth, i=i, j=j) -> float:
            changed = copy.deepcopy(layers)
            changed[depth][0][i][j] = value
            return float_loss(changed, data)

        gradient = (loss_at(w + 1e-6) - loss_at(w - 1e-6)) / 2e-6
        got = trained[depth][0][i][j]
        assert math.isclose(got, w - lr * gradient, rel_tol=1e-6, abs_tol=1e-8), (
            f"layer {depth + 1} weight ({i}, {j}): {got} after the update, "
            f"expected {w} - {lr} * {gradient}"
        )


def test_short_training_on_simple_reduces_the_loss_and_separates_the_classes() -> None:
    result = train_scalar.train(simple(30, seed=0), hidden=4, epochs=60, lr=0.5, seed=0)
    assert len(result.losses) == 60 and len(result.accuracies) == 60
    assert result.losses[-1] < 0.5 * result.losses[0], (
        f"loss went from {result.losses[0]} to only {result.losses[-1]}"
    )
    assert result.accuracy >= 0.95, f"training accuracy {result.accuracy} on simple"
    # the reported accuracy is the model's, recomputed here with floats
    layers, data = layers_of(result.model), result.data
    right = sum(
        (float_forward(layers, p) > 0.5) == (y == 1) for p, y in zip(data.X, data.y, strict=True)
    )
    assert result.accuracy == right / data.n


@pytest.mark.slow
def test_default_settings_reach_95_percent_on_xor() -> None:
    defaults = train_scalar.DEFAULTS
    data = xor(defaults["points"], seed=defaults["seed"])
    result = train_scalar.train(
        data, hidden=defaults["hidden"], epochs=defaults["epochs"], lr=defaults["lr"]
    )
    assert result.accuracy >= 0.95, f"xor training accuracy {result.accuracy:.1%} < 95%"


@pytest.mark.parametrize(
    "kwargs", [{"hidden": 0}, {"epochs": 0}, {"lr": 0.0}, {"lr": -0.1}, {"lr": math.nan}]
)
def test_bad_settings_are_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError, match="need hidden >= 1, epochs >= 1 and lr > 0"):
        train_scalar.train(simple(4), **kwargs)


def test_progress_bar_shows_loss_and_accuracy(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # a terminal
    train_scalar.train(simple(6), hidden=2, epochs=3, progress=True)
    out = capsys.readouterr().out
    assert "training on simple" in out and "3/3" in out, f"no progress bar in: {out!r}"
    assert "loss=" in out and "accuracy=" in out, f"no loss/accuracy in: {out!r}"


def test_no_progress_bar_frames_when_stdout_is_not_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = train_scalar.train(simple(6), hidden=2, epochs=3, progress=True)
    assert len(result.losses) == 3
    assert capsys.readouterr() == ("", "")


def test_cli_trains_and_writes_the_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "figure.png"
    argv = ["--dataset", "diag", "--points", "10", "--hidden", "3", "--epochs", "4"]
    assert train_scalar.main([*argv, "--no-progress", "--plot", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("diag: 10 points, final loss ") and "training accuracy" in out, out
    assert f"figure saved to {path}" in out
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pixels = image.imread(path)
    assert pixels.shape[1] > pixels.shape[0] > 100, f"unexpected image shape {pixels.shape}"
    assert pixels[..., :3].std() > 0.05, "the image is (nearly) blank"


def test_cli_reports_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        train_scalar.main(["--points", "1", "--no-progress"])
    assert exit_info.value.code == 2
    assert "n must be at least 2" in capsys.readouterr().err
