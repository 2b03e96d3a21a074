"""The backend interface: what a device must provide for tensors to run on it.

A backend owns the memory of one device type and the kernels that compute on
it. Every tensor operation of minitorch is built from these methods; a new
device is one class with them plus one line in `registry.py`.

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
    """The methods a backend implements (`SimpleBackend` and `FastBackend` are two)."""

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

    # -- fused optimizer steps (`fused.py`) -----------------------------------

    def adam(
        self,
        param: TensorData,
        grad: TensorData,
        exp_avg: TensorData,
        exp_avg_sq: TensorData,
        max_exp_avg_sq: TensorData,
        settings: np.ndarray,
    ) -> None:
        """One Adam step of every element (`fused.adam_element`), in place in `param`,
        `exp_avg`, `exp_avg_sq` and `max_exp_avg_sq`: five contiguous layouts of one
        shape and dtype; `settings` from `fused.adam_settings`."""


class HostMemory:
    """Memory methods of a backend whose device memory is the host's (NumPy arrays)."""

    def zeros(self, size: int, dtype: np.dtype) -> Storage:
        return np.zeros(size, dtype=dtype)

    def empty(self, size: int, dtype: np.dtype) -> Storage:
        return np.empty(size, dtype=dtype)  # no zero-filling pass: 25% of a 4M-element exp

    def from_host(self, array: np.ndarray) -> Storage:
        return array

    def to_host(self, storage: Storage) -> np.ndarray:
        return storage
