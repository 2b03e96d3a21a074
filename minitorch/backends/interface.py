"""The backend interface: what a device must provide for tensors to run on it.

A backend owns the memory of one device type and the kernels that compute on
it. Every tensor operation of minitorch is built from the core methods of
`Backend`; a backend may also have *optional kernels*, fused versions of what the
operations otherwise compose from the core (`OPTIONAL_KERNELS`, looked up with
`backend.kernel(name)`). A new device is one class with the core methods plus one
`register_backend` line in `backends/__init__.py`.

Storage is a one-dimensional buffer (a NumPy array on the CPU, a `numba.cuda`
device array on a GPU); a layout (`TensorData`) describes a tensor over it.
Kernels fill an output layout that the caller allocated with the result's
shape and dtype (see `tensor_ops.py` for what each one computes, written as
plain loops).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from .tensor_data import Storage, TensorData


class Backend(Protocol):
    """The core methods every backend implements (`SimpleBackend`, `FastBackend` and `CudaBackend`
    are three)."""

    name: str

    # -- memory -------------------------------------------------------------

    def zeros(self, size: int, dtype: np.dtype) -> Storage:
        """A new storage of `size` zeros of NumPy dtype `dtype` on this device."""

    def empty(self, size: int, dtype: np.dtype) -> Storage:
        """A new storage of `size` unset elements: for results a kernel writes entirely."""

    def from_host(self, array: np.ndarray) -> Storage:
        """A storage on this device holding a copy of the 1-D host array `array`
        (the array itself when the device's memory is host memory)."""

    def to_host(self, storage: Storage) -> np.ndarray:
        """The 1-D host array with `storage`'s values (the storage itself on the CPU)."""

    # -- kernels ------------------------------------------------------------

    def map(self, fn: Callable, out: TensorData, a: TensorData) -> None:
        """$out_i = fn(a_i)$, `a` broadcast to `out`'s shape."""

    def zip(self, fn: Callable, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out_i = fn(a_i, b_i)$, both broadcast."""

    def reduce(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Fold dimension `dim` of `a` with `fn` from `start` into `out` (size 1 in `dim`)."""

    def arg_reduce(
        self, better: Callable, values: TensorData, indices: TensorData, a: TensorData, dim: int
    ) -> None:
        """The first element along `dim` no later one is `better` than, and its position."""

    def where(self, out: TensorData, condition: TensorData, a: TensorData, b: TensorData) -> None:
        """$out_i = a_i$ where $condition_i$, else $b_i$ (all broadcast)."""

    def matmul(self, out: TensorData, a: TensorData, b: TensorData) -> None:
        """Batched matrix product, batch dimensions broadcast."""

    # -- scans and sorting along one dimension ------------------------------

    def scan(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """Running folds along `dim`: $out[\\ldots, j] = fn(\\ldots fn(fn(start, a[\\ldots, 0]),
        a[\\ldots, 1]) \\ldots, a[\\ldots, j])$ (`out` has `a`'s shape; cumsum, cumprod)."""

    def sort(
        self, values: TensorData, indices: TensorData, a: TensorData, dim: int, descending: bool
    ) -> None:
        """Each line of `a` along `dim` sorted, stably (equal elements keep their order; NaN
        is larger than everything), into `values`, and the int64 positions it came from into
        `indices` (both have `a`'s shape)."""

    def scatter_along(
        self, out: TensorData, source: TensorData, index: TensorData, dim: int
    ) -> None:
        """$out[i|index[i|j]] = source[i|j]$ along `dim` ($[i|j]$: position $j$ of line $i$):
        `source` and the int64 `index` share a shape, `out` may be longer in `dim`; the
        positions in one line of `index` are distinct (what `sort` returned, or part of it)."""

    # -- gathering and scattering by storage position (advanced indexing) ---

    def take(self, out: TensorData, a: TensorData, positions: TensorData) -> None:
        """$out_i = a.storage[positions_i]$; `positions` (int64) has `out`'s shape.

        The positions are absolute positions in `a`'s storage (its offset and
        strides already applied by the caller), so one kernel serves every read
        that picks elements by computed index: `x[idx]`, gather, index_select, take.
        """

    def put(
        self, a: TensorData, positions: TensorData, values: TensorData, accumulate: bool
    ) -> None:
        r"""$a.storage[positions_i] = values_i$, or $\\mathrel{+}= values_i$ if `accumulate`.

        `values` is broadcast to `positions`' shape. With `accumulate`, a
        position that appears several times gets every value added (scatter_add,
        index_add_, the backward of a read); without it one of them is written.
        """

    def put_reduce(
        self, fn: Callable, a: TensorData, positions: TensorData, values: TensorData
    ) -> None:
        """$a.storage[positions_i] = fn(a.storage[positions_i], values_i)$, in the order of
        `positions` (row-major), `values` broadcast: a position that appears several times
        folds all its values (scatter's `multiply`, scatter_reduce's `prod`, `amax`, `amin`).
        """

    # -- optional kernels -----------------------------------------------------

    def kernel(self, name: str) -> Callable | None:
        """The optional kernel `name` (one of `OPTIONAL_KERNELS`) of this backend, or None
        when it has none: the caller then composes the same result from the kernels above."""


# The optional kernels: fused versions of what the operations can also compose from the core
# kernels above. A backend registers the ones it has by name (`OptionalKernels`); a caller
# looks one up with `backend.kernel(name)` and takes the composed path when it gets None.
# Every layout is contiguous unless the signature says "any strides"; outputs are allocated
# by the caller.
OPTIONAL_KERNELS: dict[str, str] = {
    "adam_step": """adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, settings) -> None
        One Adam step of every element (`fused.adam_element`), in place in `param`, `exp_avg`,
        `exp_avg_sq` and `max_exp_avg_sq`: five contiguous layouts of one shape and dtype
        (without amsgrad `max_exp_avg_sq` is `exp_avg_sq`); `settings` from
        `fused.adam_settings`. Called by `minitorch._fused_adam_` and `_fused_adamw_`.""",
    "conv2d": """conv2d(out, x, weight, bias, stride, dilation, padding, groups) -> None
        $out[n, o] = b_o + \\sum_{c, i, j} W[o, c, i, j]\\, x[n, c, y s + i d - p, ...]$ for
        floating `x` (N, C, H, W) and `weight` (O, C / groups, kH, kW) of any strides, `bias`
        (O,) or None, into `out` (N, O, oH, oW); `stride`, `dilation` and `padding` (the
        padding before each spatial dimension) are pairs.""",
    "conv2d_backward": """conv2d_backward(grad_x, grad_w, grad_b, grad, x, weight,
                    stride, dilation, padding, groups) -> None
        The gradients of `conv2d` for the upstream `grad` (any strides) into `grad_x`, `grad_w`
        and `grad_b` (each None when not wanted).""",
    "max_pool2d": """max_pool2d(values, indices, x, kernel_size, stride, dilation, padding) -> None
        The maximum of each window of floating `x` (N, C, H, W, any strides), windows clipped
        to the input as PyTorch clips them, into `values` (N, C, oH, oW), and its position in
        the input plane into the int64 `indices`.""",
    "max_pool2d_backward": """max_pool2d_backward(grad_x, grad, indices) -> None
        `grad` (N, C, oH, oW, any strides) added into the zero-filled `grad_x` (N, C, H, W)
        at the positions `indices` that `max_pool2d` returned.""",
    "cross_entropy": """cross_entropy(losses, lse, totals, logits, target, weight, ignore_index,
                  label_smoothing, mean) -> int
        Softmax cross-entropy of floating `logits` (N, C) and int64 class indices `target`
        (N): each row's loss (`fused.cross_entropy_row`, times $w_t$ of `weight` (C) or 1 when
        None; 0 where the target is `ignore_index`) into `losses` (N), its log-sum-exp into
        the float64 `lse` (N), and into `totals` (2) the summed loss (divided by $\\sum w_t$
        when `mean`) and $\\sum w_t$. Returns the first row whose target is outside $[0, C)$
        (and not `ignore_index`), or -1; it reads no logits for that row.""",
    "cross_entropy_backward": """cross_entropy_backward(grad_logits, grad, logits, target,
                  weight, lse, totals, ignore_index, label_smoothing, mean) -> None
        The gradient of `cross_entropy` into `grad_logits` (N, C): softmax minus one-hot
        (`fused.cross_entropy_row_grad`) times the upstream `grad`, one per row (N) or one
        for the reduced loss (0-d), over $\\sum w_t$ when `mean`; `lse` and `totals` are what
        `cross_entropy` wrote.""",
    "sgd_step": """sgd_step(param, grad, momentum_buffer, settings) -> None
        One SGD step of every element (`fused.sgd_element`), in place in `param` and (with
        momentum) `momentum_buffer`: three contiguous layouts of one shape and dtype (without
        momentum the caller passes `grad` again as `momentum_buffer`); `settings` from
        `fused.sgd_settings`. Called by `minitorch._fused_sgd_`.""",
    "relu_backward": """relu_backward(out, a, grad) -> None
        ReLU's gradient in one pass: $out = g$ where $a > 0$ or $a$ is NaN, else 0, for
        floating `a` and `grad` of `out`'s shape (any strides).""",
    "avg_pool2d": """avg_pool2d(values, x, kernel_size, stride, padding, count_include_pad,
                    divisor) -> None
        The mean of each window of floating `x` (N, C, H, W, any strides) into `values`
        (N, C, oH, oW): the sum of its taps inside the input over `divisor`, or, when
        `divisor` is 0, over its size as PyTorch counts it (`ops/pooling.averaging_sizes`).""",
    "avg_pool2d_backward": """avg_pool2d_backward(grad_x, grad, kernel_size, stride, padding,
                    count_include_pad, divisor) -> None
        The gradient of `avg_pool2d` for `grad` (N, C, oH, oW, any strides) into `grad_x`
        (N, C, H, W), every element of which it writes.""",
}
# The four kernels that convolution and max pooling take as a set (`ops/convolution.py`).
WINDOW_KERNELS = ("conv2d", "conv2d_backward", "max_pool2d", "max_pool2d_backward")
# The two of average pooling (`ops/pooling.py`).
AVG_POOL_KERNELS = ("avg_pool2d", "avg_pool2d_backward")
# The fused kernels of a training step's loss, activation and SGD step (`ops/losses.py`,
# `ops/unary.py`, `ops/inplace.py`).
TRAINING_KERNELS = ("cross_entropy", "cross_entropy_backward", "relu_backward", "sgd_step")


def window_settings(stride: tuple, dilation: tuple, padding: tuple) -> tuple:
    """A window kernel's `stride`, `dilation` and `padding` pairs as the one tuple of ints its
    compiled kernels take, $(s_H, s_W, d_H, d_W, p_H, p_W)$."""
    return tuple(int(n) for n in (*stride, *dilation, *padding))


def bias_arguments(bias: TensorData | None, x: TensorData) -> tuple:
    """(storage, stride, offset, whether there is a bias) of `conv2d`'s `bias` for its compiled
    kernels; without one, the storage of `x` (of the same dtype) stands in, unread."""
    if bias is None:
        return x.storage, 0, x.offset, False
    return bias.storage, bias.strides[0], bias.offset, True


class OptionalKernels:
    """A backend's table of optional kernels (`OPTIONAL_KERNELS`), registered by name.

    A class names the optional kernels it implements in `optional_kernels`, as methods of
    the same names; `register_kernel` adds one to a single backend object (any callable
    with the documented signature), `unregister_kernel` takes one away.
    """

    optional_kernels: tuple[str, ...] = ()

    def __init__(self):
        self._optional = {}
        for name in self.optional_kernels:
            self.register_kernel(name, getattr(self, name))

    def register_kernel(self, name: str, kernel: Callable) -> None:
        """Make `kernel` this backend's optional kernel `name`."""
        self._optional[known_kernel(name)] = kernel

    def unregister_kernel(self, name: str) -> None:
        """Take the optional kernel `name` away (the callers then compose it)."""
        self._optional.pop(known_kernel(name), None)

    def kernel(self, name: str) -> Callable | None:
        """The optional kernel `name`, or None when this backend has none."""
        return self._optional.get(known_kernel(name))


def known_kernel(name: str) -> str:
    """`name` if it is one of `OPTIONAL_KERNELS`: a misspelt name is an error, never None."""
    if name not in OPTIONAL_KERNELS:
        raise ValueError(f"unknown optional kernel {name!r}; known: {', '.join(OPTIONAL_KERNELS)}")
    return name


class HostMemory:
    """Memory methods of a backend whose device memory is the host's (NumPy arrays)."""

    # NumPy's own functions, `zeros(size, dtype)`: every result is allocated here, and
    # a method around them would add a Python call to each operation. `empty` does no
    # zero-filling pass over memory the kernel writes.
    zeros = staticmethod(np.zeros)
    empty = staticmethod(np.empty)

    def from_host(self, array: np.ndarray) -> Storage:
        return array

    def to_host(self, storage: Storage) -> np.ndarray:
        return storage
