"""The tuned Numba kernels (`fast`, the package fast/) agree with the plain ones (`student`,
the exercises of fast_ops.py, graded by the task markers) on map, zip, reduce and matmul, on
both code paths (tests/fast_ops_checks.py's `code_path`).
"""

import math

import numpy as np
import pytest
from fast_ops_checks import (
    FEW,
    NUMBA_BACKENDS,
    PATHS,
    check,
    code_path,
    float32,
    float64,
    matmul_shapes,
    output_layout,
    read,
)
from hypothesis import given
from hypothesis import strategies as st
from strategies import broadcastable_shapes, shapes, tensors

from minitorch import operators


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
