"""`FunctionLayer`: the base of layers that are one `nn.functional` call with stored options."""

from __future__ import annotations

from ..._tensor import Tensor
from ..module import Module


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
