"""Train a tensor MLP (minitorch Tensors with autograd) to classify a 2-D toy dataset.

Usage:
    python scripts/train_tensor.py --dataset xor [--points 100] [--hidden 16] [--epochs 300]
                                   [--lr 0.5] [--seed 0] [--backend simple] [--no-progress]
                                   [--out DIR]

The network is 2 -> hidden -> hidden -> 1: `minitorch.nn.Linear` layers (PyTorch's shapes
and initialisation) with ReLU between them. The last layer gives a logit $z$ with
$P(y = 1 \\mid x) = \\sigma(z)$. Training is full-batch gradient descent (`minitorch.optim.SGD`
on the whole set) on the binary cross-entropy computed from $z$
(`minitorch.nn.functional.binary_cross_entropy_with_logits`, which never takes $\\ln 0$):

$$L = \\frac{1}{n} \\sum_i \\max(z_i, 0) - z_i y_i + \\ln(1 + e^{-|z_i|})$$

Each epoch runs one forward pass over all points as a matrix, then
`optimizer.zero_grad(); loss.backward(); optimizer.step()`, as a PyTorch training loop does.

With `--out DIR` it writes `DIR/metrics.json` (the loss of every epoch and the final training
accuracy) and, next to it, `DIR/figure.png`: the learned $P(y = 1 \\mid x)$ over the square
with the points on top (the decision boundary is its 0.5 contour) and the loss curve.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no window

import matplotlib.pyplot as plt  # noqa: E402 -- after choosing the backend
import numpy as np  # noqa: E402

import minitorch  # noqa: E402
import minitorch.nn.functional as F  # noqa: E402
from minitorch import Tensor, nn  # noqa: E402
from minitorch.datasets import DATASETS, Dataset  # noqa: E402

DEFAULTS = {"points": 100, "hidden": 16, "epochs": 300, "lr": 0.5, "seed": 0}


class Network(nn.Module):
    """2 -> hidden -> hidden -> 1 with ReLU between the layers; outputs logits."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.layer1 = nn.Linear(2, hidden)
        self.layer2 = nn.Linear(hidden, hidden)
        self.layer3 = nn.Linear(hidden, 1)

    def forward(self, points: Tensor) -> Tensor:
        """The logit $z$ of $P(y = 1 \\mid x)$ for each row $x$ of `points` (shape n x 2)."""
        centred = points * 2 - 1  # inputs in [-1, 1]: first ReLUs start through the middle
        hidden = self.layer1(centred).relu()
        hidden = self.layer2(hidden).relu()
        return self.layer3(hidden).view(-1)


@dataclass
class TrainResult:
    """The trained model, the loss of every epoch, and the final training accuracy."""

    model: Network
    data: Dataset
    losses: list[float] = field(default_factory=list)
    accuracy: float = 0.0


def accuracy(model: Network, points: Tensor, labels: Tensor) -> float:
    """The fraction of points whose predicted label ($z > 0$, i.e. $p > 0.5$) is right."""
    with minitorch.no_grad():
        predicted = (model(points) > 0).float()
    return (predicted == labels).float().mean().item()


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
    minitorch.manual_seed(seed)
    model = Network(hidden)
    optimizer = minitorch.optim.SGD(model.parameters(), lr=lr)
    points = minitorch.tensor(data.X)
    labels = minitorch.tensor(data.y, dtype=minitorch.float32)
    result = TrainResult(model, data)
    steps = range(epochs)
    if progress:
        from tqdm import tqdm

        steps = tqdm(steps, desc=f"training on {data.name}", unit="epoch")
    for _ in steps:
        loss = F.binary_cross_entropy_with_logits(model(points), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        result.losses.append(loss.item())  # .item(): keep a number, not the graph
        if progress:
            steps.set_postfix(loss=f"{result.losses[-1]:.4f}")
    result.accuracy = accuracy(model, points, labels)
    return result


def write_outputs(result: TrainResult, out: Path) -> None:
    """`out/metrics.json` and `out/figure.png` (see the module docstring)."""
    out.mkdir(parents=True, exist_ok=True)
    metrics = {"dataset": result.data.name, "losses": result.losses, "accuracy": result.accuracy}
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    plot_result(result, out / "figure.png")


def plot_result(result: TrainResult, path: Path, resolution: int = 101) -> None:
    """Left: $P(y = 1 \\mid x)$ on a grid over the unit square, its 0.5 contour (the decision
    boundary) and the training points; right: the loss per epoch."""
    ticks = np.linspace(0.0, 1.0, resolution)
    grid = np.array([(x1, x2) for x2 in ticks for x1 in ticks], dtype=np.float32)
    with minitorch.no_grad():
        logits = result.model(minitorch.tensor(grid))
    probability = np.asarray(logits.sigmoid().tolist()).reshape(resolution, resolution)
    points, labels = np.array(result.data.X), np.array(result.data.y)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.5))
    shading = left.contourf(ticks, ticks, probability, levels=20, cmap="RdBu_r", vmin=0, vmax=1)
    left.contour(ticks, ticks, probability, levels=[0.5], colors="black", linewidths=1.5)
    fig.colorbar(shading, ax=left, label="P(y = 1 | x)")
    for label, marker in ((0, "o"), (1, "s")):
        chosen = points[labels == label]
        left.scatter(*chosen.T, marker=marker, edgecolors="black", label=f"label {label}",
                     c="tab:blue" if label == 0 else "tab:red")  # fmt: skip
    left.set(xlim=(0, 1), ylim=(0, 1), xlabel="$x_1$", ylabel="$x_2$", aspect="equal")
    left.set_title(
        f"{result.data.name}: training accuracy {result.accuracy:.0%}\n"
        "black line: the decision boundary P = 0.5",
        fontsize=10,
    )
    left.legend(loc="upper right", fontsize=8)
    right.plot(range(1, len(result.losses) + 1), result.losses)
    right.set(xlabel="epoch", ylabel="binary cross-entropy", title="Training loss")
    right.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(DATASETS), default="xor")
    parser.add_argument("--points", type=int, default=DEFAULTS["points"], help="dataset size")
    parser.add_argument("--hidden", type=int, default=DEFAULTS["hidden"], help="hidden units")
    parser.add_argument("--epochs", type=int, default=DEFAULTS["epochs"])
    parser.add_argument("--lr", type=float, default=DEFAULTS["lr"], help="learning rate")
    parser.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    parser.add_argument(
        "--backend", default=minitorch.get_backend().name, help="kernels: simple (reference)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--out", type=Path, help="write metrics.json and figure.png here")
    args = parser.parse_args(argv)
    progress = not args.no_progress and sys.stdout.isatty()  # no bar in a log file
    try:
        minitorch.set_backend(args.backend)
        data = DATASETS[args.dataset](args.points, seed=args.seed)
        result = train(data, args.hidden, args.epochs, args.lr, args.seed, progress=progress)
    except ValueError as error:
        parser.error(str(error))
    print(
        f"{args.dataset}: final loss {result.losses[-1]:.4f}, "
        f"training accuracy {result.accuracy:.1%}"
    )
    if args.out is not None:
        write_outputs(result, args.out)
        print(f"wrote metrics.json and figure.png to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
