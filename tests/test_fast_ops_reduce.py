"""The Numba backends' kernels against NumPy, the reference backend, and each other: reduce and
arg_reduce.

Both backends, on both code paths, as tests/fast_ops_checks.py describes.
"""

import math

import numpy as np
import pytest
from fast_ops_checks import (
    BACKENDS_3_1,
    FEW,
    NUMBA_BACKENDS,
    PATHS,
    check,
    code_path,
    fast,
    float32,
    float64,
    int64,
    output_layout,
    read,
    run_both,
)
from hypothesis import given
from hypothesis import strategies as st
from strategies import DTYPES, shapes, tensors

from minitorch import operators
from minitorch.backends.fast import reductions
from minitorch.backends.tensor_data import TensorData

REDUCE_CASES = [("serial", d) for d in DTYPES] + [("parallel", float32), ("parallel", int64)]


def greater_or_nan(x, best) -> bool:
    """PyTorch's max: `x` wins if larger, or if it is the first NaN."""
    return x > best or (x != x and best == best)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path, dtype", REDUCE_CASES)
@given(data=st.data())
@FEW
def test_reduce_sums_each_dim(backend_name, path, dtype, data):
    """Sums of bools and integers are int64 (the tensor layer's choice, as in PyTorch)."""
    shape = data.draw(shapes(min_dims=1))
    a, values = data.draw(tensors(dtype, shape))
    dim = data.draw(st.integers(0, len(shape) - 1))
    out_dtype = dtype if dtype.is_floating_point else int64
    expected = values.sum(axis=dim, keepdims=True, dtype=out_dtype.numpy_dtype)
    with code_path(path):
        (got,), (reference,) = run_both(
            backend_name,
            "reduce",
            operators.add,
            lambda: [output_layout(expected.shape, out_dtype)],
            a._layout,
            dim,
            0,
        )
    check(got, expected)
    check(reference, expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path", PATHS)
@given(data=st.data())
@FEW
def test_reduce_max_from_minus_infinity(backend_name, path, data):
    shape = data.draw(shapes(min_dims=1))
    a, values = data.draw(tensors(float64, shape))
    dim = data.draw(st.integers(0, len(shape) - 1))
    expected = values.max(axis=dim, keepdims=True)
    with code_path(path):
        out = output_layout(expected.shape, float64)
        NUMBA_BACKENDS[backend_name].reduce(operators.maximum, out, a._layout, dim, -math.inf)
    check(read(out), expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("shape, dim", [((3 * reductions.MIN_SEGMENT + 17,), 0), ((2, 600, 3), 1)])
def test_reduce_counts_start_once(backend_name, path, shape, dim):
    """A fold split into segments or column blocks still starts from `start` exactly once."""
    values = np.arange(math.prod(shape), dtype=np.int64).reshape(shape) % 7
    expected = values.sum(axis=dim, keepdims=True) + 1000
    with code_path(path):
        out = output_layout(expected.shape, int64)
        NUMBA_BACKENDS[backend_name].reduce(
            operators.add, out, TensorData(values.reshape(-1), shape), dim, 1000
        )
    check(read(out), expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path", PATHS)
def test_reduce_sums_float32_more_accurately_than_pairwise(backend_name, path):
    """float32 sums accumulate in float64: at most half a float32 step from the exact sum.

    NumPy's pairwise float32 sum is the yardstick; the exact sum is `math.fsum`.
    """
    rng = np.random.default_rng(5)
    values = (rng.random(1 << 20) * 1000).astype(np.float32)
    exact = math.fsum(values.astype(np.float64))
    with code_path(path):
        out = output_layout((1,), float32)
        NUMBA_BACKENDS[backend_name].reduce(
            operators.add, out, TensorData(values, values.shape), 0, 0
        )
    ours = float(read(out)[0])
    numpy_error = abs(float(values.sum()) - exact)
    assert abs(ours - exact) <= max(numpy_error, float(np.spacing(np.float32(exact))) / 2), (
        f"sum {ours} is {abs(ours - exact)} from the exact {exact}; NumPy is {numpy_error} away"
    )


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
def test_reduce_of_empty_dim_is_start(backend_name):
    a = TensorData(np.zeros(0), (2, 0))
    out = output_layout((2, 1), float64)
    NUMBA_BACKENDS[backend_name].reduce(operators.mul, out, a, 1, 1.0)
    np.testing.assert_array_equal(read(out), [[1.0], [1.0]])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [float32, int64])
@given(data=st.data())
@FEW
def test_arg_reduce_finds_the_first_maximum(path, dtype, data):
    shape = data.draw(shapes(min_dims=1))
    a, values = data.draw(tensors(dtype, shape))  # small value range: many ties
    dim = data.draw(st.integers(0, len(shape) - 1))
    expected_values = values.max(axis=dim, keepdims=True)
    expected_indices = values.argmax(axis=dim, keepdims=True)  # NumPy also keeps the first
    with code_path(path):
        [got_values, got_indices], reference = run_both(
            "fast",
            "arg_reduce",
            greater_or_nan,
            lambda: [
                output_layout(expected_values.shape, dtype),
                output_layout(expected_values.shape, int64),
            ],
            a._layout,
            dim,
        )
    check(got_values, expected_values)
    check(got_indices, expected_indices)
    check(reference[1], expected_indices)


def test_arg_reduce_picks_the_first_nan():
    a = TensorData(np.array([1.0, np.nan, 5.0, np.nan], np.float32), (4,))
    values, indices = output_layout((1,), float32), output_layout((1,), int64)
    fast.arg_reduce(greater_or_nan, values, indices, a, 0)
    assert math.isnan(read(values)[0]) and read(indices)[0] == 1, (read(values), read(indices))
