"""More elementwise math against PyTorch: values, dtypes, grad_fn names, gradients, errors."""

import math

import numpy as np
import pytest
from helpers import compare, floats, same_error
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch

# every test here compares with torch live (helpers.compare)
pytest.importorskip(
    "torch", reason="PyTorch is not installed: pip install -e '.[test,torch]' compares with it"
)

NAN, INF = float("nan"), float("inf")

UNARY = [
    "sin", "cos", "tan", "atan", "sinh", "cosh", "asinh", "erf", "erfc", "exp2", "deg2rad",
    "rad2deg", "floor", "ceil", "round", "trunc", "frac", "sign", "square", "expm1",
]  # fmt: skip
POSITIVE = ["log2", "log10", "log1p", "rsqrt"]
UNIT = ["asin", "acos", "atanh"]
ABOVE_ONE = ["acosh"]
# Independent references for the declared forms (no torch needed):
# name -> (the reference, aliases, where to compare: values with the domain's edges)
EVERYWHERE = [-30.0, -2.0, -0.5, 0.0, 0.25, 1.0, 3.0, 1e5]
NUMPY_REFERENCES = {
    "asinh": (np.arcsinh, ("arcsinh",), EVERYWHERE),
    "acosh": (np.arccosh, ("arccosh",), [1.25, 1.5, 3.0, 1e5]),
    "atanh": (np.arctanh, ("arctanh",), [-0.999, -0.5, 0.0, 0.25, 0.9]),
    "exp2": (np.exp2, (), [-30.0, -2.0, -0.5, 0.0, 0.25, 1.0, 3.0, 100.0]),
    "erfc": (np.vectorize(math.erfc), (), [-3.0, -0.5, 0.0, 0.25, 1.0, 3.0, 20.0]),
    "deg2rad": (np.deg2rad, (), [-720.0, -30.0, -0.5, 0.0, 0.25, 1.0, 90.0, 180.0]),
    "rad2deg": (np.rad2deg, (), [-30.0, -2.0, -0.5, 0.0, 0.25, 1.0, math.pi, 100.0]),
}


@pytest.mark.parametrize("name", UNARY + POSITIVE + UNIT + ABOVE_ONE)
@pytest.mark.parametrize("permuted", [False, True])
def test_unary_like_torch(name, permuted):
    low, high = (0.1, 3.0) if name in POSITIVE else (-0.9, 0.9) if name in UNIT else (-3, 3)
    low, high = (1.1, 4.0) if name in ABOVE_ONE else (low, high)
    compare(lambda lib, x: getattr(lib, name)(x), [floats((2, 3), 1, low, high)], permuted=permuted)
    compare(lambda lib, x: getattr(x, name)(), [floats((3,), 2, low, high)])


@pytest.mark.parametrize("name", sorted(NUMPY_REFERENCES))
def test_every_declared_form_matches_numpy(name):
    """minitorch.X, Tensor.X, the aliases and the in-place Tensor.X_ against NumPy; the
    gradient against central differences of minitorch's own forward."""
    reference, aliases, points = NUMPY_REFERENCES[name]
    values = np.array(points)
    x = minitorch.tensor(values, dtype=minitorch.float64)
    forms = {f"minitorch.{n}": getattr(minitorch, n)(x) for n in (name, *aliases)}
    forms.update({f"Tensor.{n}": getattr(x, n)() for n in (name, *aliases)})
    for n in (name, *aliases):
        written = x.clone()
        assert getattr(written, n + "_")() is written
        forms[f"Tensor.{n}_"] = written
    for form, result in forms.items():
        np.testing.assert_allclose(result.numpy(), reference(values), rtol=1e-13, err_msg=form)
    assert getattr(minitorch, name)(minitorch.tensor([1, 2])).dtype is minitorch.float32
    x.requires_grad_(True)
    getattr(x, name)().sum().backward()
    h = 1e-6
    shifted = getattr(minitorch, name)(x.detach() + h) - getattr(minitorch, name)(x.detach() - h)
    np.testing.assert_allclose(x.grad.numpy(), (shifted / (2 * h)).numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", UNARY + POSITIVE + UNIT + ABOVE_ONE)
def test_unary_dtypes_like_torch(name):
    """Integers become floats, except where rounding and sign keep them; bools as torch."""
    if name == "frac":
        same_error(lambda lib: lib.frac(lib.tensor([1, -2])))
    else:
        compare(lambda lib, x: getattr(lib, name)(x), [np.array([1, -2, 3, 0])])
    if name in ("floor", "ceil", "round", "trunc", "frac"):
        same_error(lambda lib: getattr(lib, name)(lib.tensor([True, False])))
    else:
        compare(lambda lib, x: getattr(lib, name)(x), [np.array([True, False])])


def test_special_values_like_torch():
    """Infinities, NaN, signed zeros, halves (round to even) and the domain edges."""
    special = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 800.0])
    for name in UNARY + POSITIVE + UNIT + ABOVE_ONE:
        if name != "square":
            compare(lambda lib, x, name=name: getattr(lib, name)(x), [special], grad=False)
    compare(lambda lib, x: (lib.isnan(x), lib.isinf(x), lib.isfinite(x)), [special])
    compare(lambda lib, x: lib.nan_to_num(x), [special], grad=False)
    compare(
        lambda lib, x: lib.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0), [special], grad=False
    )
    compare(lambda lib, x: lib.nan_to_num(x), [np.array([1.0, INF, NAN, -INF])], central=False)
    assert str(minitorch.trunc(minitorch.tensor([-0.5], device="cpu"))) == "tensor([-0.])"


