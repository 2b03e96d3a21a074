"""`Optimizer`: the base class that holds the parameters an optimizer updates."""

from __future__ import annotations

from collections.abc import Iterable

from .._tensor import Tensor


def _tensors(params: Iterable) -> list[Tensor]:
    """The tensors of `params`: tensors, or `nn.Parameter`s (whose tensor is `.value`)."""
    tensors = [getattr(p, "value", p) for p in params]
    if not tensors:
        raise ValueError("optimizer got an empty parameter list")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(
                f"optimizer can only optimize Tensors, but one of the params is "
                f"{type(t).__module__}.{type(t).__name__}"
            )
    return tensors


class Optimizer:
    """Holds `params` and `defaults` (the hyperparameters); subclasses write `step`."""

    def __init__(self, params: Iterable, defaults: dict) -> None:
        self.params = _tensors(params)
        self.defaults = dict(defaults)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of the last backward (set them to None, or to zeros)."""
        for p in self.params:
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.zero_()

    def step(self) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        settings = "".join(f"    {k}: {v}\n" for k, v in sorted(self.defaults.items()))
        return f"{type(self).__name__} (\nParameter Group 0\n{settings})"
