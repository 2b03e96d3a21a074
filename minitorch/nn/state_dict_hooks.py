"""Hooks of `Module.state_dict` and `Module.load_state_dict`, as PyTorch's. A state dict
pre-hook runs before a module's entries are collected, `hook(module, prefix, keep_vars)`,
and a post-hook after them and its children's, `hook(module, state_dict, prefix,
local_metadata)` (it may change the dict in place). A load pre-hook of a module sees (and
may change) the state dict before the module's entries are loaded, `hook(module, state_dict,
prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)`; a post-hook
sees the result, `hook(module, incompatible_keys)`, and may change its lists in place.
`nn.utils.parametrizations.weight_norm` uses a pre-hook to load the `weight_g`/`weight_v`
keys of `nn.utils.weight_norm`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .hooks import RemovableHandle, _add, _registry

EXTRA_STATE = "_extra_state"
_NEVER = (
    "Reached a code path in Module.{}() that should never be called. Please file an issue at "
    "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug."
)


class StateDictHooks:
    """The state dict hooks, the extra state and the unpickling of `Module` (a base class of
    it)."""

    def __setstate__(self, state: dict) -> None:
        """Unpickling: the pickled attributes, and an empty registry for each that a module
        pickled by an older minitorch lacks."""
        self.__dict__.update(state)
        for name in ("_parameters", "_buffers", "_modules"):
            self.__dict__.setdefault(name, {})
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("training", True)

    def get_extra_state(self) -> Any:
        """What a subclass that overrides this keeps in its state dict beside its tensors
        (under `_extra_state`), given back to its `set_extra_state` by `load_state_dict`."""
        raise RuntimeError(_NEVER.format("get_extra_state"))

    def set_extra_state(self, state: Any) -> None:
        """Take back what `get_extra_state` gave (overridden with it)."""
        raise RuntimeError(_NEVER.format("set_extra_state"))

    def _register_load_state_dict_pre_hook(
        self, hook: Callable, with_module: bool = False
    ) -> RemovableHandle:
        """`hook(state_dict, prefix, ...)`, or with `with_module` `hook(module, state_dict,
        prefix, ...)`, before this module's entries are loaded."""
        if with_module:
            module, bare = self, hook

            def hook(*args):
                return bare(module, *args)

        return _add(_registry(self, "_load_state_dict_pre_hooks"), hook, False)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Call `hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)` before this module's entries are loaded."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Call `hook(module, prefix, keep_vars)` before `state_dict` collects this module's
        entries."""
        return _add(_registry(self, "_state_dict_pre_hooks"), hook, False)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Call `hook(module, state_dict, prefix, local_metadata)` after `state_dict` has
        collected this module's entries and its children's; it changes the dict in place."""
        return _add(_registry(self, "_state_dict_hooks"), hook, False)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Call `hook(module, incompatible_keys)` after `load_state_dict` has matched the
        keys (before a `strict` load reports them); it changes the lists in place."""
        return _add(_registry(self, "_load_state_dict_post_hooks"), hook, False)


def run_load_pre_hooks(module: Any, state_dict: dict, prefix: str, *lists) -> None:
    """The module's pre-hooks; `lists` are the missing keys, unexpected keys and errors.
    Their `strict` is True, as PyTorch passes it (a non-strict load forgives at the end).

    As in PyTorch, they see the entries under the module's `prefix` only; what they remove
    or add there is removed from or added to `state_dict`."""
    hooks = list(module.__dict__.get("_load_state_dict_pre_hooks", {}).values())
    if not hooks:
        return
    local = {key: value for key, value in state_dict.items() if key.startswith(prefix)}
    for hook in hooks:
        hook(local, prefix, {}, True, *lists)
    for key in [key for key in state_dict if key.startswith(prefix) and key not in local]:
        del state_dict[key]
    state_dict.update(local)


def run_load_post_hooks(module: Any, incompatible_keys) -> None:
    for hook in list(module.__dict__.get("_load_state_dict_post_hooks", {}).values()):
        if hook(module, incompatible_keys) is not None:
            raise AssertionError(
                "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                "expected to return new values, if incompatible_keys need to be modified, "
                "it should be done inplace."
            )


def run_state_dict_pre_hooks(module: Any, prefix: str, keep_vars: bool) -> None:
    for hook in list(module.__dict__.get("_state_dict_pre_hooks", {}).values()):
        hook(module, prefix, keep_vars)


def run_state_dict_post_hooks(module: Any, state_dict: dict, prefix: str) -> None:
    for hook in list(module.__dict__.get("_state_dict_hooks", {}).values()):
        if hook(module, state_dict, prefix, {}) is not None:
            raise RuntimeError("state_dict post-hook must return None")


def overrides(module: Any, name: str) -> bool:
    """Whether the module's class overrides `StateDictHooks.<name>`."""
    return getattr(type(module), name) is not getattr(StateDictHooks, name)


def load_extra_state(module: Any, state_dict: dict, prefix: str, expected: set, missing: list):
    """Hand the module's `_extra_state` entry to its `set_extra_state` (missing if absent);
    a module that does not take one leaves the key unexpected."""
    if not overrides(module, "set_extra_state"):
        return
    key = prefix + EXTRA_STATE
    expected.add(key)
    if key in state_dict:
        module.set_extra_state(state_dict[key])
    else:
        missing.append(key)
