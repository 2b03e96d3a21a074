"""Tensor hooks: functions that see (and may replace) a tensor's gradient in backward.

`t.register_hook(hook)` calls `hook(grad)` when the gradient with respect to `t` has been
computed, before it is used: a leaf's before it is added into `.grad` (or returned by
`autograd.grad`), a non-leaf's before the backward of the operation that made `t` runs.
A hook that returns a tensor replaces the gradient. `register_post_accumulate_grad_hook`
(leaves only) calls `hook(t)` after `.grad` has been updated, as optimizers-in-backward
do. Each returns a handle whose `remove()` takes the hook away.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable

_ids = itertools.count()
# id(leaf tensor) -> (weak reference to it, {handle id: hook}) for each kind of leaf hook
leaf_hooks: dict[int, tuple[weakref.ref, dict]] = {}
post_accumulate_hooks: dict[int, tuple[weakref.ref, dict]] = {}


class RemovableHandle:
    """Returned by a hook's registration; `remove()` takes the hook away again."""

    def __init__(self, hooks: dict, key: int) -> None:
        self._hooks = weakref.ref(hooks) if hasattr(hooks, "__weakref__") else lambda: hooks
        self.id = key

    def remove(self) -> None:
        hooks = self._hooks()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info) -> None:
        self.remove()


def hooks_of(table: dict, tensor) -> dict:
    """The hooks `table` keeps for `tensor` (made empty on first use, gone with the tensor)."""
    key = id(tensor)
    entry = table.get(key)
    if entry is None or entry[0]() is not tensor:
        ref = weakref.ref(tensor, lambda _, key=key: table.pop(key, None))
        entry = table[key] = (ref, {})
    return entry[1]


def register_hook(tensor, hook: Callable) -> RemovableHandle:
    """`Tensor.register_hook`: see the module docstring."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    node = tensor.grad_fn
    if node is None:
        hooks = hooks_of(leaf_hooks, tensor)
    else:
        if node.hooks is None:
            node.hooks = {}
        hooks = node.hooks
        hook = (node.output_nr(tensor) if node.outputs is not None else 0, hook)
    key = next(_ids)
    hooks[key] = hook
    return RemovableHandle(hooks, key)


def register_post_accumulate_grad_hook(tensor, hook: Callable) -> RemovableHandle:
    """`Tensor.register_post_accumulate_grad_hook`: `hook(tensor)` after `.grad` is updated."""
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    hooks = hooks_of(post_accumulate_hooks, tensor)
    key = next(_ids)
    hooks[key] = hook
    return RemovableHandle(hooks, key)


def hooked(hooks, gradient):
    """`gradient` after each hook in order (a hook returning None keeps it)."""
    for hook in list(hooks):
        changed = hook(gradient)
        if changed is not None:
            gradient = changed
    return gradient


def leaf_gradient(tensor, gradient):
    """A leaf's gradient after its hooks."""
    entry = leaf_hooks.get(id(tensor))
    if entry is None or entry[0]() is not tensor or not entry[1]:
        return gradient
    return hooked(entry[1].values(), gradient)


def after_accumulation(tensor) -> None:
    entry = post_accumulate_hooks.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        for hook in list(entry[1].values()):
            hook(tensor)
