"""Matrix products: `matmul` (`a @ b`), `mm`, `dot`.

`MatMul` runs the backend's batched matmul kernel; vectors are matrices of
one row (on the left) or one column (on the right), and batch dimensions
broadcast as in `torch.matmul`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..autograd.graph import GraphContext
from ..backends import backend_for
from ..backends.tensor_data import prod, shape_broadcast
from ..tensors.device import check_same_device
from ..tensors.kernels import new_tensor, with_shape
from ..tensors.shapes import check_matmul_operands
from .functions import Op
from .public import public
from .views import Restride, View, reshape, unsqueeze

if TYPE_CHECKING:
    from .._tensor import Tensor


class MatMul(Op):
    @staticmethod
    def forward(ctx: GraphContext, a: Tensor, b: Tensor) -> Tensor:
        """$c_{ik} = \\sum_j a_{ij} b_{jk}$; 1-D operands and batch dimensions as `torch.matmul`"""
        check_matmul_operands(a, b)
        check_same_device(a.device, b.device)
        needs_a, needs_b = ctx.needs_input_grad
        ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
        # A vector is a matrix with one row (on the left) or one column (on the right),
        # and that extra dimension is dropped from the result.
        ctx.a_ndim, ctx.b_ndim = a.ndim, b.ndim
        a_layout, b_layout = a._layout, b._layout
        if a.ndim == 2 and b.ndim == 2:  # the common case: no dimension to add or drop
            out = new_tensor((a_layout.shape[0], b_layout.shape[1]), a.dtype, a.device)
            backend_for(a.device).matmul(out._layout, a_layout, b_layout)
            return out
        a_matrix = a.unsqueeze(0) if a.ndim == 1 else a
        b_matrix = b.unsqueeze(1) if b.ndim == 1 else b
        batch = shape_broadcast(a_matrix.shape[:-2], b_matrix.shape[:-2])
        ndim = len(batch) + 2
        a_matrix = a_matrix.view((1,) * (ndim - a_matrix.ndim) + tuple(a_matrix.shape))
        b_matrix = b_matrix.view((1,) * (ndim - b_matrix.ndim) + tuple(b_matrix.shape))
        out = new_tensor(batch + (a_matrix.shape[-2], b_matrix.shape[-1]), a.dtype, a.device)
        backend_for(a.device).matmul(out._layout, a_matrix._layout, b_matrix._layout)
        shape = tuple(out.shape)
        if b.ndim == 1:
            shape = shape[:-1]
        if a.ndim == 1:
            shape = shape[:-2] + shape[-1:] if b.ndim > 1 else shape[:-1]
        return with_shape(out, shape)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$(g B^T, A^T g)$, vectors seen as one-row / one-column matrices; batch dims
        that were broadcast are summed away by `sum_to`."""
        # BEGIN SOLUTION 2.6
        a, b = ctx.saved_tensors
        if ctx.b_ndim == 1:
            grad = grad.unsqueeze(-1)
        if ctx.a_ndim == 1:
            grad = grad.unsqueeze(-2)
        grad_a = grad_b = None
        if b is not None:
            grad_a = grad @ (b.unsqueeze(1) if b.ndim == 1 else b).transpose(-1, -2)
            grad_a = grad_a.squeeze(-2) if ctx.a_ndim == 1 else grad_a
        if a is not None:
            grad_b = (a.unsqueeze(0) if a.ndim == 1 else a).transpose(-1, -2) @ grad
            grad_b = grad_b.squeeze(-1) if ctx.b_ndim == 1 else grad_b
        return grad_a, grad_b
        # END SOLUTION 2.6


@public(keywords=2)
def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product `a @ b`: vectors, matrices and batches (batch dims broadcast).

    Two cases are recorded as PyTorch records them: a vector times a matrix is a
    one-row matrix product (Unsqueeze, Mm, Squeeze), and a batch times a matrix
    or vector folds the batch into rows (View, Mm or Mv, UnsafeView).
    """
    if a.ndim == 1 and b.ndim == 2:
        row = MatMul.apply(unsqueeze(a, 0), b)
        shape, strides = tuple(row.shape[1:]), row.stride()[1:]
        return Restride.apply(row, shape=shape, strides=strides, kind="squeeze_.dim")
    if a.ndim >= 3 and b.ndim in (1, 2):
        rows = MatMul.apply(reshape(a, prod(a.shape[:-1]), a.shape[-1]), b)
        return View.apply(rows, shape=tuple(a.shape[:-1] + b.shape[1:]), kind="UnsafeView")
    return MatMul.apply(a, b)


@public(keywords=2)
def mm(a: Tensor, b: Tensor) -> Tensor:
    """Product of two matrices."""
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError("self must be a matrix" if a.ndim != 2 else "mat2 must be a matrix")
    return MatMul.apply(a, b)


@public(keywords=2)
def dot(a: Tensor, b: Tensor) -> Tensor:
    """Inner product of two vectors."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    return MatMul.apply(a, b)
