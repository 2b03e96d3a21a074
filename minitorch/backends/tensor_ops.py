"""Backends: the few higher-order kernels every tensor operation is built from.

A backend fills an output layout (`TensorData`) that the caller allocated with
the result's shape and dtype:

- `map(fn, out, a)`: $out_i = fn(a_i)$, `a` broadcast to `out`'s shape (so
  `map(identity, ...)` copies, materialises an `expand`, or writes a slice);
- `zip(fn, out, a, b)`: $out_i = fn(a_i, b_i)$, both broadcast;
- `reduce(fn, out, a, dim, start)`: folds dimension `dim` of `a` (where `out`
  has size 1) from `start` with `fn`;
- `arg_reduce(better, values, indices, a, dim)`: the first element along
  `dim` that no later one is `better` than, and its position (max, argmax);
- `where(out, condition, a, b)`: $out_i = a_i$ if $condition_i$ else $b_i$;
- `matmul(out, a, b)`: batched matrix product, batch dimensions broadcast;
- `scan(fn, out, a, dim, start)`: running folds along `dim` (cumsum, cumprod);
- `sort(values, indices, a, dim, descending)`: each line along `dim` sorted,
  stably, and where its elements came from;
- `scatter_along(out, source, index, dim)`: each line of `source` along `dim`
  written to the positions its line of `index` names (the backward of a sort).
- `take(out, a, positions)` and `put(a, positions, values, accumulate)`: read
  and write `a`'s storage at computed positions (advanced indexing, gather,
  scatter); `put_reduce(fn, a, positions, values)` folds the values into
  those positions with `fn` (scatter's products, maxima and minima).

It also registers the optional kernel `adam_step` (`interface.OPTIONAL_KERNELS`):
a whole Adam step in one loop (`fused.py`).

`fn` is a module-level scalar function (from `operators.py`), so that a
compiling backend can build and cache one kernel per (function, dtype).
Inputs of `zip` share one dtype (the caller converts them first); `out` may
have another (a comparison writes bools).

`SimpleBackend` is the reference: plain Python loops over `tensor_data`'s
index functions, correct on any strides and slow. `cpu` tensors run on the
Numba backend (`fast.FastBackend`, `"fast"`) unless
`minitorch.set_backend("simple")` chooses the reference (see `registry.py`).
The whole interface, allocation and host copies included, is `interface.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .fused import adam_loop, storage_at
from .interface import HostMemory, OptionalKernels
from .tensor_data import TensorData, broadcast_index, index_to_position, to_index


def store(storage: np.ndarray, position: int, value) -> None:
    """`storage[position] = value`, an integer wrapping into a narrower integer dtype.

    NumPy refuses to store an integer outside the storage's range (300 in a
    `uint8` storage); a conversion between dtypes (`t.to(minitorch.uint8)`)
    keeps its low bits instead, as a C cast, a compiled kernel and PyTorch do.
    """
    try:
        storage[position] = value
    except OverflowError:
        storage[position] = np.asarray(value).astype(storage.dtype)


def added(old, new):
    """`put(accumulate=True)`'s fold: $old + new$."""
    return old + new


def replaced(old, new):
    """`put`'s fold: the new value."""
    return new


