"""Module 0, task 0.1: the basic scalar operators of `minitorch.operators` (arithmetic,
comparisons, `maximum`, `is_close`), by hand and by the algebraic laws they must obey
(hypothesis property tests).
"""

import math

import pytest
from hypothesis import given
from operator_checks import (
    FEW,
    assert_close,
    moderate,
)

from minitorch.operators import (
    add,
    eq,
    identity,
    is_close,
    lt,
    maximum,
    mul,
    neg,
)

# ---------------------------------------------------------------------------
# Task 0.1: basic operators
# ---------------------------------------------------------------------------


@pytest.mark.task0_1
@FEW
@given(moderate, moderate)
def test_arithmetic_matches_python(x: float, y: float) -> None:
    assert mul(x, y) == x * y, f"mul({x}, {y})"
    assert add(x, y) == x + y, f"add({x}, {y})"
    assert neg(x) == -x, f"neg({x})"
    assert identity(x) == x, f"identity({x})"


@pytest.mark.task0_1
@pytest.mark.parametrize(
    ("x", "y", "expected_lt", "expected_eq", "expected_max"),
    [
        (1.0, 2.0, 1.0, 0.0, 2.0),
        (2.0, 1.0, 0.0, 0.0, 2.0),
        (3.0, 3.0, 0.0, 1.0, 3.0),
        (-4.0, -1.5, 1.0, 0.0, -1.5),
        (0.0, -0.5, 0.0, 0.0, 0.0),
    ],
)
def test_comparisons_by_hand(x, y, expected_lt, expected_eq, expected_max) -> None:
    assert lt(x, y) == expected_lt, f"lt({x}, {y}) = {lt(x, y)}, expected {expected_lt}"
    assert eq(x, y) == expected_eq, f"eq({x}, {y}) = {eq(x, y)}, expected {expected_eq}"
    assert maximum(x, y) == expected_max, f"maximum({x}, {y}) = {maximum(x, y)}"


@pytest.mark.task0_1
@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [(1.0, 1.0, 1.0), (0.0, 0.009, 1.0), (0.0, -0.009, 1.0), (0.0, 0.011, 0.0), (5.0, 4.0, 0.0)],
)
def test_is_close_by_hand(x: float, y: float, expected: float) -> None:
    # the definition: 1 if |x - y| < 1e-2 else 0
    assert is_close(x, y) == expected, f"is_close({x}, {y}) = {is_close(x, y)}"


@pytest.mark.task0_1
@FEW
@given(moderate, moderate)
def test_add_and_mul_commute(x: float, y: float) -> None:
    assert add(x, y) == add(y, x), f"add not commutative at {x}, {y}"
    assert mul(x, y) == mul(y, x), f"mul not commutative at {x}, {y}"


@pytest.mark.task0_1
@FEW
@given(moderate, moderate, moderate)
def test_add_and_mul_associate(x: float, y: float, z: float) -> None:
    assert_close(add(add(x, y), z), add(x, add(y, z)), f"(x + y) + z vs x + (y + z) at {x, y, z}")
    assert_close(mul(mul(x, y), z), mul(x, mul(y, z)), f"(x y) z vs x (y z) at {x, y, z}")


@pytest.mark.task0_1
@FEW
@given(moderate, moderate, moderate)
def test_mul_distributes_over_add(x: float, y: float, z: float) -> None:
    assert_close(
        mul(z, add(x, y)), add(mul(z, x), mul(z, y)), f"z (x + y) vs z x + z y at {x, y, z}"
    )


@pytest.mark.task0_1
@FEW
@given(moderate)
def test_neg_is_an_involution(x: float) -> None:
    assert neg(neg(x)) == x, f"neg(neg({x})) = {neg(neg(x))}"
    assert add(x, neg(x)) == 0.0, f"x + neg(x) = {add(x, neg(x))} at x={x}"


@pytest.mark.task0_1
@FEW
@given(moderate, moderate)
def test_lt_and_eq_are_consistent(x: float, y: float) -> None:
    """Exactly one of $x < y$, $y < x$, $x = y$ holds, and eq is symmetric."""
    outcomes = (lt(x, y), lt(y, x), eq(x, y))
    assert sorted(outcomes) == [0.0, 0.0, 1.0], f"lt/lt/eq at {x}, {y} gave {outcomes}"
    assert eq(x, y) == eq(y, x), f"eq not symmetric at {x}, {y}"
    assert eq(x, x) == 1.0 and lt(x, x) == 0.0, f"eq/lt not reflexive/irreflexive at {x}"


@pytest.mark.task0_1
@FEW
@given(moderate, moderate)
def test_maximum_is_symmetric_and_an_upper_bound(x: float, y: float) -> None:
    m = maximum(x, y)
    assert m == maximum(y, x), f"maximum not symmetric at {x}, {y}"
    assert m >= x and m >= y, f"maximum({x}, {y}) = {m} is below an argument"
    assert m in (x, y), f"maximum({x}, {y}) = {m} is neither argument"


@pytest.mark.task0_1
@FEW
@given(moderate)
def test_is_close_is_reflexive(x: float) -> None:
    assert is_close(x, x) == 1.0, f"is_close({x}, {x}) = {is_close(x, x)}"
    assert is_close(x, x + 1.0) == 0.0, f"is_close({x}, {x + 1.0}) should be 0"


@pytest.mark.task0_1
def test_maximum_propagates_nan_like_torch() -> None:
    # torch.maximum(tensor(nan), tensor(1.)) and torch.maximum(tensor(1.), tensor(nan)) are nan
    assert math.isnan(maximum(math.nan, 1.0))
    assert math.isnan(maximum(1.0, math.nan))
