"""The scalar operators of `minitorch.operators` that tensors add (no exercise): arithmetic,
comparisons and logic, by hand, against `math` and against torch's rules (NaN, signed zero,
division by zero).
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from operator_checks import (
    FEW,
    assert_close,
    moderate,
    nonzero,
    positive,
)

from minitorch.operators import (
    absolute,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    div,
    floor_divide,
    ge,
    greater_or_nan,
    gt,
    le,
    less_or_nan,
    logical_and,
    logical_not,
    logical_or,
    minimum,
    ne,
    power,
    remainder,
    sqrt,
    sub,
)

small_ints = st.integers(min_value=-4, max_value=4)  # small, so that ties are common


@FEW
@given(moderate, nonzero, positive)
def test_sub_div_power_against_math(x: float, y: float, base: float) -> None:
    assert sub(x, y) == math.fsum([x, -y]), f"sub({x}, {y}) = {sub(x, y)}"
    assert_close(div(x, y) * y, x, f"div({x}, {y}) * {y}", rel=1e-12, abs_=1e-12)
    assert_close(power(base, y), math.pow(base, y), f"power({base}, {y})", rel=1e-12)


@pytest.mark.parametrize(
    ("x", "y", "quotient", "rest"),
    [
        # floor rounds towards -inf; the remainder takes the divisor's sign (torch.remainder)
        (7, 2, 3, 1),
        (-7, 2, -4, 1),
        (7, -2, -4, -1),
        (-7, -2, 3, -1),
        (7.5, -2.0, -4.0, -0.5),
        (-7.5, 2.0, -4.0, 0.5),
        (6.0, 3.0, 2.0, 0.0),
    ],
)
def test_floor_divide_and_remainder_by_hand(x, y, quotient, rest) -> None:
    assert floor_divide(x, y) == quotient, f"floor_divide({x}, {y}) = {floor_divide(x, y)}"
    assert remainder(x, y) == rest, f"remainder({x}, {y}) = {remainder(x, y)}"
    assert type(floor_divide(x, y)) is type(quotient), "integers divide as integers"


@FEW
@given(moderate, nonzero)
def test_remainder_has_the_sign_of_the_divisor(x: float, y: float) -> None:
    r = remainder(x, y)
    assert abs(r) <= abs(y), f"|remainder({x}, {y})| = {abs(r)} exceeds |y|"
    assert r == 0 or (r > 0) == (y > 0), f"remainder({x}, {y}) = {r} has the sign of x"
    # C's fmod takes the sign of x instead: the two differ by y when the signs differ
    fmod = math.fmod(x, y)
    assert_close(r, fmod if fmod == 0 or (fmod > 0) == (y > 0) else fmod + y, "r vs fmod")


@FEW
@given(moderate, nonzero)
def test_floor_divide_and_remainder_like_torch(x: float, y: float) -> None:
    torch = pytest.importorskip("torch")
    a, b = torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    assert floor_divide(x, y) == torch.floor_divide(a, b).item(), f"floor_divide({x}, {y})"
    assert_close(remainder(x, y), torch.remainder(a, b).item(), f"remainder({x}, {y})")


def test_division_by_zero_in_kernels_is_ieee() -> None:
    # The kernels pass NumPy/Numba floats; torch gives these values for float tensors.
    f = np.float64
    cases = [
        (div, 1.0, 0.0, math.inf),
        (div, -1.0, 0.0, -math.inf),
        (div, 0.0, 0.0, math.nan),
        (floor_divide, 1.0, 0.0, math.inf),
        (floor_divide, -1.0, 0.0, -math.inf),
        (remainder, 1.0, 0.0, math.nan),
        (remainder, 5.0, math.inf, 5.0),  # torch.remainder(5., inf) is 5
        (remainder, -5.0, math.inf, math.inf),  # torch.remainder(-5., inf) is inf
        (power, -8.0, 1 / 3, math.nan),
        (power, 0.0, -1.0, math.inf),
    ]
    with np.errstate(all="ignore"):
        for fn, x, y, expected in cases:
            got = fn(f(x), f(y))
            same = math.isnan(got) if math.isnan(expected) else got == expected
            assert same, f"{fn.__name__}({x}, {y}) = {got}, expected {expected}"


@pytest.mark.parametrize(
    ("x", "expected"), [(4.0, 2.0), (2.25, 1.5), (0.0, 0.0), (-1.0, math.nan), (math.inf, math.inf)]
)
def test_sqrt_by_hand(x: float, expected: float) -> None:
    got = sqrt(x)
    assert math.isnan(got) if math.isnan(expected) else got == expected, f"sqrt({x}) = {got}"


def test_sqrt_and_absolute_of_signed_zero_like_torch() -> None:
    # torch.sqrt(tensor(-0.)) is -0. (IEEE); torch.abs(tensor(-0.)) is 0.
    assert math.copysign(1.0, sqrt(-0.0)) == -1.0, f"sqrt(-0.0) = {sqrt(-0.0)!r}"
    assert math.copysign(1.0, absolute(-0.0)) == 1.0, f"absolute(-0.0) = {absolute(-0.0)!r}"


def test_absolute_by_hand() -> None:
    assert absolute(-2.5) == 2.5 and absolute(2.5) == 2.5
    assert absolute(-3) == 3 and type(absolute(-3)) is int, "integers stay integers"
    assert absolute(-math.inf) == math.inf
    assert math.isnan(absolute(math.nan))


@pytest.mark.parametrize(
    ("x", "y", "expected"), [(1.0, 2.0, 1.0), (2.0, 1.0, 1.0), (-3.0, -3.0, -3.0), (-1, 4, -1)]
)
def test_minimum_by_hand(x, y, expected) -> None:
    assert minimum(x, y) == expected, f"minimum({x}, {y}) = {minimum(x, y)}"


def test_minimum_propagates_nan_like_torch() -> None:
    # torch.minimum(tensor(nan), tensor(1.)) and torch.minimum(tensor(1.), tensor(nan)) are nan
    assert math.isnan(minimum(math.nan, 1.0))
    assert math.isnan(minimum(1.0, math.nan))


@FEW
@given(small_ints, small_ints)
def test_comparisons_match_python(x: int, y: int) -> None:
    for fn, expected in ((ne, x != y), (le, x <= y), (gt, x > y), (ge, x >= y)):
        assert fn(x, y) == float(expected), f"{fn.__name__}({x}, {y}) = {fn(x, y)}"


def test_comparisons_with_nan_are_false_except_ne() -> None:
    # IEEE 754, and torch: tensor(nan) != tensor(nan) is True, every other comparison False
    for fn, expected in ((ne, 1.0), (le, 0.0), (gt, 0.0), (ge, 0.0)):
        for x, y in ((math.nan, 1.0), (1.0, math.nan), (math.nan, math.nan)):
            assert fn(x, y) == expected, f"{fn.__name__}({x}, {y}) = {fn(x, y)}"


@pytest.mark.parametrize("x", [0.0, -0.0, 2.5, -1.0, math.nan, math.inf])
@pytest.mark.parametrize("y", [0.0, 3.0, math.nan])
def test_logical_operators_treat_non_zero_as_true(x: float, y: float) -> None:
    # torch.logical_and(tensor(nan), tensor(1.)) is True: NaN is non-zero
    x_true, y_true = x != 0, y != 0
    assert logical_and(x, y) == float(x_true and y_true), f"logical_and({x}, {y})"
    assert logical_or(x, y) == float(x_true or y_true), f"logical_or({x}, {y})"
    assert logical_not(x) == float(not x_true), f"logical_not({x})"


@pytest.mark.parametrize(("x", "y"), [(12, 10), (-1, 6), (0, 7), (5, -8)])
def test_bitwise_operators_on_integers(x: int, y: int) -> None:
    # two's complement bits, by hand: 12 = 0b1100, 10 = 0b1010
    bits = 8
    mask = (1 << bits) - 1
    as_bits = [(x >> k) & 1 for k in range(bits)], [(y >> k) & 1 for k in range(bits)]
    expected_and = sum((a & b) << k for k, (a, b) in enumerate(zip(*as_bits, strict=True)))
    expected_or = sum((a | b) << k for k, (a, b) in enumerate(zip(*as_bits, strict=True)))
    assert bitwise_and(x, y) & mask == expected_and, f"bitwise_and({x}, {y})"
    assert bitwise_or(x, y) & mask == expected_or, f"bitwise_or({x}, {y})"
    assert bitwise_xor(x, y) & mask == expected_or & ~expected_and & mask, f"bitwise_xor({x}, {y})"
    assert bitwise_not(x) == -x - 1, f"bitwise_not({x})"


def test_bitwise_operators_on_bools_are_logical() -> None:
    # what the kernels pass for bool tensors: NumPy bools, where ~ is logical not
    t, f = np.True_, np.False_
    assert [bitwise_and(t, f), bitwise_or(t, f), bitwise_xor(t, t)] == [False, True, False]
    assert bitwise_not(t) == np.False_ and bitwise_not(f) == np.True_


@pytest.mark.parametrize(
    ("x", "best", "greater", "less"),
    [
        (2.0, 1.0, True, False),
        (1.0, 2.0, False, True),
        (1.0, 1.0, False, False),  # a tie keeps the first: argmax returns the first index
        (math.nan, 1.0, True, True),  # the first NaN wins, as torch.argmax/argmin
        (1.0, math.nan, False, False),  # and nothing beats it later
        (math.nan, math.nan, False, False),
    ],
)
def test_greater_and_less_or_nan(x, best, greater, less) -> None:
    assert greater_or_nan(x, best) == greater, f"greater_or_nan({x}, {best})"
    assert less_or_nan(x, best) == less, f"less_or_nan({x}, {best})"