class SimpleBackend(HostMemory, OptionalKernels):
    """The reference backend: one Python loop per kernel, element by element."""

    name = "simple"
    optional_kernels = ("adam_step",)

    def map(self, fn: Callable, out: TensorData, a: TensorData) -> None:
        """$out[i] = fn(a[i])$ for every index $i$ of `out`, with `a` broadcast."""
        # BEGIN SOLUTION 2.3
        out_index = np.zeros(out.ndim, dtype=np.int64)
        a_index = np.zeros(a.ndim, dtype=np.int64)
        with np.errstate(all="ignore"):
            for ordinal in range(out.numel()):
                to_index(ordinal, out.shape_array, out_index)
                broadcast_index(out_index, out.shape_array, a.shape_array, a_index)
                value = a.storage[a.offset + index_to_position(a_index, a.strides_array)]
                position = out.offset + index_to_position(out_index, out.strides_array)
                store(out.storage, position, fn(value))
        # END SOLUTION 2.3

    def zip(self, fn: Callable, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[i] = fn(a[i], b[i])$ for every index $i$ of `out`, with `a` and `b` broadcast."""
        # BEGIN SOLUTION 2.3
        out_index = np.zeros(out.ndim, dtype=np.int64)
        a_index = np.zeros(a.ndim, dtype=np.int64)
        b_index = np.zeros(b.ndim, dtype=np.int64)
        with np.errstate(all="ignore"):
            for ordinal in range(out.numel()):
                to_index(ordinal, out.shape_array, out_index)
                broadcast_index(out_index, out.shape_array, a.shape_array, a_index)
                broadcast_index(out_index, out.shape_array, b.shape_array, b_index)
                a_value = a.storage[a.offset + index_to_position(a_index, a.strides_array)]
                b_value = b.storage[b.offset + index_to_position(b_index, b.strides_array)]
                out_position = out.offset + index_to_position(out_index, out.strides_array)
                out.storage[out_position] = fn(a_value, b_value)
        # END SOLUTION 2.3

    def reduce(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """$out[i] = fn(\\ldots fn(fn(start, a[i|0]), a[i|1]) \\ldots)$ along `dim`.

        `out` has `a`'s shape with size 1 in `dim`; $a[i|j]$ is the element of
        `a` at `out`'s index $i$ with position $j$ in `dim`.
        """
        # BEGIN SOLUTION 2.3
        out_index = np.zeros(out.ndim, dtype=np.int64)
        with np.errstate(all="ignore"):
            for ordinal in range(out.numel()):
                to_index(ordinal, out.shape_array, out_index)
                position = a.offset + index_to_position(out_index, a.strides_array)
                total = start
                for _ in range(a.shape[dim]):
                    total = fn(total, a.storage[position])
                    position += a.strides[dim]
                out.storage[out.offset + index_to_position(out_index, out.strides_array)] = total
        # END SOLUTION 2.3

    def arg_reduce(
        self, better: Callable, values: TensorData, indices: TensorData, a: TensorData, dim: int
    ) -> None:
        """The winner along `dim` and its position: `values` and int64 `indices`.

        The first element wins unless a later one is `better(later, best)`, so
        ties go to the first occurrence, as in PyTorch. `a.shape[dim]` must be
        at least 1.
        """
        out_index = np.zeros(values.ndim, dtype=np.int64)
        with np.errstate(all="ignore"):
            for ordinal in range(values.numel()):
                to_index(ordinal, values.shape_array, out_index)
                position = a.position(out_index)
                best, best_at = a.storage[position], 0
                for j in range(1, a.shape[dim]):
                    position += a.strides[dim]
                    if better(a.storage[position], best):
                        best, best_at = a.storage[position], j
                values.storage[values.position(out_index)] = best
                indices.storage[indices.position(out_index)] = best_at

    def where(self, out: TensorData, condition: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[i] = a[i]$ where $condition[i]$ is true, else $b[i]$ (all broadcast)."""
        out_index = np.zeros(out.ndim, dtype=np.int64)
        index = np.zeros(out.ndim, dtype=np.int64)
        for ordinal in range(out.numel()):
            to_index(ordinal, out.shape_array, out_index)
            broadcast_index(out_index, out.shape_array, condition.shape_array, index)
            chosen = a if condition.storage[condition.position(index[: condition.ndim])] else b
            broadcast_index(out_index, out.shape_array, chosen.shape_array, index)
            value = chosen.storage[chosen.position(index[: chosen.ndim])]
            out.storage[out.position(out_index)] = value

    def matmul(self, out: TensorData, a: TensorData, b: TensorData) -> None:
        """$out[\\ldots, i, k] = \\sum_j a[\\ldots, i, j] \\, b[\\ldots, j, k]$.

        All three have the same number of dimensions (at least 2); the batch
        dimensions of `a` and `b` broadcast to `out`'s.
        """
        out_index = np.zeros(out.ndim, dtype=np.int64)
        a_index = np.zeros(out.ndim, dtype=np.int64)
        b_index = np.zeros(out.ndim, dtype=np.int64)
        inner = a.shape[-1]
        zero = out.storage.dtype.type(0)
        with np.errstate(all="ignore"):
            for ordinal in range(out.numel()):
                to_index(ordinal, out.shape_array, out_index)
                broadcast_index(out_index, out.shape_array, a.shape_array, a_index)
                broadcast_index(out_index, out.shape_array, b.shape_array, b_index)
                total = zero
                for j in range(inner):
                    a_index[-1] = j
                    b_index[-2] = j
                    a_value = a.storage[a.position(a_index)]
                    b_value = b.storage[b.position(b_index)]
                    total = total + a_value * b_value
                out.storage[out.position(out_index)] = total

    # -- gathering and scattering by storage position -------------------------

    def take(self, out: TensorData, a: TensorData, positions: TensorData) -> None:
        """$out[i] = a.storage[positions[i]]$ for every index $i$ of `out`."""
        index = np.zeros(out.ndim, dtype=np.int64)
        for ordinal in range(out.numel()):
            to_index(ordinal, out.shape_array, index)
            position = positions.storage[positions.position(index)]
            out.storage[out.position(index)] = a.storage[position]

    def put(
        self, a: TensorData, positions: TensorData, values: TensorData, accumulate: bool
    ) -> None:
        """$a.storage[positions[i]] = values[i]$ (or `+=`), in order, `values` broadcast."""
        self.put_reduce(added if accumulate else replaced, a, positions, values)

    def put_reduce(
        self, fn: Callable, a: TensorData, positions: TensorData, values: TensorData
    ) -> None:
        """$a.storage[positions[i]] = fn(a.storage[positions[i]], values[i])$, in order."""
        index = np.zeros(positions.ndim, dtype=np.int64)
        value_index = np.zeros(values.ndim, dtype=np.int64)
        with np.errstate(all="ignore"):
            for ordinal in range(positions.numel()):
                to_index(ordinal, positions.shape_array, index)
                broadcast_index(index, positions.shape_array, values.shape_array, value_index)
                position = positions.storage[positions.position(index)]
                a.storage[position] = fn(
                    a.storage[position], values.storage[values.position(value_index)]
                )

    # -- scans and sorting along one dimension ------------------------------

    def scan(self, fn: Callable, out: TensorData, a: TensorData, dim: int, start) -> None:
        """$out[i|j] = fn(\\ldots fn(fn(start, a[i|0]), a[i|1]) \\ldots, a[i|j])$ along `dim`.

        `out` has `a`'s shape; $a[i|j]$ is the element at position $j$ of the
        line along `dim` through index $i$.
        """
        for index in line_starts(a, dim):
            position = a.position(index)
            out_position = out.position(index)
            total = start
            with np.errstate(all="ignore"):
                for _ in range(a.shape[dim]):
                    total = fn(total, a.storage[position])
                    out.storage[out_position] = total
                    position += a.strides[dim]
                    out_position += out.strides[dim]

    def sort(
        self, values: TensorData, indices: TensorData, a: TensorData, dim: int, descending: bool
    ) -> None:
        """Each line along `dim` sorted stably (NaN largest), and the positions it came from."""
        for index in line_starts(a, dim):
            start = a.position(index)
            line = [a.storage[start + j * a.strides[dim]] for j in range(a.shape[dim])]
            # Python's sort is stable, also with reverse=True; NaN sorts as the largest
            order = sorted(
                range(len(line)),
                key=lambda j: (bool(math.isnan(line[j])), line[j]),
                reverse=descending,
            )
            v = values.position(index)
            i = indices.position(index)
            for j, source in enumerate(order):
                values.storage[v + j * values.strides[dim]] = line[source]
                indices.storage[i + j * indices.strides[dim]] = source

    def scatter_along(
        self, out: TensorData, source: TensorData, index: TensorData, dim: int
    ) -> None:
        """Each line of `source` along `dim` written to the positions its line of `index` names."""
        for at in line_starts(source, dim):
            s = source.position(at)
            i = index.position(at)
            o = out.position(at)
            for j in range(source.shape[dim]):
                position = o + int(index.storage[i + j * index.strides[dim]]) * out.strides[dim]
                out.storage[position] = source.storage[s + j * source.strides[dim]]

    def adam_step(self, param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, settings) -> None:
        """One Adam step of each element of the five contiguous layouts (`fused.py`)."""
        layouts = (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq)
        with np.errstate(all="ignore"):
            adam_loop(*(storage_at(x) for x in layouts), param.numel(), settings)


def line_starts(a: TensorData, dim: int):
    """The index of the first element of every line of `a` along `dim` (position 0 in `dim`)."""
    shape = np.array(a.shape, dtype=np.int64)
    lines = 0 if a.shape[dim] == 0 else a.numel() // a.shape[dim]
    shape[dim] = 1
    index = np.zeros(a.ndim, dtype=np.int64)
    for ordinal in range(lines):
        to_index(ordinal, shape, index)
        yield index
