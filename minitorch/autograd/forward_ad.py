"""`torch.autograd.forward_ad`: forward-mode AD with dual tensors.

A dual tensor is a primal value $x$ with a tangent $\\dot x$ (a direction). Every
operation $y = f(x_1, \\dots)$ run on dual tensors inside `dual_level()` gives a dual
result whose tangent is the directional derivative
$\\dot y = \\sum_k J_{f,k}\\, \\dot x_k$, the Jacobian-vector product, computed as the values
are (no backward pass, no graph kept):

>>> import minitorch
>>> import minitorch.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 0.0]))
...     fwAD.unpack_dual(x * x).tangent
tensor([2., 0.])

PyTorch writes a forward formula for each operation. minitorch derives it from the
backward every operation already has: the backward computes $u \\mapsto J^T u$, which is
linear in $u$, and the gradient of $\\langle J^T u, \\dot x \\rangle$ with respect to $u$ is
$J \\dot x$. So each operation on dual inputs runs its forward on copies that require grad,
then two small backward passes through that one operation (the second through the first's
graph: operations whose backward is not differentiable refuse, as with
`create_graph=True`).
"""

from __future__ import annotations

from typing import NamedTuple

from ..tensors import creation
from ..tensors.base import TensorBase
from ..tensors.dual import drop_all_tangents, dual_state, set_tangent, tangent_of
from ..tensors.kernels import alias
from .grad_mode import enable_grad
from .graph import grad as autograd_grad

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]


class UnpackedDualTensor(NamedTuple):
    """A dual tensor's primal value and its tangent (None when it has none)."""

    primal: TensorBase
    tangent: TensorBase | None


def enter_dual_level() -> int:
    """Open the dual level (one at a time) and return its number."""
    if dual_state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    dual_state.level = 0
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the dual level: every tangent is dropped."""
    dual_state.level = None
    drop_all_tangents()


class dual_level:  # noqa: N801 -- PyTorch's name
    """`with dual_level():` the block in which dual tensors exist."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc_info) -> None:
        exit_dual_level()


def make_dual(tensor: TensorBase, tangent: TensorBase, *, level: int | None = None):
    """`tensor`'s values as a new tensor carrying `tangent` (same size, floating point)."""
    if dual_state.level is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not tensor.dtype.is_floating_point:
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not tangent.dtype.is_floating_point:
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    dual = alias(tensor)  # the same memory, as a new tensor that carries the tangent
    set_tangent(dual, tangent.detach().to(tensor.dtype))
    return dual


def unpack_dual(tensor: TensorBase, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of `tensor`: the primal is a view without the tangent."""
    tangent = tangent_of(tensor) if dual_state.level is not None else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(alias(tensor), tangent)


def apply_with_tangents(function, inputs: tuple, params: dict):
    """Run `function` (a `Function`) on `inputs`; give its floating outputs their tangents."""
    tangents = [tangent_of(x) if isinstance(x, TensorBase) else None for x in inputs]
    dual_state.propagating = True  # the operations inside run as plain ones
    try:
        if all(t is None for t in tangents):
            return function.run_and_record(*inputs, **params)
        result = function.run_and_record(*inputs, **params)
        outputs = result if isinstance(result, tuple) else (result,)
        found = output_tangents(function, inputs, params, tangents)
        for out, tangent in zip(outputs, found, strict=True):
            if isinstance(out, TensorBase):
                set_tangent(out, tangent)
    finally:
        dual_state.propagating = False
    return result


def output_tangents(function, inputs: tuple, params: dict, tangents: list) -> list:
    """$J \\dot x$ for each output of `function`, by the transpose of its backward."""
    with enable_grad():
        copies = [
            x.detach().requires_grad_() if t is not None
            else x.detach() if isinstance(x, TensorBase) else x
            for x, t in zip(inputs, tangents, strict=True)
        ]  # fmt: skip
        result = function.run_and_record(*copies, **params)
        outputs = result if isinstance(result, tuple) else (result,)
        differentiable = [
            k for k, out in enumerate(outputs) if isinstance(out, TensorBase) and out.requires_grad
        ]
        found: list = [None] * len(outputs)
        if not differentiable:
            return found
        duals = [(x, t) for x, t in zip(copies, tangents, strict=True) if t is not None]
        directions = [
            creation.zeros_like(outputs[k], requires_grad=True) for k in differentiable
        ]  # u
        transposed = autograd_grad(
            [outputs[k] for k in differentiable],
            [x for x, _ in duals],
            directions,
            create_graph=True,
            allow_unused=True,
        )  # J^T u, a function of u
        pairing = [
            (g * t).sum() for g, (_, t) in zip(transposed, duals, strict=True) if g is not None
        ]
        if not pairing:
            return found
        total = pairing[0]
        for term in pairing[1:]:
            total = total + term
        products = autograd_grad(total, directions, allow_unused=True)
        for k, product in zip(differentiable, products, strict=True):
            found[k] = creation.zeros_like(outputs[k]) if product is None else product.detach()
    return found
