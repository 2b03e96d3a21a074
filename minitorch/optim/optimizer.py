"""`Optimizer`: the base class that holds the parameters an optimizer updates."""

from __future__ import annotations

from collections.abc import Iterable

from .._tensor import Tensor


def _tensors(params: Iterable) -> list[Tensor]:
    """`params` as a list of tensors (an `nn.Parameter` is one).

    Each must be a leaf: an optimizer changes it in place, and stepping a tensor computed
    from others would change a copy the model never reads.
    """
    if isinstance(params, Tensor):
        raise TypeError(
            "params argument given to the optimizer should be an iterable of Tensors or dicts, "
            f"but got {params.type()}"
        )
    tensors = list(params)
    if not tensors:
        raise ValueError("optimizer got an empty parameter list")
    for t in tensors:
        if not isinstance(t, Tensor):
            kind = type(t).__qualname__
            if type(t).__module__ != "builtins":
                kind = f"{type(t).__module__}.{kind}"
            raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {kind}")
        if not t.is_leaf:
            raise ValueError("can't optimize a non-leaf Tensor")
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
