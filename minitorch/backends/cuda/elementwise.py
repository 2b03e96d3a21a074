"""The GPU's where, fill and fused Adam step: one thread per output element."""

from __future__ import annotations

from collections.abc import Callable

import numba

from ..fused import adam_element
from .compiler import MAX_DIMS, device_function, index_functions, thread_index_function
from .driver import cuda


def cuda_where() -> Callable:
    """The body of the where kernel: $out_i = a_i$ where $condition_i$, else $b_i$."""
    _, index_to_position, broadcast_index = index_functions()
    thread_index = thread_index_function()

    def _where(
        out, out_shape, out_strides, out_offset, out_size,
        c, c_shape, c_strides, c_offset,
        a, a_shape, a_strides, a_offset,
        b, b_shape, b_strides, b_offset,
    ):  # fmt: skip
        out_index = cuda.local.array(MAX_DIMS, numba.int64)[: len(out_shape)]
        if not thread_index(out_size, out_shape, out_index):
            return
        index = cuda.local.array(MAX_DIMS, numba.int64)
        broadcast_index(out_index, out_shape, c_shape, index[: len(c_shape)])
        if c[c_offset + index_to_position(index[: len(c_shape)], c_strides)]:
            broadcast_index(out_index, out_shape, a_shape, index[: len(a_shape)])
            value = a[a_offset + index_to_position(index[: len(a_shape)], a_strides)]
        else:
            broadcast_index(out_index, out_shape, b_shape, index[: len(b_shape)])
            value = b[b_offset + index_to_position(index[: len(b_shape)], b_strides)]
        out[out_offset + index_to_position(out_index, out_strides)] = value

    return _where


def cuda_fill() -> Callable:
    """The body of the fill kernel: every element of a 1-D array set to `value`."""

    def _fill(out, value):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = value

    return _fill


def cuda_adam() -> Callable:
    """The body of the fused Adam step: thread $e$ runs `fused.adam_element` on element $e$ of
    the parameter `w`, its gradient `g`, the moments `m` and `v` and the largest second moment
    `v_max` (`v` itself without amsgrad), each a storage read from its offset."""
    adam = device_function(adam_element)

    def _adam(w, i, g, j, m, k, v, l, v_max, n, size, settings):  # noqa: E741
        e = cuda.grid(1)
        if e < size:
            w[i + e], m[k + e], v[l + e], v_max[n + e] = adam(
                w[i + e], g[j + e], m[k + e], v[l + e], v_max[n + e], settings
            )

    return _adam
