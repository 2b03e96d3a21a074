"""Train a tensor MLP (minitorch Tensors with autograd) to classify a 2-D toy dataset.

Usage:
    python scripts/train_tensor.py --dataset xor [--points 100] [--hidden 16] [--epochs 300]
                                   [--lr 0.5] [--seed 0] [--backend simple] [--no-progress]

The network is 2 -> hidden -> hidden -> 1: `minitorch.nn.Linear` layers (PyTorch's shapes
and initialisation) with ReLU between them. The last layer gives a logit $z$ with
$P(y = 1 \\mid x) = \\sigma(z)$. Training is full-batch gradient descent (`minitorch.optim.SGD`
on the whole set) on the binary cross-entropy computed from $z$
(`minitorch.nn.functional.binary_cross_entropy_with_logits`, which never takes $\\ln 0$):

$$L = \\frac{1}{n} \\sum_i \\max(z_i, 0) - z_i y_i + \\ln(1 + e^{-|z_i|})$$

Each epoch runs one forward pass over all points as a matrix, then
`optimizer.zero_grad(); loss.backward(); optimizer.step()`, as a PyTorch training loop does.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

import minitorch
import minitorch.nn.functional as F
from minitorch import Tensor, nn
from minitorch.datasets import DATASETS, Dataset

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
    args = parser.parse_args(argv)
    try:
        minitorch.set_backend(args.backend)
        data = DATASETS[args.dataset](args.points, seed=args.seed)
        result = train(
            data, args.hidden, args.epochs, args.lr, args.seed, progress=not args.no_progress
        )
    except ValueError as error:
        parser.error(str(error))
    print(
        f"{args.dataset}: final loss {result.losses[-1]:.4f}, "
        f"training accuracy {result.accuracy:.1%}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
