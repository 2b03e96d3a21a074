"""The Numba backends' kernels against NumPy, the reference backend, and each other.

Two backends: `student` (the plain kernels of fast_ops.py, the exercises: their
tests carry the task markers) and `fast` (the tuned kernels of the package fast/).
Every kernel runs on both of its code paths: the serial one (small tensors)
and the parallel one, forced on small tensors by lowering the thresholds to
0. A forced parallel run splits a tensor of a dozen elements into more chunks
than it has elements or rows, so every chunk boundary case shows.

Few distinct dtype signatures are used, because each one is a compilation
(cached on disk after the first run).
"""

import contextlib
import math
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import DTYPES, broadcastable_shapes, shapes, tensors

import minitorch
from minitorch import operators
from minitorch.backends import fast_ops
from minitorch.backends.fast import FastBackend, elementwise, matmul, reductions, vector_math
from minitorch.backends.tensor_data import TensorData
from minitorch.backends.tensor_ops import SimpleBackend

NUMBA_BACKENDS = {"student": fast_ops.StudentBackend(), "fast": FastBackend()}
fast = NUMBA_BACKENDS["fast"]
simple = SimpleBackend()
FEW = settings(max_examples=30, deadline=None)
PATHS = ["serial", "parallel"]
float32, float64, int64, bool_ = (
    minitorch.float32,
    minitorch.float64,
    minitorch.int64,
    minitorch.bool,
)


def backends(task):
    """The Numba backends as a test parameter: `student` graded by the marker `task`, and `fast`."""
    return [pytest.param("student", marks=task, id="student"), pytest.param("fast", id="fast")]


BACKENDS_3_1 = backends(pytest.mark.task3_1)
BACKENDS_3_2 = backends(pytest.mark.task3_2)


@contextlib.contextmanager
def code_path(path: str, *chosen):
    """Run the kernels of the `chosen` backends (all by default) serially, or always in parallel."""
    threshold = 0 if path == "parallel" else 1 << 62
    chosen = chosen or tuple(NUMBA_BACKENDS.values())
    try:
        for backend in chosen:
            backend.parallel_threshold = backend.matmul_parallel_threshold = threshold
        yield
    finally:
        for backend in chosen:  # back to the class's thresholds
            del backend.parallel_threshold, backend.matmul_parallel_threshold


def output_layout(shape, dtype, strided: bool = False) -> TensorData:
    """A zeroed output; `strided` makes it a column-major view with gaps, offset by one."""
    numpy_dtype = dtype.numpy_dtype
    size = math.prod(shape)
    if not strided:
        return TensorData(np.zeros(size, numpy_dtype), shape)
    strides, step = [], 2
    for n in shape:
        strides.append(step)
        step *= n
    return TensorData(np.zeros(2 * size + 1, numpy_dtype), shape, strides, offset=1)


def read(layout: TensorData) -> np.ndarray:
    return np.array(layout.numpy_view())


def check(actual: np.ndarray, expected: np.ndarray, rtol: float = 1e-6) -> None:
    """Same shape and dtype; equal values (close for floats; NaN matches NaN)."""
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    if actual.dtype.kind == "f":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)


def run_both(backend_name: str, kernel: str, fn, outs_of, *args):
    """Run `kernel` (with scalar function `fn`, or None) on a Numba backend and the reference."""
    results = []
    for backend in (NUMBA_BACKENDS[backend_name], simple):
        outs = outs_of()
        getattr(backend, kernel)(*([] if fn is None else [fn]), *outs, *args)
        results.append([read(out) for out in outs])
    return results


# ---------------------------------------------------------------------------
# map
# ---------------------------------------------------------------------------

# (source, destination) dtypes of map(identity): every same-dtype copy and the
# conversions type promotion and `.to()` use most.
CONVERSIONS = [(d, d) for d in DTYPES] + [
    (int64, float32),
    (bool_, float64),
    (float32, float64),
    (float64, int64),
    (float32, bool_),
]
PARALLEL_CONVERSIONS = [(float32, float32), (int64, float64)]


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize(
    "path, source, destination",
    [("serial", s, d) for s, d in CONVERSIONS]
    + [("parallel", s, d) for s, d in PARALLEL_CONVERSIONS],
)
@given(data=st.data())
@FEW
def test_map_copies_and_converts_any_layout(backend_name, path, source, destination, data):
    a, values = data.draw(tensors(source))
    strided_out = data.draw(st.booleans())
    expected = values.astype(destination.numpy_dtype)
    with code_path(path):
        (got,), (reference,) = run_both(
            backend_name,
            "map",
            operators.identity,
            lambda: [output_layout(values.shape, destination, strided_out)],
            a._layout,
        )
    check(got, expected)
    check(reference, expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [float32, float64])
