"""The `Module` tree that holds a model's parameters (module 0).

A `Module` owns child modules, parameters and buffers, found by attribute
assignment (`self.layer = Linear(2, 3)`), just like `torch.nn.Module`.
`named_parameters()` walks the tree and names each parameter by its dotted
path (`"layer.weight"`), the keys of `state_dict()`; `train()` and `eval()`
set the `training` flag of the whole tree, and calling a module calls its
`forward`.

The learned values it holds, `Parameter` (a tensor) and `ScalarParameter`
(a number, for modules 0 and 1), and `Buffer` are in `parameter.py`.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .. import dtypes
from .._tensor import Tensor
from ..autograd import no_grad
from ..ops.copies import to_targets
from .hooks import ForwardHooks
from .parameter import Buffer, Parameter, ScalarParameter
from .state_dict_hooks import (
    EXTRA_STATE,
    StateDictHooks,
    load_extra_state,
    overrides,
    run_load_post_hooks,
    run_load_pre_hooks,
    run_state_dict_post_hooks,
    run_state_dict_pre_hooks,
)

_LearnedValue = (Parameter, ScalarParameter)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns: the keys it did not find and those it did not use."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _typename(value: Any) -> str:
    """torch.typename: `'minitorch.FloatTensor'` for a tensor, the class name otherwise."""
    return value.type() if isinstance(value, Tensor) else type(value).__name__


class Module(ForwardHooks, StateDictHooks):
    """Base class of every model: a tree of child modules, parameters and buffers.

    Subclasses set parameters and children as attributes in `__init__` and
    define `forward`:

    >>> import minitorch
    >>> class Affine(Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.scale = Parameter(minitorch.tensor([2.0]))
    ...     def forward(self, x):
    ...         return self.scale * x
    >>> model = Affine()
    >>> model(minitorch.tensor([3.0]))
    tensor([6.], grad_fn=<MulBackward0>)
    >>> [name for name, _ in model.named_parameters()]
    ['scale']
    """

    training: bool

    def __init__(self) -> None:
        # Written through __dict__ because __setattr__ files values into them.
        self.__dict__["_parameters"] = {}
        self.__dict__["_buffers"] = {}
        self.__dict__["_non_persistent_buffers_set"] = set()
        self.__dict__["_modules"] = {}
        self.__dict__["training"] = True

    # ------------------------------------------------------------------ attributes

    def __setattr__(self, name: str, value: Any) -> None:
        if "_modules" not in self.__dict__:
            raise AttributeError(
                f"cannot assign {name!r} before Module.__init__() is called "
                f"(call super().__init__() first in {type(self).__name__}.__init__)"
            )
        # As in torch.nn.Module: a name lives in exactly one place, a replaced
        # parameter, buffer or child keeps its position, and a registered name only
        # accepts its own kind (or None, which unregisters the value but keeps the slot).
        if isinstance(value, _LearnedValue):
            self._forget(name, keep="_parameters")
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._forget(name, keep="_modules")
            self._modules[name] = value
        elif isinstance(value, Buffer):
            self._forget(name, keep="_buffers")
            self._buffers[name] = value
            if not value.persistent:
                self._non_persistent_buffers_set.add(name)
        elif name in self._parameters:
            self._check_none(value, name, "parameter", "minitorch.nn.Parameter")
            self._parameters[name] = None
        elif name in self._modules:
            self._check_none(value, name, "child module", "minitorch.nn.Module")
            self._modules[name] = None
        elif name in self._buffers:
            if not isinstance(value, Tensor):
                self._check_none(value, name, "buffer", "minitorch.nn.Buffer, minitorch.Tensor")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        """Remove `name` from every place but the registry `keep` (and its persistence)."""
        self.__dict__.pop(name, None)
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry != keep:
                self.__dict__[registry].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    @staticmethod
    def _check_none(value: Any, name: str, kind: str, expected: str) -> None:
        if value is not None:
            raise TypeError(
                f"cannot assign '{_typename(value)}' as {kind} '{name}' "
                f"({expected} or None expected)"
            )

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails: look in the registries.
        registries = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if name in registries.get(registry, {}):
                return registries[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def _check_new_name(self, name: Any, kind: str, registry: str) -> None:
        """torch's checks on a name given to `register_*`/`add_module`."""
        if "_modules" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            got = f", got: {name}" if kind == "module" else ""
            raise KeyError(f'{kind} name can\'t contain "."{got}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(f"attribute '{name}' already exists")

    def _register(self, name: str, value: Any, kind: str, registry: str, required: str) -> None:
        """File `value` under `name` in `registry` after torch's checks of both: a parameter
        is None or a `Parameter`, a buffer None or a `Tensor` (`required` in the error)."""
        self._check_new_name(name, kind, registry)
        allowed = _LearnedValue if registry == "_parameters" else Tensor
        if value is not None and not isinstance(value, allowed):
            raise TypeError(
                f"cannot assign '{_typename(value)}' object to {kind} '{name}' "
                f"({required} or None required)"
            )
        self._forget(name, keep=registry)
        self.__dict__[registry][name] = value

    def register_parameter(self, name: str, param: Parameter | ScalarParameter | None) -> None:
        """Add `param` (a `Parameter`, or None for an empty slot) under `name`."""
        self._register(name, param, "parameter", "_parameters", "minitorch.nn.Parameter")

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor the module keeps but does not learn (e.g. running statistics).

        A persistent buffer is part of `state_dict()`; a non-persistent one is not.
        """
        self._register(name, tensor, "buffer", "_buffers", "minitorch Tensor")
        if not persistent:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under `name` (as `self.name = module`)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_new_name(name, "module", "_modules")
        self._forget(name, keep="_modules")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The module at the dotted path `target` ("" is this module)."""
        module = self
        for item in target.split(".") if target else []:
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path `target` (`"layer.weight"`)."""
        module, name = self._owner_of(target)
        if not isinstance(getattr(module, name), Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return getattr(module, name)

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path `target` (`"norm.running_mean"`)."""
        module, name = self._owner_of(target)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    def _owner_of(self, target: str) -> tuple[Module, str]:
        """The module holding the attribute at `target`, and the attribute's name."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        return module, name

    # ------------------------------------------------------------------ walking the tree

    def children(self) -> Iterator[Module]:
        """The direct child modules, in the order they were assigned."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct child modules with their names (each module once)."""
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """This module and every descendant, depth first, with dotted names ("" for self).

        A module reachable along several paths is listed once, under its first
        name (every time with `remove_duplicate=False`); `memo` holds the modules
        already listed.
        """
        # BEGIN SOLUTION 0.4
        seen = set() if memo is None else memo
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if module in seen:
                    continue
                seen.add(module)
            yield name, module
            children = [
                (f"{name}.{child_name}" if name else child_name, child)
                for child_name, child in module._modules.items()
                if child is not None
            ]
            stack.extend(reversed(children))
        # END SOLUTION 0.4

    def modules(self) -> Iterator[Module]:
        """This module and every descendant, depth first."""
        for _, module in self.named_modules():
            yield module

    def _named_members(
        self,
        members_of: Callable[[Module], Iterator[tuple[str, Any]]],
        prefix: str,
        recurse: bool,
        remove_duplicate: bool,
    ) -> Iterator[tuple[str, Any]]:
        """`(dotted name, member)` for the members (`members_of(module)`) of each module of
        the tree (only this one without `recurse`), a shared member listed once unless not
        `remove_duplicate`."""
        # BEGIN SOLUTION 0.4
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        seen: set[int] = set()
        for module_name, module in modules:
            for name, member in members_of(module):
                if member is None or (remove_duplicate and id(member) in seen):
                    continue
                seen.add(id(member))
                yield (f"{module_name}.{name}" if module_name else name), member
        # END SOLUTION 0.4

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """Every parameter in the tree with its dotted path, e.g. `("layer1.weight", p)`.

        A parameter shared by several modules is listed once, so an optimizer
        steps it once.
        """
        yield from self._named_members(
            lambda module: module._parameters.items(), prefix, recurse, remove_duplicate
        )

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter in the tree (of this module only without `recurse`)."""
        for _, parameter in self.named_parameters(recurse=recurse):
            yield parameter

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """Every buffer in the tree with its dotted path."""
        yield from self._named_members(
            lambda module: module._buffers.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer in the tree (of this module only without `recurse`)."""
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    # ------------------------------------------------------------------ modes and gradients

    def train(self, mode: bool = True) -> Module:
        """Set `training = mode` on this module and all descendants; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        # BEGIN SOLUTION 0.4
        for module in self.modules():
            module.__dict__["training"] = mode
        return self
        # END SOLUTION 0.4

    def eval(self) -> Module:
        """Set `training = False` on the whole tree; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set `requires_grad` of every tensor parameter (False freezes the module); returns
        self."""
        for parameter in self.parameters():
            if isinstance(parameter, Tensor):
                parameter.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the parameters' gradients: set them to None, or to zeros."""
        for parameter in self.parameters():
            if not isinstance(parameter, Tensor) or parameter.grad is None:
                continue
            if set_to_none:
                parameter.grad = None
            else:
                parameter.grad = parameter.grad.detach()
                parameter.grad.zero_()

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call `fn` on every child (recursively) and then on this module; returns self.

        Typical use: `model.apply(init_weights)`.
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ dtype and device

    def _apply(self, convert: Callable[[Tensor], Tensor]) -> Module:
        """Replace every parameter's and buffer's data (and gradient) by `convert` of it.

        A parameter stays the same object, so optimizers that hold it still see it.
        """
        for module in self.modules():
            for parameter in module._parameters.values():
                if not isinstance(parameter, Tensor):
                    continue
                with no_grad():
                    parameter.data = convert(parameter.detach())
                    if parameter.grad is not None:
                        parameter.grad = convert(parameter.grad.detach())
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    module._buffers[name] = convert(buffer)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move and/or cast the parameters and buffers: `to(device)`, `to(dtype)`,
        `to(device, dtype)` or `to(tensor)`; only floating-point values change dtype."""
        dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
        target_dtype, target_device = to_targets(args, dtype, device)
        if target_dtype is not None:
            target_dtype = dtypes.to_dtype(target_dtype)
            if not target_dtype.is_floating_point:
                raise TypeError(
                    "nn.Module.to only accepts floating point or complex dtypes, but got "
                    f"desired dtype={target_dtype}"
                )

        def convert(t: Tensor) -> Tensor:
            cast = target_dtype if t.is_floating_point() else None
            return t.to(device=target_device, dtype=cast)

        return self._apply(convert)

    def float(self) -> Module:
        """Cast floating-point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        """Cast floating-point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def cpu(self) -> Module:
        """Move the parameters and buffers to the CPU."""
        return self._apply(lambda t: t.cpu())

    def cuda(self) -> Module:
        """Move the parameters and buffers to the GPU."""
        return self._apply(lambda t: t.cuda())

    # ------------------------------------------------------------------ state_dict

    def state_dict(
        self, destination: dict | None = None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict:
        """The parameters and persistent buffers by dotted name (each key `prefix` + its
        path), PyTorch's keys and order, between each module's state dict hooks.

        The tensors share storage with the model (detached unless `keep_vars`).
        """
        state = OrderedDict() if destination is None else destination
        run_state_dict_pre_hooks(self, prefix, keep_vars)
        for name, value in self._state_items():
            if isinstance(value, ScalarParameter):
                value = value.value
            elif isinstance(value, Tensor) and not keep_vars:
                value = value.detach()
            state[prefix + name] = value
        if overrides(self, "get_extra_state"):
            state[prefix + EXTRA_STATE] = self.get_extra_state()
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=state, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        run_state_dict_post_hooks(self, state, prefix)
        return state

    def _state_items(self) -> Iterator[tuple[str, Any]]:
        """This module's own entries of `state_dict`: parameters, then persistent buffers."""
        for name, parameter in self._parameters.items():
            if parameter is not None:
                yield name, parameter
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                yield name, buffer

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy `state_dict`'s tensors into the parameters and buffers of the same names.

        With `strict`, a missing or unexpected key is an error (torch's text);
        a shape mismatch always is. Returns the missing and unexpected keys.
        With `assign`, the given tensors replace the model's (nothing is copied).
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        state_dict = OrderedDict(state_dict)  # a copy: pre-hooks may rename its keys
        expected, errors, missing, unexpected = set(), [], [], []
        modules = list(self.named_modules(remove_duplicate=False))
        for module_name, module in modules:
            dotted = f"{module_name}." if module_name else ""
            run_load_pre_hooks(module, state_dict, dotted, missing, unexpected, errors)
            for name, value in list(module._state_items()):
                key = dotted + name
                expected.add(key)
                if key not in state_dict:
                    missing.append(key)
                    continue
                error = module._load_entry(name, value, key, state_dict[key], assign)
                if error:
                    errors.append(error)
            load_extra_state(module, state_dict, dotted, expected, missing)
        unexpected += [key for key in state_dict if key not in expected]
        result = _IncompatibleKeys(missing, unexpected)
        for _, module in reversed(modules):
            run_load_post_hooks(module, result)
        if strict:
            if unexpected:
                names = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {names}. ")
            if missing:
                names = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {names}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {self._get_name()}:\n\t" + "\n\t".join(errors)
            )
        return result

    def _load_entry(self, name: str, current: Any, key: str, given: Any, assign: bool) -> str:
        """Load one `state_dict` entry into this module's `name`; the error text, or ""."""
        if isinstance(current, ScalarParameter):
            current.update(given.value if isinstance(given, ScalarParameter) else given)
            return ""
        if not isinstance(given, Tensor):
            return (
                f'While copying the parameter named "{key}", expected minitorch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(given)}"
            )
        if given.shape != current.shape:
            return (
                f"size mismatch for {key}: copying a param with shape {given.shape} from "
                f"checkpoint, the shape in current model is {current.shape}."
            )
        if assign:
            if isinstance(current, Parameter):
                setattr(self, name, Parameter(given.detach(), current.requires_grad))
            else:
                self._buffers[name] = given
            return ""
        try:
            with no_grad():
                current.copy_(given)
        except Exception as error:  # noqa: BLE001 -- reported in torch's words, with the key
            return (
                f'While copying the parameter named "{key}", whose dimensions in the model are '
                f"{current.shape} and whose dimensions in the checkpoint are {given.shape}, an "
                f"exception occurred : {error.args}."
            )
        return ""

    # ------------------------------------------------------------------ calling and printing

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """`forward`, between the forward hooks when there are any (see `hooks.py`)."""
        return self._call_with_hooks(self.forward, args, kwargs)

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """Text shown inside this module's parentheses in `repr` (override to add detail)."""
        return ""

    def __repr__(self) -> str:
        """torch.nn.Module's layout: one line when there are no children, else
        the extra text and each `(name): child` on indented lines."""
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, child in self._modules.items():
            child_text = repr(child).replace("\n", "\n  ")
            lines.append(f"({name}): {child_text}")
        head = f"{self._get_name()}("
        if not self._modules and len(lines) <= 1:
            return head + "".join(lines) + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        names = set(super().__dir__())
        names.update(self._parameters, self._buffers, self._modules)
        return sorted(name for name in names if not name[0].isdigit())
