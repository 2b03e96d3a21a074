"""Module 0: the `Module` tree that holds a model's parameters.

A `Module` owns child modules and `Parameter`s, found by attribute
assignment (`self.layer = Linear(2, 3)`), just like `torch.nn.Module`.
`named_parameters()` walks the tree and names each parameter by its dotted
path (`"layer.weight"`), `train()` and `eval()` set the `training` flag of the
whole tree, and calling a module calls its `forward`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class Parameter:
    """A value a model learns: a `Scalar` now, a `Tensor` later.

    The wrapper marks the value as trainable (`requires_grad`) so that
    backpropagation accumulates its gradient, and lets `update` swap in a new
    value while keeping it trainable.
    """

    def __init__(self, value: Any, name: str | None = None) -> None:
        self.value = value
        self.name = name
        self._mark_trainable()

    def update(self, value: Any) -> None:
        """Replace the wrapped value (e.g. after an optimizer step)."""
        self.value = value
        self._mark_trainable()

    def _mark_trainable(self) -> None:
        if hasattr(self.value, "requires_grad_"):
            self.value.requires_grad_(True)

    def __repr__(self) -> str:
        return repr(self.value)

    def __str__(self) -> str:
        return str(self.value)


class Module:
    """Base class of every model: a tree of child modules and parameters.

    Subclasses set parameters and children as attributes in `__init__` and
    define `forward`:

    >>> class Affine(Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.scale = Parameter(2.0)
    ...     def forward(self, x):
    ...         return self.scale.value * x
    >>> model = Affine()
    >>> model(3.0)
    6.0
    >>> [name for name, _ in model.named_parameters()]
    ['scale']
    """

    training: bool

    def __init__(self) -> None:
        # Written through __dict__ because __setattr__ files values into them.
        self.__dict__["_modules"] = {}
        self.__dict__["_parameters"] = {}
        self.__dict__["training"] = True

    def __setattr__(self, name: str, value: Any) -> None:
        if "_modules" not in self.__dict__:
            raise AttributeError(
                f"cannot assign {name!r} before Module.__init__() is called "
                f"(call super().__init__() first in {type(self).__name__}.__init__)"
            )
        # As in torch.nn.Module: a name lives in exactly one place, a replaced
        # parameter or child keeps its position, and a registered name only
        # accepts its own kind (or None, which unregisters the value but keeps the slot).
        if isinstance(value, Parameter):
            self._forget(name, keep="_parameters")
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._forget(name, keep="_modules")
            self._modules[name] = value
        elif name in self._parameters:
            self._check_none(value, name, "parameter", "minitorch.Parameter")
            self._parameters[name] = None
        elif name in self._modules:
            self._check_none(value, name, "child module", "minitorch.Module")
            self._modules[name] = None
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        """Remove `name` from every place but the registry `keep`."""
        self.__dict__.pop(name, None)
        for registry in ("_parameters", "_modules"):
            if registry != keep:
                self.__dict__[registry].pop(name, None)

    @staticmethod
    def _check_none(value: Any, name: str, kind: str, expected: str) -> None:
        if value is not None:
            raise TypeError(
                f"cannot assign '{type(value).__name__}' as {kind} '{name}' "
                f"({expected} or None expected)"
            )

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails: look in the registries.
        registries = self.__dict__
        for registry in ("_parameters", "_modules"):
            if name in registries.get(registry, {}):
                return registries[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def add_parameter(self, name: str, value: Any) -> Parameter:
        """Register `value` as a parameter called `name` and return the `Parameter`."""
        parameter = value if isinstance(value, Parameter) else Parameter(value, name)
        setattr(self, name, parameter)
        return parameter

    def children(self) -> Iterator[Module]:
        """The direct child modules, in the order they were assigned."""
        yield from self._modules.values()

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """This module and every descendant, depth first, with dotted names ("" for self).

        A module reachable along several paths is listed once, under its first name.
        """
        # BEGIN SOLUTION 0.4
        seen: set[int] = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
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

    def named_parameters(self) -> Iterator[tuple[str, Parameter]]:
        """Every parameter in the tree with its dotted path, e.g. `("layer1.weight", p)`.

        A parameter shared by several modules is listed once, so an optimizer
        steps it once.
        """
        # BEGIN SOLUTION 0.4
        seen: set[int] = set()
        for module_name, module in self.named_modules():
            for name, parameter in module._parameters.items():
                if parameter is None or id(parameter) in seen:
                    continue
                seen.add(id(parameter))
                yield (f"{module_name}.{name}" if module_name else name), parameter
        # END SOLUTION 0.4

    def parameters(self) -> Iterator[Parameter]:
        """Every parameter in the tree."""
        for _, parameter in self.named_parameters():
            yield parameter

    def train(self, mode: bool = True) -> Module:
        """Set `training = mode` on this module and all descendants; returns self."""
        # BEGIN SOLUTION 0.4
        for module in self.modules():
            module.__dict__["training"] = mode
        return self
        # END SOLUTION 0.4

    def eval(self) -> Module:
        """Set `training = False` on the whole tree; returns self."""
        return self.train(False)

    # -- devices and dtypes (the cuda backend) --------------------------------

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move every parameter of the tree, as `tensor.to(...)`: `model.to("cuda")`.

        Each `Parameter` keeps its identity and wraps the moved tensor, so an
        optimizer made before or after the move updates the tensors on the device.
        """
        for module in self.modules():
            for parameter in module._parameters.values():
                if parameter is not None and hasattr(parameter.value, "to"):
                    parameter.update(parameter.value.detach().to(*args, **kwargs))
        return self

    def cuda(self) -> Module:
        """Every parameter on the GPU: `to("cuda")`."""
        return self.to("cuda")

    def cpu(self) -> Module:
        """Every parameter on the CPU: `to("cpu")`."""
        return self.to("cpu")

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

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
        head = f"{type(self).__name__}("
        if not self._modules and len(lines) <= 1:
            return head + "".join(lines) + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"
