"""The 2-D toy datasets of `minitorch.datasets`: sizes, ranges, label rules, seeding."""

from __future__ import annotations

import math
import random

import pytest

from minitorch.datasets import DATASETS, SPIRAL_R0, SPIRAL_R1, SPIRAL_TURNS, Dataset

# The label rules of the module docstring, written out again here.
RULES = {
    "simple": lambda x1, x2: x1 < 0.5,
    "diag": lambda x1, x2: x1 + x2 < 0.5,
    "split": lambda x1, x2: x1 < 0.2 or x1 > 0.8,
    "xor": lambda x1, x2: (x1 < 0.5 and x2 >= 0.5) or (x1 >= 0.5 and x2 < 0.5),
    "circle": lambda x1, x2: math.hypot(x1 - 0.5, x2 - 0.5) > math.sqrt(0.1),
}


def test_every_dataset_is_listed() -> None:
    assert sorted(DATASETS) == ["circle", "diag", "simple", "spiral", "split", "xor"]


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("n", [2, 3, 51])
def test_size_range_and_balanced_labels(name: str, n: int) -> None:
    data = DATASETS[name](n, seed=4)
    assert isinstance(data, Dataset) and data.name == name
    assert data.n == n and len(data.X) == n and len(data.y) == n, (
        f"{name}: n={data.n}, {len(data.X)} points, {len(data.y)} labels; expected {n}"
    )
    for i, (x1, x2) in enumerate(data.X):
        assert 0.0 <= x1 <= 1.0 and 0.0 <= x2 <= 1.0, f"{name}: point {i} {(x1, x2)} outside"
    assert set(data.y) <= {0, 1}, f"{name}: labels {set(data.y)}"
    # half the points (rounded down) have label 0, so both classes are present
    assert data.y.count(0) == n // 2 and data.y.count(1) == n - n // 2, (
        f"{name}: {data.y.count(0)} zeros and {data.y.count(1)} ones for n={n}"
    )


@pytest.mark.parametrize("name", sorted(RULES))
def test_labels_follow_the_rule(name: str) -> None:
    data = DATASETS[name](200, seed=1)
    for i, ((x1, x2), y) in enumerate(zip(data.X, data.y, strict=True)):
        assert y == int(RULES[name](x1, x2)), f"{name}: point {i} {(x1, x2)} has label {y}"


def test_xor_labels_by_quarter() -> None:
    data = DATASETS["xor"](400, seed=2)
    quarters = {(x1 < 0.5, x2 < 0.5): set() for x1 in (0.0, 1.0) for x2 in (0.0, 1.0)}
    for (x1, x2), y in zip(data.X, data.y, strict=True):
        quarters[(x1 < 0.5, x2 < 0.5)].add(y)
    # bottom-left and top-right are label 0; top-left and bottom-right label 1
    assert quarters == {
        (True, True): {0},
        (False, False): {0},
        (True, False): {1},
        (False, True): {1},
    }, f"labels seen per quarter (x1 < 0.5, x2 < 0.5): {quarters}"


def test_spiral_points_lie_on_their_arm() -> None:
    data = DATASETS["spiral"](100, seed=3)
    for i, ((x1, x2), y) in enumerate(zip(data.X, data.y, strict=True)):
        radius = math.hypot(x1 - 0.5, x2 - 0.5)
        t = (radius - SPIRAL_R0) / (SPIRAL_R1 - SPIRAL_R0)
        assert -1e-12 <= t <= 1.0 + 1e-12, f"point {i} at radius {radius} is off the arms"
        # the arm of label y has angle 2 pi turns t + pi y at parameter t
        expected = 2.0 * math.pi * SPIRAL_TURNS * t + math.pi * y
        angle = math.atan2(x2 - 0.5, x1 - 0.5)
        gap = math.remainder(angle - expected, 2.0 * math.pi)
        assert abs(gap) < 1e-9, f"point {i} (label {y}) is {gap} rad off its arm"


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_same_seed_same_data_other_seed_other_data(name: str) -> None:
    first, again = DATASETS[name](30, seed=7), DATASETS[name](30, seed=7)
    assert first == again, f"{name}: two calls with seed 7 differ"
    other = DATASETS[name](30, seed=8)
    assert other.X != first.X, f"{name}: seeds 7 and 8 give the same points"
    assert DATASETS[name](30) == DATASETS[name](30, seed=0), f"{name}: default seed is not 0"


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_global_random_state_is_left_alone(name: str) -> None:
    random.seed(1234)
    expected = random.random()
    random.seed(1234)
    DATASETS[name](20, seed=5)
    assert random.random() == expected, f"{name} used or changed the global random state"


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("n", [0, 1, -3])
def test_too_few_points_is_a_value_error(name: str, n: int) -> None:
    with pytest.raises(ValueError, match=f"n must be at least 2.*got {n}"):
        DATASETS[name](n)


@pytest.mark.parametrize("n", [10.0, "10", True, None])
def test_a_non_integer_size_is_a_type_error(n: object) -> None:
    with pytest.raises(TypeError, match="n must be an int"):
        DATASETS["xor"](n)
