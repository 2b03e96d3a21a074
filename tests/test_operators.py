"""Module 0: the scalar operators of `minitorch.operators`.

Each operator is checked against its mathematical definition, the algebraic
laws it must obey (hypothesis property tests), and each `*_back` derivative
helper against a central difference computed here, independently of the
library.
"""

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from minitorch.operators import (
    add,
    add_lists,
    eq,
    exp,
    exp_back,
    identity,
    inv,
    inv_back,
    is_close,
    log,
    log_back,
    lt,
    map_list,
    maximum,
    mul,
    neg,
    neg_list,
    prod_list,
    reduce,
    relu,
    relu_back,
    sigmoid,
    sigmoid_back,
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