def test_round_decimals_like_torch():
    halves = np.array([1.25, 1.35, -2.45, 0.05])
    compare(lambda lib, x: lib.round(x, decimals=1), [halves], grad=False)
    compare(lambda lib, x: x.round(decimals=-1), [np.array([1234.5, 15.0, -25.0])], grad=False)
    compare(lambda lib, x: lib.round(x, decimals=2), [np.array([0.1234, -5.4321])])
    same_error(lambda lib: lib.round(lib.tensor([1, 2]), decimals=1))


BINARY = {
    "atan2": lambda lib, a, b: lib.atan2(a, b),
    "hypot": lambda lib, a, b: lib.hypot(a, b),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "fmod_number": lambda lib, a, b: lib.fmod(a, -1.5),
    "remainder": lambda lib, a, b: lib.remainder(a, b),
    "lerp": lambda lib, a, b: lib.lerp(a, b, 0.3),
    "lerp_tensor": lambda lib, a, b: lib.lerp(a, b, b.abs() / 3),
}


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("permuted", [False, True])
def test_binary_like_torch(name, permuted):
    a, b = floats((3, 2), 3, -3, 3), floats((3, 2), 4, 0.5, 2.5)
    compare(BINARY[name], [a, b], permuted=permuted)


@pytest.mark.parametrize("name", ["atan2", "hypot", "fmod"])
def test_binary_broadcast_like_torch(name):
    compare(BINARY[name], [floats((2, 1, 3), 5), floats((4, 1), 6, 0.5, 2.0)])


def test_binary_dtypes_and_errors_like_torch():
    ints = [np.array([7, -7, 5, -5]), np.array([2, 2, -3, -3])]
    compare(lambda lib, a, b: lib.fmod(a, b), ints)
    compare(lambda lib, a, b: lib.atan2(a, b), ints)
    compare(lambda lib, a, b: lib.fmod(a, 2.5), ints)
    compare(lambda lib, a, b: lib.fmod(a, 0.0), [floats(3), floats(3)], grad=False)
    same_error(lambda lib: lib.fmod(lib.tensor([1, 2]), 0))
    same_error(lambda lib: lib.hypot(lib.tensor([1, 2]), lib.tensor([1, 2])))
    same_error(lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([1, 2]), 0.5))


def test_comparisons_of_closeness_like_torch():
    a = np.array([1.0, 2.0, NAN, INF, 1e-9])
    b = np.array([1.0 + 1e-6, 2.1, NAN, INF, 0.0])
    compare(lambda lib, x, y: lib.isclose(x, y), [a, b], grad=False)
    compare(lambda lib, x, y: lib.isclose(x, y, equal_nan=True, atol=0.2), [a, b], grad=False)
    compare(lambda lib, x, y: (lib.allclose(x, y), lib.allclose(x, x, equal_nan=True)), [a, b])
    compare(lambda lib, x, y: (lib.equal(x, x), lib.equal(x, y), lib.equal(x, x[:2])), [a, b])
    compare(lambda lib, x, y: lib.isclose(x, y, atol=1), [np.array([1, 5]), np.array([2, 2])])
    same_error(lambda lib: lib.isclose(lib.tensor([1]), lib.tensor([1.0])))


@settings(max_examples=8, deadline=None)
@given(st.lists(st.floats(-50, 50, width=32), min_size=1, max_size=6))
def test_rounding_matches_torch_on_any_float(values):
    x = np.array(values, dtype=np.float32)
    for name in ("floor", "ceil", "round", "trunc", "frac", "sign"):
        compare(lambda lib, t, name=name: getattr(lib, name)(t), [x], grad=False)


def test_scalar_functions_keep_ieee_results():
    """The plain-Python versions return NaN and infinities where `math` would raise."""
    from minitorch import operators

    assert math.isnan(operators.asin(2.0)) and math.isnan(operators.log2(-1.0))
    assert operators.log10(0.0) == -INF and operators.log1p(-1.0) == -INF
    assert operators.cosh(1000.0) == INF and operators.sinh(-1000.0) == -INF
    assert operators.expm1(1000.0) == INF and operators.rsqrt(0.0) == INF
    assert math.isnan(operators.fmod(INF, 2.0)) and math.isnan(operators.fmod(1.0, 0.0))
    assert operators.fmod(-1e-20, 1.0) == -1e-20  # exact, unlike x - y * trunc(x / y)
    assert operators.integer_fmod(-7, 2) == -1 and operators.integer_fmod(7, -2) == 1
