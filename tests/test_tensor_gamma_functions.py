"""`lgamma` and `digamma` against PyTorch, Python's `math.lgamma` and known values.

The compare cases' torch answers are recorded in tests/data/test_tensor_gamma_functions.json
(scripts/record_torch_answers.py); values are also checked against `math.lgamma`, $\\psi$ against
central differences of `math.lgamma` and closed forms, and gradients against central
differences.
"""

import math

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats

import minitorch

INF, NAN = float("inf"), float("nan")
EULER = 0.5772156649015329
SPECIAL = np.array([0.0, -1.0, -2.5, 0.5, 1.0, 3.0, 1e-3, 7.3, 25.0, 1e10, INF, -INF, NAN])
NO_GRAD = {"grad": False}
CASES = {}
for name in ("lgamma", "digamma"):
    CASES.update({
        f"{name} positive": (
            lambda lib, x, name=name: getattr(lib, name)(x), [floats((2, 3), 1, 0.1, 30.0)], {}),
        f"{name} negative": (
            lambda lib, x, name=name: getattr(x, name)(), [floats(6, 2, -4.9, -0.1)], {}),
        f"{name} special values": (
            lambda lib, x, name=name: getattr(lib, name)(x), [SPECIAL], NO_GRAD),
        f"{name}_ float32": (
            lambda lib, x, name=name: getattr(x.float(), name + "_")(), [floats(4, 3, 0.5, 9.0)],
            NO_GRAD),
        f"{name} of integers": (
            lambda lib, x, name=name: getattr(lib, name)(x), [np.array([1, 2, 5])], NO_GRAD),
    })  # fmt: skip
RECORDED = ComparedCases(__file__, CASES, {})
torch_answers = RECORDED.torch_answers


@pytest.mark.parametrize("key", sorted(CASES))
def test_gamma_functions_like_torch(key):
    """Values, dtypes, node names and gradients as torch gave them."""
    RECORDED.check(key)


def test_lgamma_matches_math():
    values = np.concatenate([floats(30, 4, -20.0, 50.0), [0.5, 1.0, 2.0, 170.5, 1e-8]])
    ours = minitorch.lgamma(minitorch.tensor(values)).numpy()
    np.testing.assert_allclose(ours, [math.lgamma(v) for v in values], rtol=1e-14, atol=1e-14)
    assert minitorch.lgamma(minitorch.tensor([0.0, -3.0])).tolist() == [INF, INF]


def test_digamma_matches_the_derivative_of_lgamma_and_closed_forms():
    values = np.concatenate([floats(30, 5, 0.2, 40.0), floats(10, 6, -6.9, -0.1)])
    h = 1e-5
    numeric = [(math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h) for v in values]
    ours = minitorch.digamma(minitorch.tensor(values)).numpy()
    np.testing.assert_allclose(ours, numeric, rtol=1e-7, atol=1e-7)
    harmonic = [sum(1.0 / k for k in range(1, n + 1)) - EULER for n in range(6)]
    exact = [-EULER - 2 * math.log(2.0), *harmonic]
    at = minitorch.tensor([0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=minitorch.float64)
    np.testing.assert_allclose(minitorch.digamma(at).numpy(), exact, rtol=1e-13)
    assert minitorch.digamma(minitorch.tensor([0.0])).item() == -INF
    assert math.isnan(minitorch.digamma(minitorch.tensor([-2.0])).item())


def test_gradients_against_central_differences_and_trigamma():
    x = minitorch.tensor(np.concatenate([floats(5, 7, 0.2, 12.0), [-2.5]]), requires_grad=True)
    minitorch.grad_check(minitorch.lgamma, x)
    minitorch.grad_check(minitorch.digamma, x)
    point = minitorch.tensor([1.0, 0.5], dtype=minitorch.float64, requires_grad=True)
    minitorch.digamma(point).sum().backward()
    np.testing.assert_allclose(point.grad.numpy(), [math.pi**2 / 6, math.pi**2 / 2], rtol=1e-13)


def test_digamma_is_differentiable_once():
    """torch differentiates $\\psi'$ further (polygamma); here the second step is an error."""
    x = minitorch.tensor([1.5], dtype=minitorch.float64, requires_grad=True)
    (first,) = minitorch.autograd.grad(minitorch.digamma(x).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative of trigamma"):
        first.sum().backward()
