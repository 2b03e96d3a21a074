"""`minitorch.nn.utils.parametrize`, as `torch.nn.utils.parametrize`: a parameter or buffer
seen through functions of what is stored.

After `register_parametrization(module, "weight", p)`, reading `module.weight` computes
`p(original)`, where `original` (or `original0`, `original1`, ... when `p.right_inverse`
returns several tensors) is what the module stores, under
`module.parametrizations.weight`; assigning `module.weight = w` stores
`p.right_inverse(w)`. As in PyTorch, the module's class becomes a subclass,
`Parametrized<Class>`, that holds the property, and the state dict keys become
`parametrizations.weight.original` (or `original0`, ...).

>>> import minitorch
>>> from minitorch import nn
>>> class Symmetric(nn.Module):
...     def forward(self, x):
...         return x.triu() + x.triu(1).T
>>> layer = register_parametrization(nn.Linear(2, 2, bias=False), "weight", Symmetric())
>>> bool((layer.weight == layer.weight.T).all())
True
>>> list(layer.state_dict())
['parametrizations.weight.original']
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Sequence

from ..._tensor import Tensor
from ...autograd import no_grad
from ..module import Module
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

# how many `cached()` blocks are open, and what each parametrized tensor computed in them
_cache_depth = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside this block each parametrized tensor is computed once, on first access, and the
    same tensor is returned after (a model that reads a weight several times in one forward)."""
    global _cache_depth, _cache
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_values(destination: Tensor, source: Tensor) -> None:
    """`destination` (the stored tensor, kept the same object) holds `source`'s values."""
    if destination is not source:
        destination.data = source.detach()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the stored tensors they
    start from (`original`, or `original0`, `original1`, ...)."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new.dtype != dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {dtype}\nright_inverse(original).dtype: {new.dtype}"
                )
            with no_grad():
                _set_values(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        f"(list, tuple...). Got element {i} of the sequence with type "
                        f"{type(value).__name__}."
                    )
                if isinstance(original, Parameter):
                    value = Parameter(value.detach(), original.requires_grad)
                value.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", value)
        if not unsafe:
            result = self()
            _check_same_kind(result, dtype, shape)

    def right_inverse(self, value: Tensor) -> None:
        """Store `value` through the `right_inverse`s of the parametrizations, last first."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}"
                    )
                _set_values(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors. "
                    f"Got {type(value).__name__}."
                )
            if len(value) != self.ntensors:
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors of length "
                    f"{self.ntensors}. Got a sequence of length {len(value)}."
                )
            for i, tensor in enumerate(value):
                stored = getattr(self, f"original{i}")
                if tensor.dtype != stored.dtype:
                    raise ValueError(
                        f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                        f"while `original{i}` has dtype {stored.dtype}"
                    )
                _set_values(stored, tensor)

    def forward(self) -> Tensor:
        """The parametrized tensor: the first parametrization of the stored tensors, then
        each next one of the result."""
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _check_same_kind(result, dtype, shape) -> None:
    """PyTorch's errors for a parametrization that changes the tensor's dtype or shape."""
    if not isinstance(result, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
    for what, before, after in (("dtype", dtype, result.dtype), ("shape", shape, result.shape)):
        if before != after:
            raise ValueError(
                f"Registering a parametrization may not change the {what} of the tensor, "
                "unless `unsafe` flag is enabled.\n"
                f"unparametrized {what}: {before}\nparametrized {what}: {after}"
            )


def _check_next(parametrization: Module, current: Tensor, tensor_name: str) -> None:
    """PyTorch's errors for a further parametrization of `module.<tensor_name>` (now
    `current`) that changes its dtype or shape, or whose right inverse does."""
    result = parametrization(current)
    if not isinstance(result, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
    for what in ("dtype", "shape"):
        before, after = getattr(current, what), getattr(result, what)
        if before != after:
            raise ValueError(
                f"Registering a parametrization may not change the {what} of the tensor, "
                "unless the `unsafe` flag is enabled.\n"
                f"module.{tensor_name}.{what}: {before}\n"
                f"parametrization(module.{tensor_name}).{what}: {after}"
            )
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        inverse = parametrization.right_inverse(result)
    except NotImplementedError:
        return
    if not isinstance(inverse, Tensor):
        raise ValueError(
            f"parametrization.right_inverse must return a tensor. Got: {type(inverse).__name__}"
        )
    for what in ("dtype", "shape"):
        before, after = getattr(current, what), getattr(inverse, what)
        if before != after:
            raise ValueError(
                "The tensor returned by parametrization.right_inverse must have the same "
                f"{what} as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                f"module.{tensor_name}.{what}: {before}\nreturned {what}: {after}"
            )


def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _deepcopy(self, memo: dict):
    """A copy of a parametrized module: its attributes deep-copied (pickling, the default
    way, is refused)."""
    if id(self) in memo:
        return memo[id(self)]
    replica = type(self).__new__(type(self))
    memo[id(self)] = replica
    object.__setattr__(replica, "__dict__", copy.deepcopy(self.__dict__, memo))
    return replica


def _inject_property(module: Module, tensor_name: str) -> None:
    """`module.<tensor_name>` reads the parametrized tensor and assigning it stores its
    right inverse: a property of the module's own `Parametrized<Class>`."""

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get_parametrized, set_original))


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Make `module.<tensor_name>` read `parametrization(original)` (see the module
    docstring); a second parametrization of the same tensor is applied after the first.
    Unless `unsafe`, the parametrization may not change the tensor's dtype or shape."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_next(parametrization, getattr(module, tensor_name), tensor_name)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            cls = type(module)
            methods = {"__getstate__": _refuse_pickling}
            if not hasattr(cls, "__deepcopy__"):
                methods["__deepcopy__"] = _deepcopy
            module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), methods)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a "
            f"parametrized element with name '{tensor_name}'"
        )
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether `module` has a parametrization on `tensor_name` (on any tensor for None)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Undo `register_parametrization`: `module.<tensor_name>` becomes a plain parameter (or
    buffer) again, holding its parametrized value (`leave_parametrized`) or the stored one.
    The last one removed gives the module its own class back."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                _set_values(original, getattr(module, tensor_name))
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value.detach()) if value.requires_grad else value
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
            "parametrized in terms of a sequence of tensors."
        )
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before it was parametrized (its class when it is not)."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)
