"""Module 0, task 0.2: the activations, logs and exponentials of `minitorch.operators`,
against their mathematical definitions, and each `*_back` derivative helper against a
central difference computed here, independently of the library.
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from operator_checks import (
    FEW,
    assert_close,
    moderate,
    nonzero,
    numerical_derivative,
    positive,
    upstream,
)

from minitorch.operators import (
    exp,
    exp_back,
    inv,
    inv_back,
    log,
    log_back,
    relu,
    relu_back,
    sigmoid,
    sigmoid_back,
    tanh,
    tanh_back,
)

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


@pytest.mark.task0_2
def test_relu_propagates_nan_like_torch() -> None:
    # torch.relu(torch.tensor(float("nan"))) is nan
    assert math.isnan(relu(math.nan))


@pytest.mark.task0_2
def test_relu_keeps_the_sign_of_zero_like_torch() -> None:
    # torch.relu(tensor([-0., -1.])) prints tensor([-0., 0.]): -0 is not below 0, -1 is
    assert math.copysign(1.0, relu(-0.0)) == -1.0, f"relu(-0.0) = {relu(-0.0)!r}"
    assert math.copysign(1.0, relu(-1.0)) == 1.0, f"relu(-1.0) = {relu(-1.0)!r}"
