"""exp, log, tanh and sigmoid as vectorisable polynomials (`backends/fast/transcendentals.py`).

Each is checked against the exact value (computed in long double by the C library's `expl`,
`logl`, `tanhl`, then rounded) over the whole range of float32 and float64: random bit
patterns (every exponent, subnormals included), dense samples where the functions bend, and
the special values. The fast backend runs them in place of `operators`' functions, in a loop
with no call of the C library left.
"""

import math
import re

import numpy as np
import pytest
from numba import njit

import minitorch
from minitorch import operators
from minitorch.backends.fast import transcendentals
from minitorch.backends.fast.backend import FastBackend
from minitorch.backends.tensor_data import TensorData

NAMES = ("exp", "log", "tanh", "sigmoid")
DTYPES = (np.float32, np.float64)
INT = {np.float32: np.int32, np.float64: np.int64}


@pytest.fixture(scope="module")
def compiled():
    """name, dtype -> a compiled elementwise loop over that function."""
    loops = {}

    def loop(name, dtype):
        if (name, dtype) not in loops:
            fn = njit(getattr(transcendentals, f"{name}_polynomial"))

            @njit(error_model="numpy")
            def run(out, a):
                for i in range(a.size):
                    out[i] = fn(a[i])

            loops[name, dtype] = run
        return loops[name, dtype]

    return loop


def inputs(dtype) -> np.ndarray:
    rng = np.random.default_rng(7)
    info = np.iinfo(INT[dtype])
    patterns = rng.integers(info.min, info.max, size=60_000, dtype=INT[dtype]).view(dtype)
    tiny = np.finfo(dtype).tiny
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, tiny, tiny / 3, -tiny / 3, 1.0, -1.0]
    specials += [709.78, 709.79, -745.1, -745.2, 88.72, 88.73, -103.9, -104.0, 22.0, 0.5493]
    return np.concatenate(
        [
            patterns,
            np.array(specials, dtype),
            rng.uniform(-40, 40, 30_000).astype(dtype),
            rng.uniform(-1, 1, 30_000).astype(dtype),
            (10.0 ** rng.uniform(-30, 3, 20_000)).astype(dtype),
        ]
    )


