"""More elementwise math against PyTorch: values, dtypes, grad_fn names, gradients, errors.

Each case is a function of the library module (`lib`) and its NumPy inputs; what torch gave
for it is recorded in tests/data/test_tensor_math.json (scripts/record_torch_answers.py from
`torch_answers`), and minitorch must give the same, as `comparisons.compare` checks it live, its
gradients also passing central differences. The declared forms are checked against NumPy.
"""

import math

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch

NAN, INF = float("nan"), float("inf")

UNARY = [
    "sin", "cos", "tan", "atan", "sinh", "cosh", "asinh", "erf", "erfc", "exp2", "deg2rad",
    "rad2deg", "floor", "ceil", "round", "trunc", "frac", "sign", "square", "expm1",
]  # fmt: skip
POSITIVE = ["log2", "log10", "log1p", "rsqrt"]
UNIT = ["asin", "acos", "atanh"]
ABOVE_ONE = ["acosh"]


def inverse_of_erf(y: float) -> float:
    """$x$ with $\\operatorname{erf} x = y$ by bisection: slow, simple, and independent of
    the library's closed-form guess and Newton steps."""
    if y == 0.0:
        return y
    low, high = -7.0, 7.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if math.erf(middle) < y else (low, middle)
    return (low + high) / 2


# Independent references for the declared forms (no torch needed):
# name -> (the reference, aliases, where to compare: values with the domain's edges)
EVERYWHERE = [-30.0, -2.0, -0.5, 0.0, 0.25, 1.0, 3.0, 1e5]
NUMPY_REFERENCES = {
    "asinh": (np.arcsinh, ("arcsinh",), EVERYWHERE),
    "acosh": (np.arccosh, ("arccosh",), [1.25, 1.5, 3.0, 1e5]),
    "atanh": (np.arctanh, ("arctanh",), [-0.999, -0.5, 0.0, 0.25, 0.9]),
    "exp2": (np.exp2, (), [-30.0, -2.0, -0.5, 0.0, 0.25, 1.0, 3.0, 100.0]),
    "erfc": (np.vectorize(math.erfc), (), [-3.0, -0.5, 0.0, 0.25, 1.0, 3.0, 20.0]),
    "erfinv": (np.vectorize(inverse_of_erf), (), [-0.999, -0.9, -0.5, 0.0, 0.25, 0.6, 0.99]),
    "deg2rad": (np.deg2rad, (), [-720.0, -30.0, -0.5, 0.0, 0.25, 1.0, 90.0, 180.0]),
    "rad2deg": (np.rad2deg, (), [-30.0, -2.0, -0.5, 0.0, 0.25, 1.0, math.pi, 100.0]),
}


ALL_UNARY = UNARY + POSITIVE + UNIT + ABOVE_ONE
ROUNDING = ("floor", "ceil", "round", "trunc", "frac")
SPECIAL = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 800.0])


def domain(name: str) -> tuple[float, float]:
    """Where unary `name` is defined and smooth: the range its inputs are drawn from."""
    if name in POSITIVE:
        return 0.1, 3.0
    if name in UNIT:
        return -0.9, 0.9
    return (1.1, 4.0) if name in ABOVE_ONE else (-3, 3)


def function(name: str):
    return lambda lib, *xs: getattr(lib, name)(*xs)


def method(name: str):
    return lambda lib, x: getattr(x, name)()


BINARY = {
    "atan2": lambda lib, a, b: lib.atan2(a, b),
    "hypot": lambda lib, a, b: lib.hypot(a, b),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "fmod_number": lambda lib, a, b: lib.fmod(a, -1.5),
    "remainder": lambda lib, a, b: lib.remainder(a, b),
    "lerp": lambda lib, a, b: lib.lerp(a, b, 0.3),
    "lerp_tensor": lambda lib, a, b: lib.lerp(a, b, b.abs() / 3),
}
CLOSE_A = np.array([1.0, 2.0, NAN, INF, 1e-9])
CLOSE_B = np.array([1.0 + 1e-6, 2.1, NAN, INF, 0.0])
INTS = [np.array([7, -7, 5, -5]), np.array([2, 2, -3, -3])]
NO_GRAD = {"grad": False}

