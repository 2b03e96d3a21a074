"""The Numba backends' kernels against NumPy, the reference backend, and each other: matmul
(batched, broadcast, strided, across tiles and depth blocks, empty).

Both backends, on each of their matmul bodies: the tuned backend's `_matmul_rows` ("rows")
and its packed `_matmul` compiled serial ("serial") and parallel ("parallel"); the plain
backend's `_matmul` serial and parallel.
"""

import contextlib

import numpy as np
import pytest
from fast_ops_checks import (
    BACKENDS_3_2,
    FEW,
    NUMBA_BACKENDS,
    bool_,
    check,
    float32,
    float64,
    int64,
    matmul_shapes,
    output_layout,
    read,
)
from hypothesis import given
from hypothesis import strategies as st
from strategies import DTYPES, tensors

from minitorch.backends.fast import FastBackend, matmul
from minitorch.backends.tensor_data import TensorData

# The bodies that each backend's matmul runs (the plain backend has one, serial or parallel).
MATMUL_PATHS = {"student": ("serial", "parallel"), "fast": ("rows", "serial", "parallel")}
# Every dtype on the serial paths; on the parallel one float32, and the tuned kernel's other
# dtypes, which its register block computes each in its own way (floats, integers, bools).
PARALLEL_DTYPES = {"student": [float32], "fast": DTYPES}
MATMUL_CASES = [
    pytest.param(backend.id, path, dtype, marks=backend.marks, id=f"{backend.id}-{path}-{dtype}")
    for backend in BACKENDS_3_2
    for path in MATMUL_PATHS[backend.id]
    for dtype in (DTYPES if path != "parallel" else PARALLEL_DTYPES[backend.id])
]


@contextlib.contextmanager
def code_path(path: str, *chosen):
    """Run the matmul of the `chosen` backends (all by default) on one body whatever the size:
    "rows" (`_matmul_rows`), or the packed kernel "serial" or "parallel"."""
    chosen = chosen or tuple(NUMBA_BACKENDS.values())
    try:
        for backend in chosen:
            backend.matmul_rows_threshold = 1 << 62 if path == "rows" else 0
            backend.matmul_parallel_threshold = 0 if path == "parallel" else 1 << 62
        yield
    finally:
        for backend in chosen:  # back to the class's thresholds
            del backend.matmul_rows_threshold, backend.matmul_parallel_threshold


@pytest.mark.parametrize("backend_name, path, dtype", MATMUL_CASES)
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
    "path, dtype",
    [("parallel", float32), ("serial", float32), ("serial", int64), ("rows", float32)],
)
def test_matmul_across_tiles_and_depth_blocks(backend_name, transposed, path, dtype):
    """Sizes that are not multiples of the blocks, a depth above MATMUL_DEPTH, a shared `b`.

    They cross the plain kernel's blocks too (BLOCK_ROWS = 64, BLOCK_DEPTH = 256).
    """
    rng = np.random.default_rng(1)
    rows, inner = matmul.MATMUL_ROWS * 2 + 3, matmul.MATMUL_DEPTH + 77
    columns = matmul.MATMUL_COLUMNS + 67
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
    """A product below `matmul_rows_threshold` runs `_matmul_rows`; the packed kernel (slower
    to compile) is left uncompiled, and gives the same numbers."""
    backend = FastBackend()
    rng = np.random.default_rng(3)
    a_values = rng.standard_normal((3, 5, 7)).astype(np.float32)
    b_values = rng.standard_normal((7, 4)).astype(np.float32)
    a = TensorData(a_values.reshape(-1), a_values.shape)
    b = TensorData(b_values.reshape(-1), (1, 7, 4))
    out = output_layout((3, 5, 4), float32, strided=True)
    assert 3 * 5 * 7 * 4 < backend.matmul_rows_threshold
    backend.matmul(out, a, b)
    rows, serial, parallel = backend._matmul_kernels
    assert rows.py_func is matmul._matmul_rows, rows.py_func
    signatures = [kernel.signatures for kernel in backend._matmul_kernels]
    assert signatures[0] and not signatures[1] and not signatures[2], signatures
    expected = a_values.astype(np.float64) @ b_values
    np.testing.assert_allclose(read(out), expected, rtol=1e-5, atol=1e-6)
    with code_path("parallel", backend):
        packed = output_layout((3, 5, 4), float32)
        backend.matmul(packed, a, b)
    check(read(packed), read(out), rtol=1e-5)


