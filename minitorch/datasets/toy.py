"""Two-dimensional toy datasets for binary classification.

Each function `name(n, seed=0)` returns a `Dataset` of `n` points in the unit
square $[0, 1]^2$ with 0/1 labels. Half the points (rounded down) have label
0 and the rest label 1, drawn uniformly from each class's region and then
shuffled, so both classes are always present. The same `n` and `seed` always
give the same points; each call uses its own `random.Random(seed)`, never the
global random state.

The label rules, for a point $(x_1, x_2)$:

| name | label 1 when |
|---|---|
| simple | $x_1 < 0.5$ |
| diag | $x_1 + x_2 < 0.5$ |
| split | $x_1 < 0.2$ or $x_1 > 0.8$ |
| xor | exactly one of $x_1 < 0.5$, $x_2 < 0.5$ holds |
| circle | $(x_1 - 0.5)^2 + (x_2 - 0.5)^2 > 0.1$ |
| spiral | the point lies on the second of two interleaved spiral arms |

>>> data = xor(4, seed=1)
>>> data.n, len(data.X), sorted(data.y)
(4, 4, [0, 0, 1, 1])
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class Dataset:
    """`n` points `X[i] = (x1, x2)` with labels `y[i]` in {0, 1}."""

    name: str
    n: int
    X: list[Point]
    y: list[int]


def _check_size(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"n must be an int, got {type(n).__name__}")
    if n < 2:
        raise ValueError(f"n must be at least 2 so that both classes appear, got {n}")


def _by_rule(name: str, n: int, seed: int, label: Callable[[float, float], bool]) -> Dataset:
    """Rejection sampling: uniform points in the square, kept while their class is short."""
    _check_size(n)
    rng = random.Random(seed)
    wanted = [n // 2, n - n // 2]  # points still needed of label 0 and label 1
    points: list[tuple[Point, int]] = []
    while wanted[0] or wanted[1]:
        x1, x2 = rng.random(), rng.random()
        y = int(label(x1, x2))
        if wanted[y]:
            wanted[y] -= 1
            points.append(((x1, x2), y))
    rng.shuffle(points)
    return Dataset(name, n, [p for p, _ in points], [y for _, y in points])


def simple(n: int, seed: int = 0) -> Dataset:
    """Label 1 left of the vertical line $x_1 = 0.5$."""
    return _by_rule("simple", n, seed, lambda x1, x2: x1 < 0.5)


def diag(n: int, seed: int = 0) -> Dataset:
    """Label 1 below the diagonal line $x_1 + x_2 = 0.5$."""
    return _by_rule("diag", n, seed, lambda x1, x2: x1 + x2 < 0.5)


def split(n: int, seed: int = 0) -> Dataset:
    """Label 1 in the two vertical bands $x_1 < 0.2$ and $x_1 > 0.8$."""
    return _by_rule("split", n, seed, lambda x1, x2: x1 < 0.2 or x1 > 0.8)


def xor(n: int, seed: int = 0) -> Dataset:
    """Label 1 in the top-left and bottom-right quarters: $(x_1 < 0.5) \\oplus (x_2 < 0.5)$."""
    return _by_rule("xor", n, seed, lambda x1, x2: (x1 < 0.5) != (x2 < 0.5))


def circle(n: int, seed: int = 0) -> Dataset:
    """Label 1 outside the circle of radius $\\sqrt{0.1}$ around the centre $(0.5, 0.5)$."""
    return _by_rule("circle", n, seed, lambda x1, x2: (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2 > 0.1)


# Spiral arms: the point at parameter t in [0, 1] has radius
# SPIRAL_R0 + (SPIRAL_R1 - SPIRAL_R0) t around (0.5, 0.5) and angle
# 2 pi SPIRAL_TURNS t, plus pi for the arm of label 1.
SPIRAL_R0 = 0.05
SPIRAL_R1 = 0.45
SPIRAL_TURNS = 1.25


def spiral_point(t: float, label: int) -> Point:
    """The point at parameter `t` of the arm of `label` (see the constants above)."""
    radius = SPIRAL_R0 + (SPIRAL_R1 - SPIRAL_R0) * t
    angle = 2.0 * math.pi * SPIRAL_TURNS * t + math.pi * label
    return 0.5 + radius * math.cos(angle), 0.5 + radius * math.sin(angle)


def spiral(n: int, seed: int = 0) -> Dataset:
    """Two interleaved spiral arms around $(0.5, 0.5)$, the second one the first turned by
    $\\pi$; each point has a uniformly random parameter $t \\in [0, 1]$ on its arm."""
    _check_size(n)
    rng = random.Random(seed)
    points = [(spiral_point(rng.random(), 0), 0) for _ in range(n // 2)]
    points += [(spiral_point(rng.random(), 1), 1) for _ in range(n - n // 2)]
    rng.shuffle(points)
    return Dataset("spiral", n, [p for p, _ in points], [y for _, y in points])


DATASETS: dict[str, Callable[..., Dataset]] = {
    "simple": simple,
    "diag": diag,
    "split": split,
    "xor": xor,
    "circle": circle,
    "spiral": spiral,
}
