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
from minitorch.backends.fast import FastBackend
from minitorch.backends.fast.elementwise import flat_map, flat_zip, tensor_map, tensor_zip
from minitorch.backends.tensor_data import TensorData


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


def offset_layout(values: np.ndarray, offset: int, strides=None) -> TensorData:
    """`values` at `offset` of a larger storage (row-major unless `strides` are given)."""
    storage = np.full(offset + values.size + 3, np.nan, values.dtype)
    storage[offset : offset + values.size] = values.reshape(-1)
    return TensorData(storage, values.shape, strides, offset)


def counted_kernels(backend, factory, fn) -> list:
    """Make `backend` run `factory`'s kernels around `fn` through wrappers that count the calls
    of each (serial, parallel) in the list returned."""
    calls = [0, 0]

    def counting(kernel, which):
        def run(*args):
            calls[which] += 1
            kernel(*args)

        return run

    serial, parallel = backend.kernels(factory, fn)
    backend._kernels[(factory, fn)] = (counting(serial, 0), counting(parallel, 1))
    return calls


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (2, 3), (3, 1, 4)])
def test_flat_kernels_run_on_row_major_operands_of_one_shape(path, shape):
    """Row-major operands of the output's shape, at offsets of larger storages, into a row-major
    view at an offset: the flat kernels run, and compute what the plain kernels do."""
    size = math.prod(shape)
    u = np.arange(size, dtype=np.float32).reshape(shape) - 2
    v = np.arange(size, dtype=np.float32).reshape(shape) / 4
    counted = FastBackend()
    calls = {
        "flat": [counted_kernels(counted, flat_zip, operators.mul),
                 counted_kernels(counted, flat_map, operators.neg)],
        "strided": [counted_kernels(counted, tensor_zip, operators.mul),
                    counted_kernels(counted, tensor_map, operators.neg)],
    }  # fmt: skip
    results = {}
    for name, backend in {"student": NUMBA_BACKENDS["student"], "fast": counted}.items():
        with code_path(path, backend):
            a, b = offset_layout(u, 2), offset_layout(v, 5)
            zipped = offset_layout(np.zeros(shape, np.float32), 1)
            mapped = offset_layout(np.zeros(shape, np.float32), 3)
            backend.zip(operators.mul, zipped, a, b)
            backend.map(operators.neg, mapped, a)
            assert np.isnan(zipped.storage[0]), "the zip wrote before its output's offset"
            assert np.isnan(zipped.storage[1 + size :]).all(), "the zip wrote past its output"
            results[name] = (read(zipped), read(mapped))
    for plain, tuned, expected in zip(
        results["student"], results["fast"], (u * v, np.negative(u)), strict=True
    ):
        check(plain, expected)
        check(tuned, plain)
    kernel = 0 if path == "serial" else 1
    assert [c[kernel] for c in calls["flat"]] == [1, 1], calls
    assert calls["strided"] == [[0, 0], [0, 0]], calls


@pytest.mark.parametrize("path", PATHS)
def test_operands_of_one_shape_that_are_not_row_major_take_the_strided_kernels(path):
    """Same shape and strides but repeated (stride 0) or permuted: not the flat kernels' case."""
    u = np.arange(6, dtype=np.float32).reshape(2, 3)
    row = offset_layout(np.array([1.0, 2.0, 3.0], np.float32), 1).expand((2, 3))
    transposed = offset_layout(u.T.copy(), 0).permute(1, 0)  # u's values, strides (1, 2)
    expected = {"expanded": np.array([[1, 4, 9], [1, 4, 9]], np.float32), "permuted": u * u}
    counted = FastBackend()
    calls = counted_kernels(counted, tensor_zip, operators.mul)
    for name, layout in (("expanded", row), ("permuted", transposed)):
        assert not layout.row_major, name
        for backend in (NUMBA_BACKENDS["student"], counted):
            with code_path(path, backend):
                out = TensorData(np.zeros(6, np.float32), (2, 3))
                backend.zip(operators.mul, out, layout, layout)
                check(read(out), expected[name])
    assert calls[0 if path == "serial" else 1] == 2, calls


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
