"""Forward hooks of a `Module`: functions called around its `forward`, as PyTorch's
`register_forward_pre_hook` and `register_forward_hook` (to inspect activations, change
inputs or outputs, count calls), each removed through the handle it returns; and the
registration of its full backward hooks (`backward_hooks.py` runs them)."""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .backward_hooks import BackwardHook, has_backward_hooks

_ids = itertools.count()


class RemovableHandle:
    """What registering a hook returns: `remove()` (or leaving a `with` block) unregisters it."""

    def __init__(self, registry: OrderedDict, *extra: dict) -> None:
        self.id = next(_ids)
        self._registries = (registry, *extra)

    def remove(self) -> None:
        for registry in self._registries:
            registry.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.remove()


def _registry(module: Any, name: str) -> OrderedDict:
    """The module's hook table `name`, made on first use (a module built before any hook
    was registered, or unpickled, has none)."""
    return module.__dict__.setdefault(name, OrderedDict())


def _add(registry: OrderedDict, hook: Callable, prepend: bool, *flags: dict) -> RemovableHandle:
    handle = RemovableHandle(registry, *flags)
    registry[handle.id] = hook
    if prepend:
        registry.move_to_end(handle.id, last=False)
    return handle


class ForwardHooks:
    """The forward hooks of `Module` (a base class of it)."""

    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call `hook(module, args)` before each `forward`; what it returns (other than
        None) replaces the positional inputs (a non-tuple as the one input). With
        `with_kwargs`, `hook(module, args, kwargs)` returns None or `(args, kwargs)`."""
        registry = _registry(self, "_forward_pre_hooks")
        with_kwargs_ids = _registry(self, "_forward_pre_hooks_with_kwargs")
        handle = _add(registry, hook, prepend, with_kwargs_ids)
        if with_kwargs:
            with_kwargs_ids[handle.id] = True
        return handle

    def register_forward_hook(
        self,
        hook: Callable,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Call `hook(module, args, output)` after each `forward`; what it returns (other
        than None) replaces the output. With `with_kwargs`, `hook(module, args, kwargs,
        output)`; with `always_call`, it runs even when `forward` raised."""
        registry = _registry(self, "_forward_hooks")
        with_kwargs_ids = _registry(self, "_forward_hooks_with_kwargs")
        always_ids = _registry(self, "_forward_hooks_always_called")
        handle = _add(registry, hook, prepend, with_kwargs_ids, always_ids)
        if with_kwargs:
            with_kwargs_ids[handle.id] = True
        if always_call:
            always_ids[handle.id] = True
        return handle

    def register_full_backward_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Call `hook(module, grad_output)` when the gradients of the module's outputs are
        computed; what it returns (other than None) replaces them in the backward pass."""
        return _add(_registry(self, "_backward_pre_hooks"), hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call `hook(module, grad_input, grad_output)` when the gradients of the module's
        tensor inputs are computed; what it returns (other than None) replaces
        `grad_input`."""
        return _add(_registry(self, "_backward_hooks"), hook, prepend)

    def _call_with_hooks(self, forward: Callable, args: tuple, kwargs: dict) -> Any:
        """`forward(*args, **kwargs)` between the pre-hooks and the hooks, its inputs and
        outputs passed through the backward hooks' nodes when there are backward hooks."""
        pre_hooks = self.__dict__.get("_forward_pre_hooks")
        hooks = self.__dict__.get("_forward_hooks")
        backward_hook = BackwardHook(self) if has_backward_hooks(self) else None
        if not pre_hooks and not hooks and backward_hook is None:
            return forward(*args, **kwargs)
        for key, hook in list((pre_hooks or {}).items()):
            if key in self.__dict__["_forward_pre_hooks_with_kwargs"]:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {result}."
                        )
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        if backward_hook is not None:
            args = backward_hook.setup_input(args)
        try:
            output = forward(*args, **kwargs)
        except Exception:
            always = self.__dict__.get("_forward_hooks_always_called", {})
            for key, hook in list((hooks or {}).items()):
                if key in always:
                    self._run_forward_hook(key, hook, args, kwargs, None)
            raise
        for key, hook in list((hooks or {}).items()):
            result = self._run_forward_hook(key, hook, args, kwargs, output)
            if result is not None:
                output = result
        return output if backward_hook is None else backward_hook.setup_output(output)

    def _run_forward_hook(
        self, key: int, hook: Callable, args: tuple, kwargs: dict, output: Any
    ) -> Any:
        if key in self.__dict__["_forward_hooks_with_kwargs"]:
            return hook(self, args, kwargs, output)
        return hook(self, args, output)
