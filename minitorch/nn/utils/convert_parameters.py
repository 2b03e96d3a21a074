"""All parameters as one flat vector, and back: what second-order and evolutionary
methods work with."""

from __future__ import annotations

from collections.abc import Iterable

from ..._tensor import Tensor
from ...ops.joins import cat


def _same_device(param: Tensor, device):
    """`param`'s device, a `TypeError` (PyTorch's) when it is not `device` (the first's)."""
    if device is not None and param.device != device:
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return param.device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters' elements, flattened and joined in order into one vector (a
    differentiable view of each: gradients flow back to the parameters)."""
    device = None
    flat = []
    for param in parameters:
        device = _same_device(param, device)
        flat.append(param.view(-1))
    return cat(flat)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Give each parameter, in order, the next `numel()` elements of `vec` as its data
    (shaped as the parameter): the inverse of `parameters_to_vector`."""
    if not isinstance(vec, Tensor):
        kind, module = type(vec).__qualname__, type(vec).__module__
        name = kind if module == "builtins" else f"{module}.{kind}"
        raise TypeError(f"expected torch.Tensor, but got: {name}")
    device = None
    pointer = 0
    for param in parameters:
        device = _same_device(param, device)
        count = param.numel()
        param.data = vec[pointer : pointer + count].view_as(param).data
        pointer += count
