"""`gcd`, `lcm` and `frexp` against PyTorch, Python's `math` and NumPy.

The compare cases' torch answers are recorded in tests/data/test_tensor_integer_math.json
(scripts/record_torch_answers.py); values are also checked against `math.gcd`/`math.lcm` and
`np.frexp`, and the mantissa's gradient against central differences.
"""

import math

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch

INF, NAN = float("inf"), float("nan")
A = np.array([-4, 0, 0, -6, 12, 7, 2**40])
B = np.array([6, 0, 5, -9, 18, -7, 3**20])
NO_GRAD = {"grad": False}
CASES = {
    "gcd": (lambda lib, a, b: lib.gcd(a, b), [A, B], NO_GRAD),
    "lcm": (lambda lib, a, b: lib.lcm(a, b), [A, B], NO_GRAD),
    "gcd broadcast": (
        lambda lib, a, b: lib.gcd(a, b), [np.array([[4], [9]]), np.array([6, 3, 0])], NO_GRAD),
    "gcd of int8": (
        lambda lib, a, b: a.to(lib.int8).gcd(b.to(lib.int8)),
        [np.array([-128, 5, 12]), np.array([0, 7, -18])], NO_GRAD),
    "lcm of int32 and int64": (
        lambda lib, a, b: lib.lcm(a.to(lib.int32), b), [np.array([4, 6]), np.array([6, 4])],
        NO_GRAD),
    "gcd_ and lcm_": (
        lambda lib, a, b: (a.clone().gcd_(b), lib.lcm_(a.clone(), b)), [A[:4], B[:4]], NO_GRAD),
    "frexp": (
        lambda lib, x: lib.frexp(x), [np.array([0.0, 1.0, -3.0, 0.3, INF, -INF, NAN, 1e-310])],
        {"central": False}),
    "frexp method float32": (
        lambda lib, x: x.float().frexp(), [floats((2, 3), 1, -100.0, 100.0)],
        {"central": False}),
}  # fmt: skip
ERRORS = {
    "gcd of floats": lambda lib: lib.gcd(lib.tensor([1.0]), lib.tensor([2.0])),
    "lcm of a float": lambda lib: lib.lcm(lib.tensor([1.0]), lib.tensor([2])),
    "gcd of bools": lambda lib: lib.gcd(lib.tensor([True]), lib.tensor([True])),
    "gcd with a number": lambda lib: lib.gcd(lib.tensor([4]), 3),
    "gcd_ of an integer by a float": lambda lib: lib.tensor([4]).gcd_(lib.tensor([6.0])),
    "lcm_ of a float by an integer": lambda lib: lib.tensor([4.0]).lcm_(lib.tensor([6])),
    "gcd_ with a number": lambda lib: lib.tensor([4]).gcd_(3),
    "frexp of integers": lambda lib: lib.frexp(lib.tensor([1, 2])),
}
RECORDED = ComparedCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers


@pytest.mark.parametrize("key", sorted(CASES) + sorted(ERRORS))
def test_integer_math_like_torch(key):
    """Values, dtypes, node names and gradients (or the error) as torch gave them."""
    (RECORDED.check if key in CASES else RECORDED.check_error)(key)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(-(10**6), 10**6), st.integers(-(10**6), 10**6)), min_size=1))
def test_gcd_and_lcm_match_python(pairs):
    a = minitorch.tensor([x for x, _ in pairs])
    b = minitorch.tensor([y for _, y in pairs])
    assert minitorch.gcd(a, b).tolist() == [math.gcd(x, y) for x, y in pairs]
    assert a.lcm(b).tolist() == [math.lcm(x, y) for x, y in pairs]
    written = a.clone()
    written.gcd_(b)
    assert written.tolist() == [math.gcd(x, y) for x, y in pairs]


def test_frexp_matches_numpy_and_rebuilds_its_input():
    values = np.concatenate([floats(20, 2, -1e6, 1e6), [0.0, 1.0, 0.5, -2.0, 1e-310, 1e300]])
    mantissa, exponent = minitorch.frexp(minitorch.tensor(values))
    expected_m, expected_e = np.frexp(values)
    np.testing.assert_array_equal(mantissa.numpy(), expected_m)
    np.testing.assert_array_equal(exponent.numpy(), expected_e)
    assert exponent.dtype is minitorch.int32
    np.testing.assert_array_equal(np.ldexp(mantissa.numpy(), exponent.numpy()), values)


def test_frexp_gradient_against_central_differences():
    x = minitorch.tensor(floats(6, 3, 0.3, 7.0), requires_grad=True)
    mantissa, exponent = x.frexp()
    mantissa.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 ** -exponent.numpy().astype(float))
    minitorch.grad_check(lambda a: minitorch.frexp(a).mantissa * 3.0, x.detach().requires_grad_())
