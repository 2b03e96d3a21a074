"""What the tests of the Numba backends share: the backends (`student`, the exercises of
fast_ops.py, graded by the task markers; `fast`, the tuned kernels) as test parameters, their
two code paths (`code_path`), output layouts, the comparison with the reference backend, and
the shapes of a matmul.

Every kernel runs on both code paths: the serial one (small tensors) and the parallel one,
forced on small tensors by lowering the thresholds to 0, which splits a tensor of a dozen
elements into more chunks than it has elements or rows, so every chunk boundary case shows.
Few distinct dtype signatures are used, because each one is a compilation (cached on disk
after the first run).
"""

import contextlib
import math

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st

import minitorch
from minitorch.backends import fast_ops
from minitorch.backends.fast import FastBackend
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


@st.composite
def matmul_shapes(draw):
    """Shapes of `a`, `b` (same number of dims, batch dims broadcast) and of the product.

    The summed dimension is short, or a little longer (16 to 19) with smaller batches then.
    """
    deep = draw(st.booleans())
    batch_sizes = st.integers(1, 2 if deep else 3)
    batch = draw(st.lists(batch_sizes, max_size=1 if deep else 2).map(tuple))
    batch_a, batch_b = (tuple(1 if draw(st.booleans()) else n for n in batch) for _ in range(2))
    rows, columns = (draw(st.integers(1, 5)) for _ in range(2))
    inner = draw(st.integers(16, 19) if deep else st.integers(1, 5))
    batch = tuple(max(x, y) for x, y in zip(batch_a, batch_b, strict=True))
    return batch_a + (rows, inner), batch_b + (inner, columns), batch + (rows, columns)
