"""The tangents of dual tensors (forward-mode AD) and the dual level they live in.

`minitorch.autograd.forward_ad` makes dual tensors and moves tangents through the
operations; this table only records which tensor carries which tangent, so that printing
(`tensor([1., 2.], tangent=tensor([1., 0.]))`) and in-place writes below the autograd
layer can see them. There is one level at a time, as in PyTorch; leaving it drops every
tangent.
"""

from __future__ import annotations

import weakref


class _DualLevel:
    level: int | None = None  # the open level, None outside `dual_level()`
    propagating = False  # inside the forward of an operation whose tangent is being found


dual_state = _DualLevel()
# id(tensor) -> (a weak reference to the tensor, its tangent)
_tangents: dict[int, tuple[weakref.ref, object]] = {}


def tangent_of(t):
    """The tangent `t` carries at the open level, or None."""
    entry = _tangents.get(id(t))
    if entry is None or entry[0]() is not t:
        return None
    return entry[1]


def set_tangent(t, tangent) -> None:
    """Make `t` carry `tangent` (None: no tangent) until the level closes or `t` is freed."""
    key = id(t)
    if tangent is None:
        _tangents.pop(key, None)
        return
    _tangents[key] = (weakref.ref(t, lambda _, key=key: _tangents.pop(key, None)), tangent)


def drop_all_tangents() -> None:
    _tangents.clear()
