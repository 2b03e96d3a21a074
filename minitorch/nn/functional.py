"""`minitorch.nn.functional`, as `torch.nn.functional`: activations, losses and layers as functions.

>>> import minitorch
>>> import minitorch.nn.functional as F
>>> F.relu(minitorch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""

from __future__ import annotations

import math
import warnings

from .. import dtypes
from .._tensor import Tensor
from ..autograd import Function
from ..ops.activations import written_back
from ..ops.api import FUNCTIONAL
from ..ops.dropouts import check_p, dropped
from ..ops.elementwise import erf
from ..ops.reductions import log_softmax as ops_log_softmax
from ..ops.reductions import softmax as ops_softmax
from ..ops.selection import where
from ..tensors.creation import arange
from . import functional_activations
from .functional_activations import __all__ as ACTIVATIONS
from .functional_attention import multi_head_attention_forward, scaled_dot_product_attention

# ---------------------------------------------------------------------------
# Linear, activations, dropout, embedding, one_hot
# ---------------------------------------------------------------------------


class Addmm(Function):
    """$b + x W^T$ for a matrix $x$, one node as PyTorch records it (`AddmmBackward0`).

    Backward: $\\partial L/\\partial x = g W$, $\\partial L/\\partial W = g^T x$,
    $\\partial L/\\partial b = \\sum_\\text{rows} g$ (summed by autograd to the shape of $b$).
    """

    @staticmethod
    def forward(ctx, bias: Tensor, input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
        ctx.save_for_backward(input, weight)
        return input @ weight.T + bias

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor | None, ...]:
        input, weight = ctx.saved_tensors  # noqa: A001
        needs = ctx.needs_input_grad
        return (
            grad if needs[0] else None,  # autograd sums it to the shape of bias
            grad @ weight if needs[1] else None,
            grad.T @ input if needs[2] else None,
        )


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """$y = x W^T + b$: `weight` has shape (out_features, in_features), as in PyTorch.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.linear(minitorch.ones(1, 2), minitorch.ones(3, 2), minitorch.zeros(3))
    tensor([[2., 2., 2.]])
    """
    if input.shape[-1:] != weight.shape[-1:]:
        rows = math.prod(input.shape[:-1]) if input.ndim > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
            f"{weight.shape[1]}x{weight.shape[0]})"
        )
    if input.dtype is not weight.dtype:
        names = [t.dtype.tensor_type.removesuffix("Tensor") for t in (input, weight)]
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {names[0]} and {names[1]}"
        )
    if input.ndim == 2 and bias is not None:
        return Addmm.apply(bias, input, weight)
    output = input @ weight.T
    return output if bias is None else output + bias


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """$y_k = x_1^T A_k x_2 + b_k$ over the last dimension of each input, with `weight`
    $A$ of shape (out, in1, in2); computed as one matmul, $x_1 [A_k]_k$, and a sum."""
    out_features, in1, in2 = weight.shape
    for position, (x, size) in enumerate(((input1, in1), (input2, in2)), start=1):
        if x.shape[-1] != size:
            raise RuntimeError(
                f"bilinear(): input{position} size does not match weight size: got "
                f"{x.shape[-1]} but expected {size}"
            )
    batch = input1.shape[:-1]
    left = input1.reshape(-1, in1) @ weight.permute(1, 0, 2).reshape(in1, out_features * in2)
    products = left.view(-1, out_features, in2) * input2.reshape(-1, 1, in2)
    output = products.sum(-1).view(*batch, out_features)
    return output if bias is None else output + bias


class LeakyRelu(Function):
    """$x$ for $x > 0$, else $s x$; derivative 1 or $s$ (the slope $s$ at 0, as PyTorch)."""

    @staticmethod
    def forward(ctx, a: Tensor, negative_slope: float) -> Tensor:
        ctx.save_for_backward(a)
        ctx.negative_slope = negative_slope
        return where(a > 0, a, a * negative_slope)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return where(a > 0, grad, grad * ctx.negative_slope)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    """$\\max(0, x) + s \\min(0, x)$ elementwise, with slope $s$ = `negative_slope`."""
    step = lambda a: LeakyRelu.apply(a, negative_slope=negative_slope)  # noqa: E731
    return written_back(input, step, inplace)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


class Gelu(Function):
    """$x \\Phi(x)$, $\\Phi$ the standard normal CDF; with `approximate="tanh"`,
    $\\tfrac12 x (1 + \\tanh u)$ with $u = \\sqrt{2/\\pi}(x + 0.044715 x^3)$.

    Derivatives: $\\Phi(x) + x \\varphi(x)$, and
    $\\tfrac12 (1 + \\tanh u) + \\tfrac12 x (1 - \\tanh^2 u)\\, u'$.
    """

    @staticmethod
    def forward(ctx, a: Tensor, approximate: str) -> Tensor:
        ctx.save_for_backward(a)
        ctx.approximate = approximate
        if approximate == "tanh":
            return 0.5 * a * (1.0 + (_SQRT_2_OVER_PI * (a + 0.044715 * a * a * a)).tanh())
        return 0.5 * a * (1.0 + erf(a * (1 / math.sqrt(2.0))))

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (a + 0.044715 * a * a * a)
            th = inner.tanh()
            d_inner = _SQRT_2_OVER_PI * (1.0 + 3 * 0.044715 * a * a)
            return grad * (0.5 * (1.0 + th) + 0.5 * a * (1.0 - th * th) * d_inner)
        cdf = 0.5 * (1.0 + erf(a * (1 / math.sqrt(2.0))))
        pdf = (-0.5 * a * a).exp() * (1 / math.sqrt(2.0 * math.pi))
        return grad * (cdf + a * pdf)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    """The Gaussian error linear unit $x \\Phi(x)$ (see `Gelu`)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return Gelu.apply(input, approximate=approximate)


