"""`FunctionLayer`, the base of layers that are one `nn.functional` call with stored options,
and `changed_options`, the part of a layer's repr that lists its non-default options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._tensor import Tensor
from ..module import Module


def changed_options(module: Module, defaults: Mapping[str, Any]) -> str:
    """`, name=value` for each option of `module` in `defaults` (in that order) whose value
    is not its default, as torch's reprs list them: a bool or None default is compared by
    identity, any other by equality."""
    text = ""
    for name, default in defaults.items():
        value = getattr(module, name)
        by_identity = default is None or isinstance(default, bool)
        same = value is default if by_identity else value == default
        if not same:
            text += f", {name}={value}"
    return text


class FunctionLayer(Module):
    """A layer whose forward is `function(input, *options)`: the attributes named by
    `OPTIONS`, in that order, set by the subclass's `__init__` (which keeps torch's signature).
    Its repr lists them as torch's `name=value`, with an `inplace` option shown only when set."""

    OPTIONS: tuple[str, ...] = ()

    @staticmethod
    def function(input: Tensor, *options) -> Tensor:  # noqa: A002
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self).function(input, *(getattr(self, name) for name in self.OPTIONS))

    def extra_repr(self) -> str:
        values = {name: getattr(self, name) for name in self.OPTIONS}
        if not values.get("inplace", True):
            del values["inplace"]
        return ", ".join(f"{name}={value}" for name, value in values.items())