@given(data=st.data())
@FEW
def test_map_applies_the_function(backend_name, path, dtype, data):
    a, values = data.draw(tensors(dtype))
    with code_path(path):
        (got,), (reference,) = run_both(
            backend_name,
            "map",
            operators.exp,
            lambda: [output_layout(values.shape, dtype)],
            a._layout,
        )
    check(got, np.exp(values))
    check(got, reference)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
def test_map_writes_a_broadcast_row_into_strided_columns(backend_name):
    """`t[:, 1::2] = row` is map(identity) into a strided view, the row broadcast."""
    storage = np.zeros(12)
    out = TensorData(storage, (3, 2), (4, 2), 1)  # columns 1 and 3 of a (3, 4) matrix
    NUMBA_BACKENDS[backend_name].map(
        operators.identity, out, TensorData(np.array([1.0, 2.0]), (2,))
    )
    expected = np.zeros((3, 4))
    expected[:, 1::2] = [1.0, 2.0]
    np.testing.assert_array_equal(storage.reshape(3, 4), expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
def test_division_by_zero_gives_ieee_values_not_an_exception(backend_name):
    """Kernels use NumPy's error model: 1/0 is inf, as in PyTorch (Numba's default raises)."""
    a = TensorData(np.array([0.0, -0.0, 2.0]), (3,))
    out = output_layout((3,), float64)
    NUMBA_BACKENDS[backend_name].map(operators.inv, out, a)
    np.testing.assert_array_equal(read(out), [np.inf, -np.inf, 0.5])


# ---------------------------------------------------------------------------
# zip and where
# ---------------------------------------------------------------------------

ZIP_CASES = [("serial", d) for d in DTYPES] + [("parallel", float32), ("parallel", int64)]


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path, dtype", ZIP_CASES)
@given(pair=broadcastable_shapes(), data=st.data())
@FEW
def test_zip_multiplies_with_broadcasting(backend_name, path, dtype, pair, data):
    a, a_values = data.draw(tensors(dtype, pair[0]))
    b, b_values = data.draw(tensors(dtype, pair[1]))
    expected = a_values * b_values  # for bools: logical and
    with code_path(path):
        (got,), (reference,) = run_both(
            backend_name,
            "zip",
            operators.mul,
            lambda: [output_layout(expected.shape, dtype)],
            a._layout,
            b._layout,
        )
    check(got, expected)
    check(reference, expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("path", PATHS)
@given(pair=broadcastable_shapes(), data=st.data())
@FEW
def test_zip_compares_into_bool(backend_name, path, pair, data):
    a, a_values = data.draw(tensors(float32, pair[0]))
    b, b_values = data.draw(tensors(float32, pair[1]))
    expected = a_values < b_values
    with code_path(path):
        out = output_layout(expected.shape, bool_)
        NUMBA_BACKENDS[backend_name].zip(operators.lt, out, a._layout, b._layout)
    check(read(out), expected)


@pytest.mark.parametrize("path", PATHS)
@given(data=st.data())
@FEW
def test_where_picks_with_broadcasting(path, data):
    common = data.draw(shapes())
    drawn = [data.draw(tensors(d, tuple(1 if data.draw(st.booleans()) else n for n in common)))
             for d in (bool_, float64, float64)]  # fmt: skip
    (condition, c_values), (a, a_values), (b, b_values) = drawn
    expected = np.where(c_values, a_values, b_values)
    with code_path(path):
        (got,), (reference,) = run_both(
            "fast",
            "where",
            None,
            lambda: [output_layout(expected.shape, float64, strided=True)],
            condition._layout,
            a._layout,
            b._layout,
        )
    check(got, expected)
    check(reference, expected)


# ---------------------------------------------------------------------------
# reduce and arg_reduce
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# matmul
# ---------------------------------------------------------------------------

MATMUL_CASES = [("serial", d) for d in DTYPES] + [("parallel", float32)]


@st.composite
def matmul_shapes(draw):
    """Shapes of `a`, `b` (same number of dims, batch dims broadcast) and of the product.

    The summed dimension is short (the kernel's shallow path) or just above
    `SHALLOW_DEPTH` (its 4 x 4 tiles), with smaller batches then.
    """
    deep = draw(st.booleans())
    batch_sizes = st.integers(1, 2 if deep else 3)
    batch = draw(st.lists(batch_sizes, max_size=1 if deep else 2).map(tuple))
    batch_a, batch_b = (tuple(1 if draw(st.booleans()) else n for n in batch) for _ in range(2))
    rows, columns = (draw(st.integers(1, 5)) for _ in range(2))
    shallow_depth = matmul.SHALLOW_DEPTH
    inner = draw(st.integers(shallow_depth, shallow_depth + 3) if deep else st.integers(1, 5))
    batch = tuple(max(x, y) for x, y in zip(batch_a, batch_b, strict=True))
    return batch_a + (rows, inner), batch_b + (inner, columns), batch + (rows, columns)


@pytest.mark.parametrize("backend_name", BACKENDS_3_2)
@pytest.mark.parametrize("path, dtype", MATMUL_CASES)
@given(shapes_=matmul_shapes(), data=st.data())
@FEW
def test_matmul_batched_broadcast_and_strided(backend_name, path, dtype, shapes_, data):
    a_shape, b_shape, out_shape = shapes_
    a, a_values = data.draw(tensors(dtype, a_shape))
    b, b_values = data.draw(tensors(dtype, b_shape))
    expected = np.matmul(a_values, b_values)  # for bools: or of ands
    strided_out = data.draw(st.booleans())
    with code_path(path):
        out = output_layout(out_shape, dtype, strided_out)
        NUMBA_BACKENDS[backend_name].matmul(out, a._layout, b._layout)
    check(read(out), expected)


@pytest.mark.parametrize("backend_name", BACKENDS_3_2)
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize(
    "path, dtype", [("parallel", float32), ("serial", float32), ("serial", int64)]
)
def test_matmul_across_tiles_and_depth_blocks(backend_name, transposed, path, dtype):
    """Sizes that are not multiples of the tiles, a depth above MATMUL_DEPTH, a shared `b`.

    They cross the plain kernel's blocks too (BLOCK_ROWS = 64, BLOCK_DEPTH = 256). The
    tuned backend's serial path is its other body (`_matmul_rows`), which runs every product
    below `matmul_parallel_threshold`.
    """
    rng = np.random.default_rng(1)
    rows, inner, columns = matmul.MATMUL_ROWS * 2 + 3, matmul.MATMUL_DEPTH + 77, 67
    if dtype == int64:
        a_values = rng.integers(-9, 10, (2, rows, inner))
        b_values = rng.integers(-9, 10, (1, inner, columns))
    else:
        a_values = rng.standard_normal((2, rows, inner)).astype(np.float32)
        b_values = rng.standard_normal((1, inner, columns)).astype(np.float32)
    if transposed:  # b stored as (columns, inner), seen through its transpose
        b_storage = np.ascontiguousarray(b_values[0].T)
        b = TensorData(b_storage.reshape(-1), (1, inner, columns), (0, 1, inner))
    else:
        b = TensorData(b_values.reshape(-1), b_values.shape)
    out = output_layout((2, rows, columns), dtype, strided=transposed)
    with code_path(path):
        NUMBA_BACKENDS[backend_name].matmul(
            out, TensorData(a_values.reshape(-1), a_values.shape), b
        )
    if dtype == int64:  # exact
        np.testing.assert_array_equal(read(out), np.matmul(a_values, b_values))
    else:
        expected = np.matmul(a_values.astype(np.float64), b_values.astype(np.float64))
        np.testing.assert_allclose(read(out), expected, rtol=1e-4, atol=1e-3)


def test_small_matmuls_compile_only_the_row_kernel():
    """A product below `matmul_parallel_threshold` runs `_matmul_rows`, serially; the packed
    kernel (slow to compile) is left uncompiled, and gives the same numbers."""
    backend = FastBackend()
    rng = np.random.default_rng(3)
    a_values = rng.standard_normal((3, 5, 7)).astype(np.float32)
    b_values = rng.standard_normal((7, 4)).astype(np.float32)
    a = TensorData(a_values.reshape(-1), a_values.shape)
    b = TensorData(b_values.reshape(-1), (1, 7, 4))
    out = output_layout((3, 5, 4), float32, strided=True)
    backend.matmul(out, a, b)
    serial, parallel = backend._matmul_kernels
    assert serial.py_func is matmul._matmul_rows, serial.py_func
    assert serial.signatures and not parallel.signatures, (serial.signatures, parallel.signatures)
    expected = a_values.astype(np.float64) @ b_values
    np.testing.assert_allclose(read(out), expected, rtol=1e-5, atol=1e-6)
    with code_path("parallel", backend):
        packed = output_layout((3, 5, 4), float32)
        backend.matmul(packed, a, b)
    check(read(packed), read(out), rtol=1e-5)


# ---------------------------------------------------------------------------
# The tuned kernels (fast) agree with the plain ones (student)
# ---------------------------------------------------------------------------


def on_each_backend(path: str, run) -> dict:
    """`run(backend)`'s result for the student and the fast backend, on code path `path`."""
    results = {}
    for name, backend in NUMBA_BACKENDS.items():
        with code_path(path, backend):
            results[name] = run(backend)
    return results


@pytest.mark.task3_1
@pytest.mark.parametrize("path", PATHS)
@given(pair=broadcastable_shapes(), data=st.data())
@FEW
def test_tuned_map_and_zip_agree_with_the_plain_kernels(path, pair, data):
    """Broadcast, permuted, sliced and expanded operands, into a strided or contiguous output."""
    a, _ = data.draw(tensors(float32, pair[0]))
    b, _ = data.draw(tensors(float32, pair[1]))
    shape = np.broadcast_shapes(pair[0], pair[1])
    strided = data.draw(st.booleans())

    def run(backend):
        zipped, mapped = output_layout(shape, float32, strided), output_layout(shape, float32)
        backend.zip(operators.mul, zipped, a._layout, b._layout)
        backend.map(operators.exp, mapped, a._layout)
        return read(zipped), read(mapped)

    results = on_each_backend(path, run)
    for plain, tuned in zip(results["student"], results["fast"], strict=True):
        check(tuned, plain)


@pytest.mark.task3_1
@pytest.mark.parametrize("path", PATHS)
@given(data=st.data())
@FEW
def test_tuned_reduce_agrees_with_the_plain_kernel_over_every_dim(path, data):
    shape = data.draw(shapes(min_dims=1))
    a, _ = data.draw(tensors(float64, shape))

    def run(backend):
        found = []
        for dim in range(len(shape)):
            out_shape = shape[:dim] + (1,) + shape[dim + 1 :]
            for fn, start in ((operators.add, 0), (operators.maximum, -math.inf)):
                out = output_layout(out_shape, float64)
                backend.reduce(fn, out, a._layout, dim, start)
                found.append(read(out))
        return found

    results = on_each_backend(path, run)
    for plain, tuned in zip(results["student"], results["fast"], strict=True):
        check(tuned, plain)


@pytest.mark.task3_2
@pytest.mark.parametrize("path", PATHS)
@given(shapes_=matmul_shapes(), data=st.data())
@FEW
def test_tuned_matmul_agrees_with_the_plain_kernel(path, shapes_, data):
    """Batch matmul, batch dims broadcast, operands in any layout."""
    a_shape, b_shape, out_shape = shapes_
    a, _ = data.draw(tensors(float32, a_shape))
    b, _ = data.draw(tensors(float32, b_shape))
    strided = data.draw(st.booleans())

    def run(backend):
        out = output_layout(out_shape, float32, strided)
        backend.matmul(out, a._layout, b._layout)
        return read(out)

    results = on_each_backend(path, run)
    check(results["fast"], results["student"], rtol=1e-5)


# ---------------------------------------------------------------------------
# Sizes above the parallel threshold, with the default settings
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
def test_large_elementwise_paths_match_numpy(backend_name):
    rng = np.random.default_rng(2)
    n = 1024
    m = (
        FastBackend.parallel_threshold // n + 3
    )  # just above the threshold, not a power of two
    x = rng.standard_normal((n, m)).astype(np.float32)
    y = rng.standard_normal((n, m)).astype(np.float32)
    column, row = x[:, :1].copy(), y[:1, :].copy()
    cases = {
        "contiguous": (TensorData(x.reshape(-1), (n, m)), TensorData(y.reshape(-1), (n, m)), x + y),
        "broadcast": (
            TensorData(column.reshape(-1), (n, 1)),
            TensorData(row.reshape(-1), (1, m)),
            column + row,
        ),
        "transposed": (
            TensorData(np.ascontiguousarray(x.T).reshape(-1), (n, m), (1, n)),
            TensorData(y.reshape(-1), (n, m)),
            x + y,
        ),
    }
    for name, (a, b, expected) in cases.items():
        out = output_layout((n, m), float32)
        NUMBA_BACKENDS[backend_name].zip(operators.add, out, a, b)
        assert np.array_equal(read(out), expected), f"{name}: zip(add) differs from NumPy"


VECTOR_MATH = {
    "exp": operators.exp,
    "log": operators.log,
    "tanh": operators.tanh,
    "sigmoid": operators.sigmoid,
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(VECTOR_MATH))
def test_vector_math_agrees_with_the_kernel_and_torch(name, dtype):
    """Large contiguous exp, log, tanh, sigmoid run NumPy's SIMD loops: within 4 ulp of the
    compiled kernel (run on a strided layout) and of torch, specials included, no warnings.

    (float32 sigmoid is 2.6 ulp from the exact value at worst, torch's 2.4, the kernel's 1.4.)"""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(vector_math.VECTOR_MATH_MIN + 5) * 30).astype(dtype)
    tiny = np.finfo(dtype).tiny
    x[:9] = [np.nan, np.inf, -np.inf, 0.0, -0.0, tiny / 4, -tiny / 4, 100.0, 1000.0]
    n = x.size
    dense = TensorData(x, (n,))
    strided = TensorData(np.stack([x, x], 1).reshape(-1), (n,), (2,))
    fn = VECTOR_MATH[name]
    out_dtype = float32 if dtype == np.float32 else float64
    assert vector_math._vector_math(fast, fn, output_layout((n,), out_dtype), dense)
    assert not vector_math._vector_math(fast, fn, output_layout((n,), out_dtype), strided)
    results = []
    for layout in (dense, strided):
        out = output_layout((n,), out_dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fast.map(fn, out, layout)
        results.append(read(out))
    got, kernel = results
    want = getattr(torch, name)(torch.from_numpy(x)).numpy()
    # torch's sigmoid flushes results below the smallest normal number to 0
    for expected, slack in ((kernel, 0), (want, tiny if name == "sigmoid" else 0)):
        with np.errstate(invalid="ignore"):
            close = np.abs(got - expected) <= 4 * np.spacing(np.abs(expected)) + slack
        same = (got == expected) | (np.isnan(got) & np.isnan(expected))
        assert np.all(close | same), x[~(close | same)][:5]


@pytest.mark.parametrize("backend_name", BACKENDS_3_1)
@pytest.mark.parametrize("dim", [0, 1])
def test_large_sums_match_numpy(backend_name, dim):
    rng = np.random.default_rng(3)
    n, m = 1000, FastBackend.parallel_threshold // 1000 + 3
    values = rng.standard_normal((n, m)).astype(np.float32)
    expected = values.astype(np.float64).sum(axis=dim, keepdims=True).astype(np.float32)
    out_shape = (1, m) if dim == 0 else (n, 1)
    out = output_layout(out_shape, float32)
    NUMBA_BACKENDS[backend_name].reduce(
        operators.add, out, TensorData(values.reshape(-1), values.shape), dim, 0
    )
    np.testing.assert_allclose(read(out), expected, rtol=1e-6, atol=1e-5)


def test_small_ops_do_not_start_threads():
    """A 10-element op compiles and runs only the serial kernel."""
    backend = FastBackend()
    a = TensorData(np.arange(10.0), (10,))
    backend.map(operators.neg, output_layout((10,), float64), a)
    serial, parallel = backend.kernels(elementwise.tensor_map, operators.neg)
    assert serial.signatures and not parallel.signatures, (serial.signatures, parallel.signatures)


def test_import_selects_the_fast_backend_compiles_nothing_and_keeps_the_environment():
    """`import minitorch` makes the tuned kernels the default, compiles nothing, sets nothing."""
    probe = (
        "import os\n"
        "before = dict(os.environ)\n"
        "import minitorch\n"
        "backend = minitorch.get_backend()\n"
        "dispatchers = [*backend._matmul_kernels, *backend._where_kernels]\n"
        "print(backend.name, type(backend).__module__, len(backend._kernels),\n"
        "      sum(len(d.signatures) for d in dispatchers), before == dict(os.environ))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], env=project_env(), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    # printed: the default backend's name and module, kernels made, signatures compiled,
    # whether the environment is unchanged
    expected = ["fast", "minitorch.backends.fast.backend", "0", "0", "True"]
    assert result.stdout.split() == expected, result.stdout


THREADS_PROBE = """
import os
import threading

import numba
import numpy as np

import minitorch
from minitorch import operators
from minitorch.backends.tensor_data import TensorData

backend = minitorch.get_backend()
backend.parallel_threshold = 0  # every kernel parallel
x = TensorData(np.ones(64, np.float32), (64,))


def add():
    out = TensorData.empty((64,), minitorch.float32)
    backend.zip(operators.add, out, x, x)
    return out.storage.sum()


def adds():
    for _ in range(300):
        add()


threads = [threading.Thread(target=adds) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(numba.threading_layer(), "OMP_WAIT_POLICY" in os.environ, add() == 128)
"""


def test_parallel_kernels_from_two_threads_leave_the_environment_alone():
    """Two Python threads launch parallel kernels at once (launches take a lock).

    Numba's default layer (GNU OpenMP here) stays chosen; minitorch sets OMP_WAIT_POLICY only
    while Numba starts its threads, so the variable is gone again afterwards.
    """
    env = project_env()
    env.pop("NUMBA_THREADING_LAYER", None)
    env.pop("OMP_WAIT_POLICY", None)
    result = subprocess.run(
        [sys.executable, "-c", THREADS_PROBE], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    # printed: the threading layer, whether the variable is set now, a correct last result
    assert result.stdout.split() == ["omp", "False", "True"], result.stdout


def project_env(**variables) -> dict:
    """The environment of a subprocess that imports this project's minitorch."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))
    return dict(os.environ, PYTHONPATH=root, **variables)


# ---------------------------------------------------------------------------
# The on-disk cache
# ---------------------------------------------------------------------------

CACHE_PROBE = """
import numpy as np
from scalar_fn import shift
from minitorch.backends.fast import FastBackend, elementwise
from minitorch.backends.tensor_data import TensorData

backend = FastBackend()
out = TensorData(np.zeros(3), (3,))
backend.map(shift, out, TensorData(np.arange(3.0), (3,)))
serial, _ = backend.kernels(elementwise.tensor_map, shift)
print(sum(serial.stats.cache_hits.values()), sum(serial.stats.cache_misses.values()), *out.storage)
"""


@pytest.mark.slow
def test_kernels_are_cached_across_processes_and_recompiled_when_the_function_changes(tmp_path):
    """A second process loads the compiled kernel; editing the scalar function recompiles it.

    Editing another function of the same file does not.
    """
    (tmp_path / "probe.py").write_text(CACHE_PROBE)
    env = project_env(NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # an edit within one second must not reuse a .pyc

    def run_probe(shift: float, other: float) -> list[float]:
        source = f"""
            def shift(x):
                return x + {shift}

            def other(x):
                return x * {other}
        """
        (tmp_path / "scalar_fn.py").write_text(textwrap.dedent(source))
        result = subprocess.run(
            [sys.executable, "probe.py"], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
        return [float(word) for word in result.stdout.split()]

    # printed: cache hits, cache misses, then the three results
    assert run_probe(10.0, 2.0) == [0, 1, 10.0, 11.0, 12.0]  # first process: compiled
    assert run_probe(10.0, 2.0) == [1, 0, 10.0, 11.0, 12.0]  # second process: loaded
    assert run_probe(10.0, 3.0) == [1, 0, 10.0, 11.0, 12.0]  # another function edited
    assert run_probe(20.0, 3.0) == [0, 1, 20.0, 21.0, 22.0]  # this function edited: compiled
