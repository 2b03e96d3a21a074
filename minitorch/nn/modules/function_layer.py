"""`FunctionLayer`, the base of layers that are one `nn.functional` call with stored options,
and the repr helpers `options_repr` (torch's `name=value, ...`) and `changed_options` (the
non-default options only)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..._tensor import Tensor
from ..module import Module


def options_repr(module: Module, names: Iterable[str]) -> str:
    """`name=value, ...` for the options `names` of `module`, as torch's reprs show them."""
    return ", ".join(f"{name}={getattr(module, name)}" for name in names)


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
        names = [name for name in self.OPTIONS if name != "inplace" or self.inplace]
        return options_repr(self, names)
