"""Train a small network of minitorch Scalars to classify a 2-D toy dataset.

Usage:
    python scripts/train_scalar.py --dataset xor [--points 50] [--hidden 8] [--epochs 200]
                                   [--lr 0.5] [--seed 0] [--plot FILE.png] [--no-progress]

The network is 2 -> hidden -> hidden -> 1: two `Linear` layers with ReLU, then a `Linear`
layer with a sigmoid that gives $p = P(y = 1 \\mid x)$. Every weight is a `Scalar` inside a
`ScalarParameter`, so `loss.backward()` fills each weight's `grad`. Training is full-batch gradient
descent on the binary cross-entropy

$$L = -\\frac{1}{n} \\sum_i \\left[ y_i \\ln p_i + (1 - y_i) \\ln (1 - p_i) \\right]$$

with the update $w \\leftarrow w - \\mathrm{lr} \\cdot \\partial L / \\partial w$ once per epoch.
A progress bar (when stdout is a terminal) shows the loss and the training accuracy; `--plot`
saves a figure with the decision boundary and the loss curve.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from minitorch import Module, Scalar, ScalarParameter
from minitorch.datasets import DATASETS, Dataset

DEFAULTS = {"points": 50, "hidden": 8, "epochs": 200, "lr": 0.5, "seed": 0}


class Linear(Module):
    """$y_j = b_j + \\sum_i w_{ij} x_i$ on a list of Scalars.

    The weights start uniform in $\\pm\\sqrt{6 / \\text{in\\_size}}$ (He initialisation, which
    keeps the scale of ReLU activations from layer to layer), the biases at zero.
    """

    def __init__(self, in_size: int, out_size: int, rng: random.Random) -> None:
        super().__init__()
        bound = math.sqrt(6.0 / in_size)
        self.weights = [
            [self._learned(f"weight_{i}_{j}", rng.uniform(-bound, bound)) for j in range(out_size)]
            for i in range(in_size)
        ]
        self.biases = [self._learned(f"bias_{j}", 0.0) for j in range(out_size)]
        self.in_size, self.out_size = in_size, out_size

    def _learned(self, name: str, value: float) -> ScalarParameter:
        """A trainable `Scalar` registered as the parameter `name`."""
        parameter = ScalarParameter(Scalar(value))
        self.register_parameter(name, parameter)
        return parameter

    def forward(self, inputs: Sequence[Scalar | float]) -> list[Scalar]:
        outputs = []
        for j, bias in enumerate(self.biases):
            total = bias.value
            for i, x in enumerate(inputs):
                total = total + self.weights[i][j].value * x
            outputs.append(total)
        return outputs

    def extra_repr(self) -> str:
        return f"in_size={self.in_size}, out_size={self.out_size}"


class Network(Module):
    """2 -> hidden -> hidden -> 1, ReLU between the layers and a sigmoid at the end."""

    def __init__(self, hidden: int, seed: int = 0) -> None:
        super().__init__()
        rng = random.Random(seed)
        self.layer1 = Linear(2, hidden, rng)
        self.layer2 = Linear(hidden, hidden, rng)
        self.layer3 = Linear(hidden, 1, rng)

    def forward(self, point: Sequence[float]) -> Scalar:
        """$P(y = 1 \\mid x)$ for one point $x = (x_1, x_2)$ of the unit square."""
        # Centred inputs (2x - 1 in [-1, 1]): with zero biases the first layer's ReLUs then
        # start as lines through the middle of the square, not through its corner.
        centred = [2.0 * x - 1.0 for x in point]
        hidden = [h.relu() for h in self.layer1(centred)]
        hidden = [h.relu() for h in self.layer2(hidden)]
        return self.layer3(hidden)[0].sigmoid()


def cross_entropy(probability: Scalar, label: int) -> Scalar:
    """$-\\ln p$ for a point of label 1, $-\\ln(1 - p)$ for label 0."""
    return -probability.log() if label == 1 else -(1.0 - probability).log()


def accuracy(model: Network, data: Dataset) -> float:
    """The fraction of points whose predicted label ($p > 0.5$) is right."""
    right = sum(
        (model(point).data > 0.5) == (label == 1)
        for point, label in zip(data.X, data.y, strict=True)
    )
    return right / data.n


@dataclass
class TrainResult:
    """The trained model; the loss and training accuracy of every epoch (measured in its
    forward pass, before its update); the accuracy after the last update."""

    model: Network
    data: Dataset
    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    accuracy: float = 0.0


def train(
    data: Dataset,
    hidden: int = DEFAULTS["hidden"],
    epochs: int = DEFAULTS["epochs"],
    lr: float = DEFAULTS["lr"],
    seed: int = DEFAULTS["seed"],
    progress: bool = False,
) -> TrainResult:
    """Full-batch gradient descent of a `Network` on `data`; see the module docstring."""
    if hidden < 1 or epochs < 1 or not lr > 0.0:
        raise ValueError(f"need hidden >= 1, epochs >= 1 and lr > 0, got {hidden}, {epochs}, {lr}")
    model = Network(hidden, seed)
    scalars = [parameter.value for parameter in model.parameters()]
    result = TrainResult(model, data)
    bar = _progress_bar(epochs, data.name, progress)
    for _ in bar:
        for scalar in scalars:
            scalar.grad = None
        loss = Scalar(0.0)
        right = 0
        for point, label in zip(data.X, data.y, strict=True):
            probability = model(point)
            right += (probability.data > 0.5) == (label == 1)
            loss = loss + cross_entropy(probability, label)
        loss = loss / data.n
        loss.backward()
        for scalar in scalars:
            if scalar.grad is not None:
                scalar.data -= lr * scalar.grad
        result.losses.append(loss.data)
        result.accuracies.append(right / data.n)
        if not isinstance(bar, range):
            bar.set_postfix(loss=f"{loss.data:.4f}", accuracy=f"{right / data.n:.1%}")
    result.accuracy = accuracy(model, data)
    return result


def _progress_bar(epochs: int, name: str, show: bool):
    """A tqdm bar on stdout when it is a terminal: redirected to a log, no bar frames go there."""
    if not show or not sys.stdout.isatty():
        return range(epochs)
    from tqdm import tqdm

    return tqdm(range(epochs), desc=f"training on {name}", unit="epoch", file=sys.stdout)


def plot(result: TrainResult, path: str | Path, grid: int = 30) -> None:
    """Save a figure: the predicted $P(y = 1)$ over the unit square with the points, and the
    loss curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [k / (grid - 1) for k in range(grid)]
    probabilities = [[result.model((x1, x2)).data for x1 in xs] for x2 in xs]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4.5))
    contour = left.contourf(xs, xs, probabilities, levels=20, cmap="RdBu_r", vmin=0, vmax=1)
    left.contour(xs, xs, probabilities, levels=[0.5], colors="black", linewidths=1.5)
    for label, marker in ((0, "o"), (1, "s")):
        points = [p for p, y in zip(result.data.X, result.data.y, strict=True) if y == label]
        left.scatter(
            [p[0] for p in points],
            [p[1] for p in points],
            c="tab:red" if label else "tab:blue",
            marker=marker,
            edgecolors="black",
            label=f"label {label}",
        )
    left.set(xlim=(0, 1), ylim=(0, 1), xlabel="$x_1$", ylabel="$x_2$", aspect="equal")
    left.set_title(f"{result.data.name}: accuracy {result.accuracy:.1%}")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    figure.colorbar(contour, ax=left, label="$P(y = 1)$")
    right.plot(range(1, len(result.losses) + 1), result.losses)
    right.set(xlabel="epoch", ylabel="cross-entropy loss", yscale="log", title="training loss")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(DATASETS), default="xor")
    parser.add_argument("--points", type=int, default=DEFAULTS["points"], help="dataset size")
    parser.add_argument("--hidden", type=int, default=DEFAULTS["hidden"], help="hidden units")
    parser.add_argument("--epochs", type=int, default=DEFAULTS["epochs"])
    parser.add_argument("--lr", type=float, default=DEFAULTS["lr"], help="learning rate")
    parser.add_argument("--seed", type=int, default=DEFAULTS["seed"], help="data and weights")
    parser.add_argument("--plot", metavar="FILE", help="save the decision boundary and loss")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    try:
        data = DATASETS[args.dataset](args.points, seed=args.seed)
        result = train(data, args.hidden, args.epochs, args.lr, args.seed, not args.no_progress)
    except ValueError as error:
        parser.error(str(error))
    print(
        f"{args.dataset}: {args.points} points, final loss {result.losses[-1]:.4f}, "
        f"training accuracy {result.accuracy:.1%}"
    )
    if args.plot:
        plot(result, args.plot)
        print(f"figure saved to {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
