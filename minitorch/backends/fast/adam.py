"""`FastBackend`'s fused Adam step (its optional kernel `adam_step`): `fused.adam_element`
over every element of a parameter in one parallel pass over memory.
"""

from __future__ import annotations

from numba import prange

from ..fused import AMSGRAD, adam_element
from ..kernel_cache import compile_kernel, make_jitable
from .layout import _chunk_bounds, _pos

make_jitable(adam_element)


def _adam_kernel(w, i, g, j, m, k, v, l, v_max, n, size, settings, n_chunks):  # noqa: E741
    """`adam_element` over `size` elements, `n_chunks` chunks in parallel.

    Without amsgrad `v_max` is `v` and is not written: two stores to one array in
    an iteration keep LLVM from vectorizing the loop.
    """
    amsgrad = settings[AMSGRAD] != 0
    for chunk in prange(n_chunks):
        begin, end = _chunk_bounds(size, n_chunks, chunk)
        if amsgrad:
            for e in range(begin, end):
                a, b, c, d, f = _pos(i + e), _pos(j + e), _pos(k + e), _pos(l + e), _pos(n + e)
                w[a], m[c], v[d], v_max[f] = adam_element(
                    w[a], g[b], m[c], v[d], v_max[f], settings
                )
        else:
            for e in range(begin, end):
                a, b, c, d = _pos(i + e), _pos(j + e), _pos(k + e), _pos(l + e)
                w[a], m[c], v[d], _ = adam_element(w[a], g[b], m[c], v[d], v[d], settings)


ADAM_KERNELS = (
    compile_kernel(_adam_kernel, adam_element, False),
    compile_kernel(_adam_kernel, adam_element, True),
)