def test_a_first_64_by_64_product_compiles_only_the_row_kernel():
    """A 64 x 64 product (a fresh process's typical first) stays on `_matmul_rows`, whose
    compile takes about half the packed kernel's; 65 rows do not."""
    backend = FastBackend()
    x = np.arange(64 * 64, dtype=np.float64).reshape(64, 64) % 7 - 3
    out = output_layout((64, 64), float64)
    backend.matmul(out, TensorData(x.reshape(-1), x.shape), TensorData(x.reshape(-1), x.shape))
    signatures = [kernel.signatures for kernel in backend._matmul_kernels]
    assert signatures[0] and not signatures[1] and not signatures[2], signatures
    np.testing.assert_array_equal(read(out), x @ x)
    assert 65 * 64 * 64 >= backend.matmul_rows_threshold


def test_medium_matmuls_run_the_packed_kernel_serially():
    """Between `matmul_rows_threshold` and `matmul_parallel_threshold` multiply-adds the packed
    kernel runs compiled serial (a layer of 50 x 100 x 100 in a small training script)."""
    backend = FastBackend()
    rng = np.random.default_rng(4)
    x = rng.standard_normal((50, 100)).astype(np.float32)
    w = rng.standard_normal((100, 100)).astype(np.float32)
    work = 50 * 100 * 100
    assert backend.matmul_rows_threshold <= work < backend.matmul_parallel_threshold
    out = output_layout((50, 100), float32)
    backend.matmul(out, TensorData(x.reshape(-1), x.shape), TensorData(w.reshape(-1), w.shape))
    rows, serial, parallel = backend._matmul_kernels
    assert serial.py_func is matmul._matmul and not serial.targetoptions.get("parallel")
    signatures = [kernel.signatures for kernel in backend._matmul_kernels]
    assert not signatures[0] and signatures[1] and not signatures[2], signatures
    expected = x.astype(np.float64) @ w
    np.testing.assert_allclose(read(out), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("path", MATMUL_PATHS["fast"])
@pytest.mark.parametrize("dtype", [float32, float64, int64, bool_], ids=str)
def test_matmul_of_views_on_each_body(path, dtype):
    """Odd shapes, a broadcast batch, `a` and `b` read through transposed views and `out`
    through a strided one, against NumPy in float64 (exact for integers and bools)."""
    rng = np.random.default_rng(5)
    numpy_dtype = dtype.numpy_dtype
    a_values, b_values = (rng.standard_normal(shape) * 4 for shape in ((2, 37, 45), (45, 53)))
    if dtype == bool_:  # sparse, so that some sums are false
        a_values, b_values = a_values > 6, b_values > 6
    a_values, b_values = a_values.astype(numpy_dtype), b_values.astype(numpy_dtype)
    a_storage = np.ascontiguousarray(a_values.transpose(0, 2, 1))  # a[t] stored as a[t].T
    a = TensorData(a_storage.reshape(-1), a_values.shape, (37 * 45, 1, 37))
    b = TensorData(np.ascontiguousarray(b_values.T).reshape(-1), (1, 45, 53), (0, 1, 45))
    out = output_layout((2, 37, 53), dtype, strided=True)
    backend = NUMBA_BACKENDS["fast"]
    with code_path(path, backend):
        backend.matmul(out, a, b)
    if dtype in (int64, bool_):
        np.testing.assert_array_equal(read(out), np.matmul(a_values, b_values))
    else:
        expected = np.matmul(a_values.astype(np.float64), b_values.astype(np.float64))
        rtol = 1e-4 if dtype == float32 else 1e-12
        np.testing.assert_allclose(read(out), expected, rtol=rtol, atol=rtol * 100)


@pytest.mark.parametrize("path", MATMUL_PATHS["fast"])
@pytest.mark.parametrize(
    "a_shape, b_shape", [((0, 4, 3), (3, 5)), ((4, 0), (0, 5)), ((0, 3), (3, 5)), ((4, 3), (3, 0))]
)
def test_matmul_with_empty_dims_on_each_body(path, a_shape, b_shape):
    """An empty batch, rows or columns give an empty product; an empty sum gives zeros."""
    backend = NUMBA_BACKENDS["fast"]
    ndim = max(len(a_shape), len(b_shape))
    a_shape, b_shape = (
        (1,) * (ndim - len(a_shape)) + a_shape,
        (1,) * (ndim - len(b_shape)) + b_shape,
    )
    out_shape = np.broadcast_shapes(a_shape[:-2], b_shape[:-2]) + (a_shape[-2], b_shape[-1])
    a = TensorData(np.ones(int(np.prod(a_shape)), np.float32), a_shape)
    b = TensorData(np.ones(int(np.prod(b_shape)), np.float32), b_shape)
    out = TensorData(np.full(int(np.prod(out_shape)), 7, np.float32), out_shape)
    with code_path(path, backend):
        backend.matmul(out, a, b)
    expected = np.matmul(np.ones(a_shape, np.float32), np.ones(b_shape, np.float32))
    np.testing.assert_array_equal(read(out), expected)
