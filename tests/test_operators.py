"""Module 0: the scalar operators of `minitorch.operators`.

Each operator is checked against its mathematical definition, the algebraic
laws it must obey (hypothesis property tests), and each `*_back` derivative
helper against a central difference computed here, independently of the
library.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from minitorch.operators import (
    absolute,
    add,
    add_lists,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    div,
    eq,
    exp,
    exp_back,
    floor_divide,
    ge,
    greater_or_nan,
    gt,
    identity,
    inv,
    inv_back,
    is_close,
    le,
    less_or_nan,
    log,
    log_back,
    logical_and,
    logical_not,
    logical_or,
    lt,
    map_list,
    maximum,
    minimum,
    mul,
    ne,
    neg,
    neg_list,
    power,
    prod_list,
    reduce,
    relu,
    relu_back,
    remainder,
    sigmoid,
    sigmoid_back,
    sqrt,
    sub,
    sum_list,
    tanh,
    tanh_back,
    zip_with,
)

FEW = settings(max_examples=50, deadline=None)

moderate = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False)
positive = st.floats(min_value=0.1, max_value=100.0)
nonzero = st.one_of(
    st.floats(min_value=-100.0, max_value=-0.1), st.floats(min_value=0.1, max_value=100.0)
)
upstream = st.floats(min_value=-5.0, max_value=5.0)  # the `d` passed to a *_back helper


def numerical_derivative(f, x: float, h: float = 1e-6) -> float:
    """$(f(x + h) - f(x - h)) / 2h$, written here so the tests do not rely on task 1.1."""
    return (f(x + h) - f(x - h)) / (2.0 * h)


def assert_close(got: float, expected: float, what: str, rel: float = 1e-9, abs_: float = 1e-9):
    assert math.isclose(got, expected, rel_tol=rel, abs_tol=abs_), (
        f"{what}: got {got!r}, expected {expected!r}"
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


# ---------------------------------------------------------------------------
# Task 0.2: activations, logs, exponentials and their derivatives
# ---------------------------------------------------------------------------


@pytest.mark.task0_2
@FEW
@given(st.floats(min_value=-30.0, max_value=30.0))
def test_sigmoid_matches_definition(x: float) -> None:
    assert_close(sigmoid(x), 1.0 / (1.0 + math.exp(-x)), f"sigmoid({x})", rel=1e-12, abs_=1e-15)


@pytest.mark.task0_2
def test_sigmoid_known_values() -> None:
    assert sigmoid(0.0) == 0.5
    # sigma(ln 3) = 1 / (1 + 1/3) = 3/4
    assert_close(sigmoid(math.log(3.0)), 0.75, "sigmoid(ln 3)", rel=1e-12)


@pytest.mark.task0_2
@FEW
@given(st.floats(min_value=-1e4, max_value=1e4))
def test_sigmoid_symmetry_and_range(x: float) -> None:
    s = sigmoid(x)
    assert 0.0 <= s <= 1.0, f"sigmoid({x}) = {s} is outside [0, 1]"
    assert_close(sigmoid(-x), 1.0 - s, f"sigmoid(-x) vs 1 - sigmoid(x) at x={x}", abs_=1e-12)


@pytest.mark.task0_2
@FEW
@given(st.floats(min_value=-1e4, max_value=1e4), st.floats(min_value=-1e4, max_value=1e4))
def test_sigmoid_is_monotone(x: float, y: float) -> None:
    low, high = min(x, y), max(x, y)
    # non-decreasing up to a rounding error of a few ulps
    assert sigmoid(low) <= sigmoid(high) + 1e-15, f"sigmoid({low}) > sigmoid({high})"
    if high - low >= 0.1 and abs(low) < 20.0 and abs(high) < 20.0:
        assert sigmoid(low) < sigmoid(high), f"sigmoid not increasing on [{low}, {high}]"


@pytest.mark.task0_2
@pytest.mark.parametrize("x", [-1e4, -1000.0, -745.0, -710.0, 710.0, 745.0, 1000.0, 1e4])
def test_sigmoid_is_stable_for_large_inputs(x: float) -> None:
    s = sigmoid(x)  # a naive 1 / (1 + exp(-x)) raises OverflowError for x < -709.78
    assert math.isfinite(s), f"sigmoid({x}) = {s}"
    expected = 1.0 if x > 0 else 0.0
    assert_close(s, expected, f"sigmoid({x})", abs_=1e-300)


@pytest.mark.task0_2
@FEW
@given(moderate, upstream)
def test_relu_and_relu_back(x: float, d: float) -> None:
    assert relu(x) == (x if x > 0 else 0.0), f"relu({x}) = {relu(x)}"
    assert relu_back(x, d) == (d if x > 0 else 0.0), f"relu_back({x}, {d}) = {relu_back(x, d)}"


@pytest.mark.task0_2
def test_relu_back_is_zero_at_the_kink() -> None:
    # PyTorch's convention: the derivative of relu at 0 is 0
    assert relu(0.0) == 0.0
    assert relu_back(0.0, 3.0) == 0.0


@pytest.mark.task0_2
@FEW
@given(positive)
def test_log_and_exp_match_math(x: float) -> None:
    assert_close(log(x), math.log(x), f"log({x})", rel=1e-12)
    assert_close(exp(x / 10.0), math.exp(x / 10.0), f"exp({x / 10.0})", rel=1e-12)


@pytest.mark.task0_2
@FEW
@given(st.floats(min_value=1e-3, max_value=1e3), st.floats(min_value=-700.0, max_value=700.0))
def test_log_and_exp_are_inverse(x: float, y: float) -> None:
    assert_close(exp(log(x)), x, f"exp(log({x}))", rel=1e-12)
    assert_close(log(exp(y)), y, f"log(exp({y}))", rel=1e-12, abs_=1e-12)


@pytest.mark.task0_2
def test_log_and_exp_edge_values() -> None:
    # as PyTorch: log(0) = -inf, log(x < 0) = nan, exp overflows to +inf
    assert log(0.0) == -math.inf
    assert math.isnan(log(-1.0))
    assert exp(1000.0) == math.inf
    assert exp(-1000.0) == 0.0
    assert exp(0.0) == 1.0


@pytest.mark.task0_2
@FEW
@given(nonzero)
def test_inv(x: float) -> None:
    assert_close(inv(x), 1.0 / x, f"inv({x})", rel=1e-15)
    assert_close(inv(inv(x)), x, f"inv(inv({x}))", rel=1e-12)


@pytest.mark.task0_2
@FEW
@given(st.floats(min_value=-10.0, max_value=10.0), upstream)
def test_sigmoid_back_against_central_difference(x: float, d: float) -> None:
    assert_close(
        sigmoid_back(x, d),
        d * numerical_derivative(sigmoid, x),
        f"sigmoid_back({x}, {d})",
        rel=1e-5,
        abs_=1e-8,
    )
    s = 1.0 / (1.0 + math.exp(-x))
    assert_close(sigmoid_back(x, d), d * s * (1 - s), f"sigmoid_back({x}, {d})", abs_=1e-12)


@pytest.mark.task0_2
@FEW
@given(nonzero, upstream)
def test_relu_back_against_central_difference(x: float, d: float) -> None:
    # |x| >= 0.1 keeps x + h and x - h on the same side of the kink
    assert_close(
        relu_back(x, d), d * numerical_derivative(relu, x), f"relu_back({x}, {d})", abs_=1e-6
    )


@pytest.mark.task0_2
@FEW
@given(positive, upstream)
def test_log_back_against_central_difference(x: float, d: float) -> None:
    assert_close(
        log_back(x, d),
        d * numerical_derivative(log, x),
        f"log_back({x}, {d})",
        rel=1e-5,
        abs_=1e-8,
    )


@pytest.mark.task0_2
@FEW
@given(st.floats(min_value=-20.0, max_value=20.0), upstream)
def test_exp_back_against_central_difference(x: float, d: float) -> None:
    assert_close(
        exp_back(x, d),
        d * numerical_derivative(exp, x),
        f"exp_back({x}, {d})",
        rel=1e-5,
        abs_=1e-8,
    )


@pytest.mark.task0_2
@FEW
@given(nonzero, upstream)
def test_inv_back_against_central_difference(x: float, d: float) -> None:
    assert_close(
        inv_back(x, d),
        d * numerical_derivative(inv, x),
        f"inv_back({x}, {d})",
        rel=1e-5,
        abs_=1e-8,
    )


@FEW
@given(st.floats(min_value=-10.0, max_value=10.0), upstream)
def test_tanh_and_tanh_back(x: float, d: float) -> None:
    expected = (math.exp(x) - math.exp(-x)) / (math.exp(x) + math.exp(-x))
    assert_close(tanh(x), expected, f"tanh({x})", abs_=1e-12)
    assert_close(
        tanh_back(x, d),
        d * numerical_derivative(tanh, x),
        f"tanh_back({x}, {d})",
        rel=1e-5,
        abs_=1e-8,
    )


# ---------------------------------------------------------------------------
# Task 0.3: higher-order functions
# ---------------------------------------------------------------------------

float_lists = st.lists(st.floats(min_value=-100.0, max_value=100.0), max_size=20)


@pytest.mark.task0_3
@FEW
@given(float_lists)
def test_map_list_matches_comprehension(values: list[float]) -> None:
    def square_plus_one(x: float) -> float:
        return x * x + 1.0

    assert map_list(square_plus_one)(values) == [x * x + 1.0 for x in values]
    # any iterable, not only lists
    assert map_list(square_plus_one)(iter(values)) == [x * x + 1.0 for x in values]


@pytest.mark.task0_3
@FEW
@given(st.lists(st.tuples(moderate, moderate), max_size=20))
def test_zip_with_matches_builtin_map(pairs: list[tuple[float, float]]) -> None:
    xs = [x for x, _ in pairs]
    ys = [y for _, y in pairs]

    def weighted(x: float, y: float) -> float:
        return 2.0 * x - y  # not symmetric: swapped arguments would show

    assert zip_with(weighted)(xs, ys) == list(map(weighted, xs, ys))
    assert zip_with(weighted)(iter(xs), iter(ys)) == list(map(weighted, xs, ys))


@pytest.mark.task0_3
@pytest.mark.parametrize(("n_x", "n_y"), [(2, 3), (3, 2), (0, 1)])
def test_zip_with_refuses_lists_of_different_lengths(n_x: int, n_y: int) -> None:
    with pytest.raises(ValueError, match="length"):
        zip_with(add)([1.0] * n_x, [1.0] * n_y)


@pytest.mark.task0_3
def test_reduce_folds_from_the_left() -> None:
    # ((0 * 10 + 1) * 10 + 2) * 10 + 3 = 123; a right fold would give 321
    assert reduce(lambda acc, x: acc * 10.0 + x, 0.0)([1.0, 2.0, 3.0]) == 123.0
    # ((10 - 1) - 2) - 3 = 4
    assert reduce(lambda acc, x: acc - x, 10.0)([1.0, 2.0, 3.0]) == 4.0
    assert reduce(add, 7.0)([]) == 7.0, "an empty list reduces to the start value"


@pytest.mark.task0_3
@FEW
@given(float_lists)
def test_neg_list_and_sum_list_match_builtins(values: list[float]) -> None:
    assert neg_list(values) == [-x for x in values]
    scale = sum(abs(x) for x in values) + 1.0
    assert math.isclose(sum_list(values), sum(values), rel_tol=1e-12, abs_tol=1e-12 * scale), (
        f"sum_list({values}) = {sum_list(values)}, sum gives {sum(values)}"
    )


@pytest.mark.task0_3
@FEW
@given(st.lists(st.tuples(moderate, moderate), max_size=20))
def test_add_lists_matches_elementwise_sum(pairs: list[tuple[float, float]]) -> None:
    xs = [x for x, _ in pairs]
    ys = [y for _, y in pairs]
    assert add_lists(xs, ys) == [x + y for x, y in pairs]


@pytest.mark.task0_3
@FEW
@given(st.lists(st.floats(min_value=-3.0, max_value=3.0), max_size=12))
def test_prod_list_matches_math_prod(values: list[float]) -> None:
    assert math.isclose(prod_list(values), math.prod(values), rel_tol=1e-12, abs_tol=1e-300), (
        f"prod_list({values}) = {prod_list(values)}, math.prod gives {math.prod(values)}"
    )


@pytest.mark.task0_3
def test_list_helpers_on_empty_lists() -> None:
    assert sum_list([]) == 0.0
    assert prod_list([]) == 1.0
    assert neg_list([]) == []
    assert add_lists([], []) == []


@pytest.mark.task0_3
@FEW
@given(float_lists, float_lists)
def test_sum_list_is_additive_over_concatenation(xs: list[float], ys: list[float]) -> None:
    assume(xs or ys)
    scale = sum(abs(v) for v in xs + ys) + 1.0
    assert math.isclose(
        sum_list(xs + ys), sum_list(xs) + sum_list(ys), rel_tol=1e-12, abs_tol=1e-12 * scale
    )


@pytest.mark.task0_1
def test_maximum_propagates_nan_like_torch() -> None:
    # torch.maximum(tensor(nan), tensor(1.)) and torch.maximum(tensor(1.), tensor(nan)) are nan
    assert math.isnan(maximum(math.nan, 1.0))
    assert math.isnan(maximum(1.0, math.nan))


@pytest.mark.task0_2
def test_relu_propagates_nan_like_torch() -> None:
    # torch.relu(torch.tensor(float("nan"))) is nan
    assert math.isnan(relu(math.nan))


@pytest.mark.task0_2
def test_relu_keeps_the_sign_of_zero_like_torch() -> None:
    # torch.relu(tensor([-0., -1.])) prints tensor([-0., 0.]): -0 is not below 0, -1 is
    assert math.copysign(1.0, relu(-0.0)) == -1.0, f"relu(-0.0) = {relu(-0.0)!r}"
    assert math.copysign(1.0, relu(-1.0)) == 1.0, f"relu(-1.0) = {relu(-1.0)!r}"


# ---------------------------------------------------------------------------
# The operators tensors add (no exercise): arithmetic, comparisons, logic
# ---------------------------------------------------------------------------

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