class Silu(Function):
    """$x \\sigma(x)$; derivative $\\sigma(x) (1 + x (1 - \\sigma(x)))$."""

    @staticmethod
    def forward(ctx, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return a * a.sigmoid()

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        s = a.sigmoid()
        return grad * s * (1.0 + a * (1.0 - s))


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """The sigmoid linear unit (swish) $x \\sigma(x)$ elementwise."""
    return written_back(input, Silu.apply, inplace)


class Elu(Function):
    """$x$ for $x > 0$, else $\\alpha (e^x - 1)$; derivative 1 or $\\alpha e^x$."""

    @staticmethod
    def forward(ctx, a: Tensor, alpha: float) -> Tensor:
        ctx.save_for_backward(a)
        ctx.alpha = alpha
        return where(a > 0, a, alpha * (a.exp() - 1.0))

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return where(a > 0, grad, grad * ctx.alpha * a.exp())


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """The exponential linear unit: $x$ for $x > 0$, else $\\alpha (e^x - 1)$."""
    return written_back(input, lambda a: Elu.apply(a, alpha=alpha), inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """`elu` written into `input`."""
    return elu(input, alpha, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    """`leaky_relu` written into `input`."""
    return leaky_relu(input, negative_slope, inplace=True)


def dropout(
    input: Tensor,  # noqa: A002
    p: float = 0.5,
    training: bool = True,
    inplace: bool = False,
) -> Tensor:
    """Zero each element with probability `p` and scale the others by $1 / (1 - p)$, so the
    expected value is unchanged; the identity when not `training` (or `p` is 0).

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.dropout(minitorch.ones(3), p=0.5, training=False)
    tensor([1., 1., 1.])
    """
    check_p(p)
    return dropped(input, p, training, inplace=inplace)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """An int64 tensor with one more dimension of size `num_classes` (largest class + 1
    when -1): 1 at each value's class, 0 elsewhere.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.one_hot(minitorch.tensor([0, 2]))
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    elif tensor.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    elif num_classes == -1:
        num_classes = int(tensor.max()) + 1
    elif tensor.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).long()


class Embedding(Function):
    """Rows of `weight` picked by `indices`: $y_{\\dots} = W_{i_{\\dots}}$.

    Backward adds each output row's gradient into its source row, a sum over the
    positions that picked it: $\\partial L/\\partial W = \\operatorname{onehot}(i)^T g$ (a
    matmul), with the row `padding_idx` left at zero.
    """

    @staticmethod
    def forward(ctx, weight: Tensor, indices: Tensor, padding_idx: int | None) -> Tensor:
        ctx.indices, ctx.num_weights, ctx.padding_idx = indices, weight.shape[0], padding_idx
        rows = weight[indices.reshape(-1)]
        return rows.reshape(*indices.shape, weight.shape[1])

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, None]:
        picks = one_hot(ctx.indices.reshape(-1), ctx.num_weights).to(grad.dtype)
        if ctx.padding_idx is not None:
            picks = picks * (arange(ctx.num_weights, device=grad.device) != ctx.padding_idx)
        return picks.T @ grad.reshape(-1, grad.shape[-1]), None


def embedding(
    input: Tensor,  # noqa: A002
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of `weight` (num_embeddings, embedding_dim) at the int64 `input` indices;
    the row `padding_idx` gets no gradient.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> table = minitorch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    >>> F.embedding(minitorch.tensor([2, 0]), table)
    tensor([[4., 5.],
            [0., 1.]])
    """
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "minitorch's embedding does not support max_norm, scale_grad_by_freq or sparse"
        )
    if input.dtype is not dtypes.int64:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.type()} instead (while checking arguments for "
            "embedding)"
        )
    if input.numel() and (input.min() < 0 or input.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return Embedding.apply(weight, input, padding_idx=padding_idx)


# ---------------------------------------------------------------------------
# Softmax with PyTorch's functional-only implicit dim (the losses and normalization are
# declared functional in ops/losses.py and ops/normalization.py)
# ---------------------------------------------------------------------------


def _softmax_dim(ndim: int, name: str) -> int:
    """PyTorch's legacy choice of dim when none is given (dim 0 for 0-, 1- and 3-D inputs)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:  # noqa: A002
    """$e^{x_i} / \\sum_j e^{x_j}$ along `dim`, computed stably (in `dtype` when given)."""
    if dim is None:
        dim = _softmax_dim(input.ndim, "softmax")
    return ops_softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:  # noqa: A002
    """$x_i - \\ln \\sum_j e^{x_j}$ along `dim`, computed stably (in `dtype` when given)."""
    if dim is None:
        dim = _softmax_dim(input.ndim, "log_softmax")
    return ops_log_softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    """$e^{-x_i} / \\sum_j e^{-x_j}$ along `dim`: the softmax of $-x$."""
    if dim is None:
        dim = _softmax_dim(input.ndim, "softmin")
    return ops_softmax(-input, dim, dtype)


# The operations of ops/ declared `functional=True` (convolution, pooling, losses,
# normalization, relu, ...) and the activations of functional_activations.py; the functions
# above are nn.functional's own.
globals().update(FUNCTIONAL)
globals().update({name: getattr(functional_activations, name) for name in ACTIVATIONS})

__all__ = [
    "bilinear",
    "dropout",
    "elu",
    "elu_",
    "embedding",
    "gelu",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "multi_head_attention_forward",
    "one_hot",
    "scaled_dot_product_attention",
    "silu",
    "softmax",
    "softmin",
    *ACTIVATIONS,
    *FUNCTIONAL,
]
