"""Hypothesis strategies for tensors: shapes, broadcastable pairs, non-contiguous layouts.

`tensors(dtype)` draws a minitorch tensor together with the NumPy array it
must equal. The tensor is built contiguous, permuted, sliced with steps, or
expanded, so that stride bugs show; the expected array is built from the
same values with NumPy's own transpose/slicing/broadcast, independently of
minitorch's layout code.
"""

from __future__ import annotations

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

import minitorch

DTYPES = [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.bool]
FLOAT_DTYPES = [minitorch.float32, minitorch.float64]
NUMERIC_DTYPES = [minitorch.float32, minitorch.float64, minitorch.int64]


def examples(count: int) -> int:
    """`count` hypothesis examples, or fewer where the settings profile asks for fewer.

    Written as `@settings(max_examples=examples(25))`: an explicit count is not lowered by a
    profile, and the cuda run in Numba's simulator (tests/conftest.py, "cuda-simulator"), where
    each CUDA thread is a Python thread, loads a profile of a few examples.
    """
    return min(count, settings().max_examples)


# kept small: the reference backend loops in Python
MAX_DIMS = 3
MAX_SIZE = 4


@st.composite
def shapes(draw, min_dims: int = 0, max_dims: int = MAX_DIMS, min_size: int = 1) -> tuple:
    """A shape with up to `max_dims` dimensions of sizes `min_size..MAX_SIZE`."""
    ndim = draw(st.integers(min_dims, max_dims))
    return tuple(draw(st.integers(min_size, MAX_SIZE)) for _ in range(ndim))


@st.composite
def broadcastable_shapes(draw, min_dims: int = 0) -> tuple[tuple, tuple]:
    """Two shapes that broadcast together: a common shape with some sizes set to 1 or dropped."""
    common = draw(shapes(min_dims=min_dims))
    pair = []
    for _ in range(2):
        drop = draw(st.integers(0, len(common)))
        shape = tuple(1 if draw(st.booleans()) else size for size in common[drop:])
        pair.append(shape)
    return pair[0], pair[1]


def values(draw, shape: tuple, dtype) -> np.ndarray:
    """Random elements of `dtype` in a small range (exact in float32)."""
    count = int(np.prod(shape, dtype=np.int64))
    if dtype is minitorch.bool:
        elements = st.booleans()
    elif dtype is minitorch.int64:
        elements = st.integers(-9, 9)
    else:
        # quarters in [-8, 8]: exact in every float dtype, so NumPy and minitorch agree
        elements = st.integers(-32, 32).map(lambda k: k / 4)
    flat = draw(st.lists(elements, min_size=count, max_size=count))
    return np.array(flat, dtype=dtype.numpy_dtype).reshape(shape)


LAYOUTS = ("contiguous", "permuted", "sliced", "expanded")


@st.composite
def tensors(draw, dtype=None, shape: tuple | None = None, layouts=LAYOUTS):
    """`(tensor, expected)`: a minitorch tensor of `shape` in one of `layouts`, and its values."""
    dtype = draw(st.sampled_from(DTYPES)) if dtype is None else dtype
    shape = draw(shapes()) if shape is None else shape
    layout = draw(st.sampled_from(layouts))
    ndim = len(shape)
    if layout == "permuted" and ndim >= 2:
        order = draw(st.permutations(range(ndim)))
        base = values(draw, tuple(shape[d] for d in np.argsort(order)), dtype)
        # base has shape[k] at position order[k]: permuting by `order` gives `shape`
        return minitorch.tensor(base).permute(*order), np.transpose(base, order)
    if layout == "sliced" and ndim >= 1:
        steps = [draw(st.integers(1, 3)) for _ in shape]
        starts = [draw(st.integers(0, 1)) for _ in shape]
        base = values(
            draw, tuple(st_ + n * s for st_, n, s in zip(starts, shape, steps, strict=True)), dtype
        )
        key = tuple(
            slice(st_, st_ + n * s, s) for st_, n, s in zip(starts, shape, steps, strict=True)
        )
        return minitorch.tensor(base)[key], base[key]
    if layout == "expanded" and ndim >= 1:
        kept = tuple(1 if draw(st.booleans()) else n for n in shape)
        base = values(draw, kept, dtype)
        return minitorch.tensor(base).expand(*shape), np.broadcast_to(base, shape)
    base = values(draw, shape, dtype)
    return minitorch.tensor(base), base.copy()


def assert_matches(actual, expected: np.ndarray, dtype=None, exact: bool = False) -> None:
    """Check a minitorch tensor's shape, dtype and values against a NumPy array."""
    assert isinstance(actual, minitorch.Tensor), f"expected a Tensor, got {type(actual).__name__}"
    assert tuple(actual.shape) == expected.shape, (
        f"shape {tuple(actual.shape)} != expected {expected.shape}"
    )
    if dtype is not None:
        assert actual.dtype is dtype, f"dtype {actual.dtype} != expected {dtype}"
    got = np.asarray(actual.numpy())
    if exact or not np.issubdtype(expected.dtype, np.floating):
        mismatch = got != expected
    else:
        rtol = 1e-5 if actual.dtype is minitorch.float32 else 1e-12
        mismatch = ~np.isclose(got, expected, rtol=rtol, atol=rtol, equal_nan=True)
    if np.any(mismatch):
        where = tuple(int(i) for i in np.argwhere(mismatch)[0])
        raise AssertionError(
            f"values differ at index {where}: got {got[where]!r}, expected {expected[where]!r}"
            f"\n got={got!r}\n expected={expected!r}"
        )


def conv2d_setting(
    integer, channels: int = 2, out_channels: int = 2, extra_size: int = 4, batch: int = 2
) -> tuple[tuple, tuple, dict]:
    """`(x_shape, w_shape, kwargs)` of a random 2-D convolution that fits, its sizes drawn by
    `integer(low, high)` (both included): up to `channels` input and `out_channels` output
    channels per group (one or two groups), kernels of 1..3, dilation, padding and stride,
    inputs up to `extra_size` larger than the dilated kernel, a batch of up to `batch`."""
    groups = integer(1, 2)
    in_count = groups * integer(1, channels)
    out_count = groups * integer(1, out_channels)
    kernel = (integer(1, 3), integer(1, 3))
    dilation = (integer(1, 2), integer(1, 2))
    padding = (integer(0, 2), integer(0, 2))
    stride = (integer(1, 3), integer(1, 3))
    reach = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
    size = [integer(max(1, r - 2 * p), r + extra_size) for r, p in zip(reach, padding, strict=True)]
    x_shape = (integer(1, batch), in_count, *size)
    w_shape = (out_count, in_count // groups, *kernel)
    kwargs = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    return x_shape, w_shape, kwargs


@st.composite
def conv2d_settings(draw, *args, **kwargs) -> tuple[tuple, tuple, dict]:
    """`conv2d_setting` drawn by hypothesis."""
    return conv2d_setting(lambda low, high: draw(st.integers(low, high)), *args, **kwargs)
