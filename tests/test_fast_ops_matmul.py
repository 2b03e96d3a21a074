"""The Numba backends' kernels against NumPy, the reference backend, and each other: matmul
(batched, broadcast, strided, across tiles and depth blocks).

Both backends, on both code paths, as tests/fast_ops_checks.py describes.
"""

import numpy as np
import pytest
from fast_ops_checks import (
    BACKENDS_3_2,
    FEW,
    NUMBA_BACKENDS,
    check,
    code_path,
    float32,
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

# Every dtype on the serial path; on the parallel one float32, and the tuned kernel's other
# dtypes, which its register block computes each in its own way (floats, integers, bools).
PARALLEL_DTYPES = {"student": [float32], "fast": DTYPES}
MATMUL_CASES = [
    pytest.param(backend.id, path, dtype, marks=backend.marks, id=f"{backend.id}-{path}-{dtype}")
    for backend in BACKENDS_3_2
    for path in ("serial", "parallel")
    for dtype in (DTYPES if path == "serial" else PARALLEL_DTYPES[backend.id])
]


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
    "path, dtype", [("parallel", float32), ("serial", float32), ("serial", int64)]
)
def test_matmul_across_tiles_and_depth_blocks(backend_name, transposed, path, dtype):
    """Sizes that are not multiples of the blocks, a depth above MATMUL_DEPTH, a shared `b`.

    They cross the plain kernel's blocks too (BLOCK_ROWS = 64, BLOCK_DEPTH = 256). The
    tuned backend's serial path is its other body (`_matmul_rows`), which runs every product
    below `matmul_parallel_threshold`.
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