def exact(name, x: np.ndarray) -> np.ndarray:
    """The answer in long double (the C library's `expl`, `logl`, `tanhl`: 64 bits of
    mantissa on x86-64), rounded once to x's dtype."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        wide = x.astype(np.longdouble)
        if name == "sigmoid":
            value = 1 / (1 + np.exp(-wide))
        else:
            value = getattr(np, name)(wide)
        return value.astype(x.dtype)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """How many representable numbers lie between `got` and `want` (0 for two NaNs)."""
    int_type = INT[got.dtype.type]
    a, b = (v.view(int_type).astype(np.int64) for v in (got, want))
    lowest = np.iinfo(int_type).min
    a, b = (np.where(v < 0, lowest - v, v) for v in (a, b))
    distance = np.abs(a - b)
    distance[np.isnan(got) & np.isnan(want)] = 0
    return distance


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_within_two_ulp_of_the_exact_value_over_the_whole_range(compiled, name, dtype):
    x = inputs(dtype)
    out = np.empty_like(x)
    compiled(name, dtype)(out, x)
    want = exact(name, x)
    distance = ulp_distance(out, want)
    worst = int(np.argmax(distance))
    assert distance[worst] <= 2, (x[worst], out[worst], want[worst])


SPECIAL = {
    "exp": [(0.0, 1.0), (-np.inf, 0.0), (np.inf, np.inf), (800.0, np.inf), (-800.0, 0.0)],
    "log": [(1.0, 0.0), (0.0, -np.inf), (-0.0, -np.inf), (np.inf, np.inf), (-1.0, np.nan)],
    "tanh": [(0.0, 0.0), (np.inf, 1.0), (-np.inf, -1.0), (30.0, 1.0), (-400.0, -1.0)],
    "sigmoid": [(0.0, 0.5), (np.inf, 1.0), (-np.inf, 0.0), (800.0, 1.0)],
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_special_values_and_nan(compiled, name, dtype):
    cases = SPECIAL[name] + [(np.nan, np.nan)]
    x = np.array([c[0] for c in cases], dtype)
    out = np.empty_like(x)
    compiled(name, dtype)(out, x)
    np.testing.assert_array_equal(out, np.array([c[1] for c in cases], dtype))
    if name == "tanh":  # the sign of zero
        signs = np.empty(2, dtype)
        compiled(name, dtype)(signs, np.array([0.0, -0.0], dtype))
        assert list(np.signbit(signs)) == [False, True]


# exp into the subnormals (the second just above half the smallest one), log of subnormals
SUBNORMAL = {
    np.float64: ([-740.0, -745.0], [5e-324, 1e-310]),
    np.float32: ([-100.0, -103.9], [1e-45, 1e-40]),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_subnormal_results_and_inputs(compiled, dtype):
    exp_in, log_in = (np.array(v, dtype) for v in SUBNORMAL[dtype])
    out = np.empty(4, dtype)
    compiled("exp", dtype)(out[:2], exp_in)
    compiled("log", dtype)(out[2:], log_in)
    want = [math.exp(v) for v in exp_in.tolist()] + [math.log(v) for v in log_in.tolist()]
    assert ulp_distance(out, np.array(want).astype(dtype)).max() <= 1
    assert out[1] == np.finfo(dtype).smallest_subnormal  # rounded once


def math_exp_loop(out, a):
    for i in range(a.size):
        out[i] = math.exp(a[i])


def llvm_ir(loop, dtype) -> str:
    x = np.ones(4, dtype)
    loop(np.empty_like(x), x)
    return loop.inspect_llvm(loop.signatures[0])


def test_the_loop_calls_no_c_library_function(compiled):
    """What makes the loop vectorisable: nothing in it calls exp, log or tanh (a loop over
    `math.exp` does, which shows the check can see such a call)."""
    called = re.compile(r"call [^\n]*@(llvm\.)?(exp|log|tanh)(f|\.f32|\.f64)?\(")
    assert called.search(llvm_ir(njit(math_exp_loop), np.float64))
    for dtype in DTYPES:
        for name in NAMES:
            assert not called.search(llvm_ir(compiled(name, dtype), dtype)), (name, dtype)


def test_float32_stays_float32(compiled):
    """What keeps 16 lanes to an AVX-512 register: no float64 anywhere in a float32 loop
    (a float32 input widened to float64, or one float64 literal, would put one there)."""
    for name in NAMES:
        assert not re.search(r"\bdouble\b", llvm_ir(compiled(name, np.float32), np.float32))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_the_fast_backend_maps_with_the_polynomials_dense_or_strided(compiled, dtype):
    backend = FastBackend()
    x = inputs(dtype)[:5000]
    for name in NAMES:
        expected = np.empty_like(x)
        compiled(name, dtype)(expected, x)
        for layout in (TensorData(x, x.shape), TensorData(np.repeat(x, 2), x.shape, (2,))):
            out = TensorData(np.empty_like(x), x.shape)
            backend.map(getattr(operators, name), out, layout)
            np.testing.assert_array_equal(out.storage, expected)
    # an integer input keeps `operators.exp` (its kernel converts as it goes)
    form = transcendentals.polynomial_form(operators.exp, np.dtype(dtype), np.dtype(np.int64))
    assert form is operators.exp


def test_tensors_use_them_and_their_gradients_follow():
    x = minitorch.tensor([-3.0, -0.5, 0.0, 0.7, 4.0], dtype=minitorch.float64, requires_grad=True)
    y = x.exp() + x.tanh() + x.sigmoid() + (x * x + 1).log()
    y.sum().backward()
    v = x.detach().numpy()
    sigmoid = 1 / (1 + np.exp(-v))
    expected = np.exp(v) + np.tanh(v) + sigmoid + np.log(v * v + 1)
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-15)
    grad = np.exp(v) + (1 - np.tanh(v) ** 2) + sigmoid * (1 - sigmoid) + 2 * v / (v * v + 1)
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-14)