# key -> (function of lib and the inputs, the inputs as NumPy arrays, `compare`'s options)
CASES = {}
for name in ALL_UNARY:
    low, high = domain(name)
    for permuted in (False, True):
        inputs = [floats((2, 3), 1, low, high)]
        CASES[f"{name} permuted={permuted}"] = (function(name), inputs, {"permuted": permuted})
    CASES[f"Tensor.{name}"] = (method(name), [floats((3,), 2, low, high)], {})
    if name != "frac":
        CASES[f"{name} of integers"] = (function(name), [np.array([1, -2, 3, 0])], {})
    if name not in ROUNDING:
        CASES[f"{name} of booleans"] = (function(name), [np.array([True, False])], {})
    if name != "square":
        CASES[f"{name} of special values"] = (function(name), [SPECIAL], NO_GRAD)
for name, fn in BINARY.items():
    for permuted in (False, True):
        inputs = [floats((3, 2), 3, -3, 3), floats((3, 2), 4, 0.5, 2.5)]
        CASES[f"{name} permuted={permuted}"] = (fn, inputs, {"permuted": permuted})
for name in ("atan2", "hypot", "fmod"):
    inputs = [floats((2, 1, 3), 5), floats((4, 1), 6, 0.5, 2.0)]
    CASES[f"{name} broadcast"] = (BINARY[name], inputs, {})
CASES.update({
    "isnan isinf isfinite": (
        lambda lib, x: (lib.isnan(x), lib.isinf(x), lib.isfinite(x)), [SPECIAL], {}),
    "nan_to_num": (lambda lib, x: lib.nan_to_num(x), [SPECIAL], NO_GRAD),
    "nan_to_num replaced": (
        lambda lib, x: lib.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0), [SPECIAL], NO_GRAD),
    "nan_to_num gradient": (
        lambda lib, x: lib.nan_to_num(x), [np.array([1.0, INF, NAN, -INF])], {"central": False}),
    "round decimals=1": (
        lambda lib, x: lib.round(x, decimals=1), [np.array([1.25, 1.35, -2.45, 0.05])], NO_GRAD),
    "round decimals=-1": (
        lambda lib, x: x.round(decimals=-1), [np.array([1234.5, 15.0, -25.0])], NO_GRAD),
    "round decimals=2": (
        lambda lib, x: lib.round(x, decimals=2), [np.array([0.1234, -5.4321])], {}),
    "fmod of integers": (BINARY["fmod"], INTS, {}),
    "atan2 of integers": (BINARY["atan2"], INTS, {}),
    "fmod of integers by a float": (lambda lib, a, b: lib.fmod(a, 2.5), INTS, {}),
    "fmod by zero": (lambda lib, a, b: lib.fmod(a, 0.0), [floats(3), floats(3)], NO_GRAD),
    "isclose": (lambda lib, x, y: lib.isclose(x, y), [CLOSE_A, CLOSE_B], NO_GRAD),
    "isclose equal_nan atol": (
        lambda lib, x, y: lib.isclose(x, y, equal_nan=True, atol=0.2), [CLOSE_A, CLOSE_B],
        NO_GRAD),
    "allclose": (
        lambda lib, x, y: (lib.allclose(x, y), lib.allclose(x, x, equal_nan=True)),
        [CLOSE_A, CLOSE_B], {}),
    "equal": (
        lambda lib, x, y: (lib.equal(x, x), lib.equal(x, y), lib.equal(x, x[:2])),
        [CLOSE_A, CLOSE_B], {}),
    "isclose of integers": (
        lambda lib, x, y: lib.isclose(x, y, atol=1), [np.array([1, 5]), np.array([2, 2])], {}),
})  # fmt: skip
# errors both libraries raise: case -> function of lib
ERRORS = {
    "frac of integers": lambda lib: lib.frac(lib.tensor([1, -2])),
    **{
        f"{name} of booleans": (
            lambda lib, name=name: getattr(lib, name)(lib.tensor([True, False]))
        )
        for name in ROUNDING
    },
    "round decimals of integers": lambda lib: lib.round(lib.tensor([1, 2]), decimals=1),
    "fmod of integers by zero": lambda lib: lib.fmod(lib.tensor([1, 2]), 0),
    "hypot of integers": lambda lib: lib.hypot(lib.tensor([1, 2]), lib.tensor([1, 2])),
    "lerp of integers": lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([1, 2]), 0.5),
    "isclose of integers and floats": lambda lib: lib.isclose(lib.tensor([1]), lib.tensor([1.0])),
}
RECORDED = ComparedCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers
check, check_error = RECORDED.check, RECORDED.check_error


