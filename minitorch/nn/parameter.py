"""The learned values a `Module` holds: `Parameter` and `Buffer` (tensors, as in
`torch.nn.parameter`) and `ScalarParameter` (a number, for modules 0 and 1).

- `Parameter`, as `torch.nn.Parameter`: a `Tensor` (it *is* one) that a
  module registers; what every layer of `minitorch.nn` holds.
- `Buffer`, as `torch.nn.Buffer`: a tensor a module keeps and moves with it
  but does not learn.
- `ScalarParameter`: a holder for a plain number or a module-1 `Scalar`, for
  the models of modules 0 and 1, written before tensors exist.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..tensors.creation import empty


class Parameter(Tensor):
    """A tensor that a `Module` registers as a learned weight (`torch.nn.Parameter`).

    It shares `data`'s storage, is a leaf, and requires grad unless told not to;
    operations on it give plain tensors.

    >>> import minitorch
    >>> p = minitorch.nn.Parameter(minitorch.tensor([1.0, 2.0]))
    >>> p
    Parameter containing:
    tensor([1., 2.], requires_grad=True)
    >>> (p * 2).sum().backward()
    >>> p.grad
    tensor([2., 2.])
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        # Everything is set by __new__ (the constructor of TensorBase takes a layout).
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> Parameter:
        copied = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = copied
        return copied


class Buffer(Tensor):
    """A tensor that a `Module` registers as a buffer when assigned as an attribute
    (`torch.nn.Buffer`): kept and moved with the model, not learned; in `state_dict()`
    unless `persistent=False`.

    >>> import minitorch
    >>> from minitorch.nn import Module
    >>> class Counter(Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.count = Buffer(minitorch.zeros(1))
    >>> list(Counter().state_dict())
    ['count']
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): data must be a Tensor, got {type(data).__name__}")
        buffer = Tensor._make_subclass(cls, data, data.requires_grad)
        buffer.persistent = persistent
        return buffer

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        # Everything is set by __new__, as for Parameter.
        pass


class ScalarParameter:
    """A learned number of modules 0 and 1: a float or a `Scalar`, held in `.value`.

    Tensors are not built yet in those modules; from module 2 on a model's
    weights are `Parameter`s, which are tensors. Holding a `Scalar` marks it
    as trainable (`requires_grad`), so backpropagation fills its `grad`;
    `update` swaps in a new value and keeps it trainable.
    """

    def __init__(self, value: Any, name: str | None = None) -> None:
        self.value = value
        self.name = name
        self._mark_trainable()

    def update(self, value: Any) -> None:
        """Replace the held value (e.g. after an optimizer step)."""
        self.value = value
        self._mark_trainable()

    def _mark_trainable(self) -> None:
        if hasattr(self.value, "requires_grad_"):
            self.value.requires_grad_(True)

    def __repr__(self) -> str:
        return repr(self.value)

    def __str__(self) -> str:
        return str(self.value)