@pytest.mark.parametrize("name", ALL_UNARY)
@pytest.mark.parametrize("permuted", [False, True])
def test_unary_like_torch(name, permuted):
    check(f"{name} permuted={permuted}")
    check(f"Tensor.{name}")


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


def test_erfinv_edges_and_live_torch_values():
    edges = minitorch.tensor([1.0, -1.0, 1.5, -2.0, NAN, -0.0, 1e-300], dtype=minitorch.float64)
    result = minitorch.erfinv(edges).tolist()
    assert result[:2] == [INF, -INF] and all(math.isnan(v) for v in result[2:5])
    assert math.copysign(1.0, result[5]) == -1.0 and result[6] == pytest.approx(8.86226925e-301)
    inputs = np.array([0.5, 0.999], dtype=np.float32)  # 0.999 is 0.99900001... in float32
    float32 = minitorch.erfinv(minitorch.tensor(inputs)).numpy()
    np.testing.assert_allclose(float32, [inverse_of_erf(float(y)) for y in inputs], rtol=1e-6)


def test_erfinv_matches_live_torch(torch):
    values = np.linspace(-0.9999, 0.9999, 41)
    ours = minitorch.erfinv(minitorch.tensor(values, dtype=minitorch.float64)).numpy()
    np.testing.assert_allclose(ours, torch.erfinv(torch.tensor(values)).numpy(), rtol=1e-14)


@pytest.mark.parametrize("name", ALL_UNARY)
def test_unary_dtypes_like_torch(name):
    """Integers become floats, except where rounding and sign keep them; bools as torch."""
    if name == "frac":
        check_error("frac of integers")
    else:
        check(f"{name} of integers")
    if name in ROUNDING:
        check_error(f"{name} of booleans")
    else:
        check(f"{name} of booleans")


@pytest.mark.parametrize("name", [name for name in ALL_UNARY if name != "square"])
def test_special_values_like_torch(name):
    """Infinities, NaN, signed zeros, halves (round to even) and the domain edges."""
    check(f"{name} of special values")


def test_special_values_of_the_tests_and_nan_to_num_like_torch():
    for key in ("isnan isinf isfinite", "nan_to_num", "nan_to_num replaced", "nan_to_num gradient"):
        check(key)
    assert str(minitorch.trunc(minitorch.tensor([-0.5], device="cpu"))) == "tensor([-0.])"


def test_round_decimals_like_torch():
    for key in ("round decimals=1", "round decimals=-1", "round decimals=2"):
        check(key)
    check_error("round decimals of integers")


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("permuted", [False, True])
def test_binary_like_torch(name, permuted):
    check(f"{name} permuted={permuted}")


@pytest.mark.parametrize("name", ["atan2", "hypot", "fmod"])
def test_binary_broadcast_like_torch(name):
    check(f"{name} broadcast")


def test_binary_dtypes_and_errors_like_torch():
    for key in ("fmod of integers", "atan2 of integers", "fmod of integers by a float",
                "fmod by zero"):  # fmt: skip
        check(key)
    for case in ("fmod of integers by zero", "hypot of integers", "lerp of integers"):
        check_error(case)


def test_comparisons_of_closeness_like_torch():
    for key in ("isclose", "isclose equal_nan atol", "allclose", "equal", "isclose of integers"):
        check(key)
    check_error("isclose of integers and floats")


# NumPy's rounding of a float32: the same IEEE operations as torch's (round: half to even)
ROUNDING_REFERENCES = {
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.round,
    "trunc": np.trunc,
    "frac": lambda x: x - np.trunc(x),
    "sign": np.sign,
}


@settings(max_examples=8, deadline=None)
@given(st.lists(st.floats(-50, 50, width=32), min_size=1, max_size=6))
def test_rounding_matches_numpy_on_any_float(values):
    x = np.array(values, dtype=np.float32)
    for name, reference in ROUNDING_REFERENCES.items():
        result = getattr(minitorch, name)(minitorch.tensor(x))
        assert result.dtype is minitorch.float32, name
        np.testing.assert_array_equal(result.numpy(), reference(x), err_msg=name)


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
