"""Normalization: `layer_norm`, `batch_norm` and `normalize`.

Layer and batch normalization both compute $\\hat x = (x - \\mu) / \\sqrt{\\sigma^2 + \\epsilon}$
and return $\\gamma \\hat x + \\beta$; they differ in which elements share $\\mu$ and
$\\sigma^2$ (the biased variance). Layer norm averages over the last dims of each sample;
batch norm over the batch and the positions of each channel (dim 1), and in training also
keeps running averages of its statistics for evaluation. Each is one `Op` (PyTorch's
`NativeLayerNormBackward0`, `NativeBatchNormBackward0`) whose backward is written out:

$$\\frac{\\partial L}{\\partial x} = \\frac{1}{\\sqrt{\\sigma^2 + \\epsilon}}
\\left(\\hat g - \\overline{\\hat g} - \\hat x \\, \\overline{\\hat g \\hat x}\\right),
\\qquad \\hat g = \\gamma g,$$

the bars being means over the normalized elements.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..autograd.graph import GraphContext
from ..backends.tensor_data import prod
from ..tensors.shapes import not_implemented
from .functions import Op
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


def normalized(x: Tensor, dims: tuple[int, ...], eps: float) -> tuple[Tensor, ...]:
    """$\\hat x$, the mean $\\mu$, the biased variance $\\sigma^2$ and
    $1 / \\sqrt{\\sigma^2 + \\epsilon}$ of `x` over `dims`, each in `x`'s dtype.

    float32 statistics are accumulated in float64, as PyTorch's CPU kernels do: a float32
    row near 1000 would otherwise lose about three digits of its mean.
    """
    wide = x.double() if x.dtype is dtypes.float32 else x
    mean = wide.mean(dims, keepdim=True)
    centred = wide - mean
    variance = (centred * centred).mean(dims, keepdim=True)
    inverse_std = 1 / (variance + eps).sqrt()
    results = centred * inverse_std, mean, variance, inverse_std
    return tuple(t.to(x.dtype) for t in results)


def affine(x_hat: Tensor, weight: Tensor | None, bias: Tensor | None, shape) -> Tensor:
    """$\\gamma \\hat x + \\beta$, $\\gamma$ and $\\beta$ seen with `shape` (None: 1 and 0)."""
    out = x_hat if weight is None else x_hat * weight.view(shape)
    return out if bias is None else out + bias.view(shape)


def affine_grads(ctx, grad: Tensor, x_hat: Tensor, weight, bias, shared: tuple[int, ...]):
    """$\\partial L / \\partial \\gamma = \\sum g \\hat x$ and $\\partial L / \\partial \\beta =
    \\sum g$ over the `shared` dims (those $\\gamma$ and $\\beta$ are the same along)."""

    def summed(t: Tensor, like: Tensor) -> Tensor:
        return (t.sum(shared) if shared else t).view(like.shape)

    d_weight = summed(grad * x_hat, weight) if ctx.needs_input_grad[1] else None
    d_bias = summed(grad, bias) if ctx.needs_input_grad[2] else None
    return d_weight, d_bias


def input_grad(grad_hat: Tensor, x_hat: Tensor, inverse_std: Tensor, dims) -> Tensor:
    """$\\partial L / \\partial x$ through $\\hat x$ when $\\mu$ and $\\sigma$ depend on `x`."""
    mean_grad = grad_hat.mean(dims, keepdim=True)
    mean_projection = (grad_hat * x_hat).mean(dims, keepdim=True)
    return inverse_std * (grad_hat - mean_grad - x_hat * mean_projection)


class Normalization(Op):
    """$\\gamma \\hat x + \\beta$ for a normalized $\\hat x$: the backward that layer and batch
    norm share, reading what `normalized_output` saved."""

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor | None, ...]:
        """$\\partial L / \\partial x$ through $\\hat x$ (and its statistics, when they are the
        input's own), then the gradients of $\\gamma$ and $\\beta$"""
        x_hat, inverse_std, weight, bias = ctx.saved_tensors
        d_x = None
        if ctx.needs_input_grad[0]:
            grad_hat = grad if weight is None else grad * weight.view(ctx.shape)
            if ctx.own_statistics:
                d_x = input_grad(grad_hat, x_hat, inverse_std, ctx.dims)
            else:
                d_x = grad_hat * inverse_std
        return (d_x, *affine_grads(ctx, grad, x_hat, weight, bias, ctx.shared))


def normalized_output(ctx, x_hat, inverse_std, weight, bias, shape, dims, shared, own_statistics):
    """`affine(x_hat, weight, bias, shape)`; saves for `Normalization.backward` the dims the
    statistics are over, the `shared` dims of $\\gamma$ and $\\beta$, and whether the
    statistics are the input's `own` (not running ones)."""
    ctx.save_for_backward(x_hat, inverse_std, weight, bias)
    ctx.shape, ctx.dims, ctx.shared, ctx.own_statistics = shape, dims, shared, own_statistics
    return affine(x_hat, weight, bias, shape)


class NativeLayerNorm(Normalization):
    """$\\gamma \\hat x + \\beta$, $\\hat x$ normalized over the last `len(shape)` dims."""

    @staticmethod
    def forward(ctx, x: Tensor, weight, bias, normalized_shape: tuple, eps: float) -> Tensor:
        dims = tuple(range(x.ndim - len(normalized_shape), x.ndim))
        x_hat, _, _, inverse_std = normalized(x, dims, eps)
        shared = tuple(range(x.ndim - len(dims)))
        return normalized_output(
            ctx, x_hat, inverse_std, weight, bias, normalized_shape, dims, shared, True
        )


@public(torch=False, method=False, functional=True)
def layer_norm(
    input: Tensor,
    normalized_shape,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """$\\gamma (x - \\mu) / \\sqrt{\\sigma^2 + \\epsilon} + \\beta$, with $\\mu$ and
    $\\sigma^2$ taken over the last dims of `input`, those of `normalized_shape`.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.layer_norm(minitorch.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    shape = checked_normalized_shape("layer_norm", input, normalized_shape, weight, bias)
    if not input.dtype.is_floating_point:
        raise not_implemented("LayerNormKernelImpl", input.dtype)
    check_parameter_dtypes(input, weight, bias)
    return NativeLayerNorm.apply(input, weight, bias, normalized_shape=shape, eps=eps)


def checked_normalized_shape(
    name: str,
    input: Tensor,  # noqa: A002
    normalized_shape,
    *parameters: Tensor | None,
) -> tuple[int, ...]:
    """`normalized_shape` as a tuple, after PyTorch's checks of it against `input` and the
    shapes of the `parameters` (weight, then bias) of layer norm or RMS norm (`name`)."""
    if isinstance(normalized_shape, int):
        raise TypeError(
            f"{name}(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"
        )
    shape = tuple(normalized_shape)
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
            "least one element, but got normalized_shape = []"
        )
    for kind, parameter in zip(("weight", "bias"), parameters, strict=False):
        if parameter is not None and tuple(parameter.shape) != shape:
            raise RuntimeError(
                f"Expected {kind} to be of same shape as normalized_shape, but got {kind} of "
                f"shape {list(parameter.shape)} and normalized_shape = {list(shape)}"
            )
    if tuple(input.shape[input.ndim - len(shape) :]) != shape or input.ndim < len(shape):
        expected = ", ".join(map(str, shape))
        expected = f"*, {expected}" if name == "layer_norm" else f"*{expected}"
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[{expected}], but got input of size{list(input.shape)}"
        )
    return shape


def check_parameter_dtypes(input: Tensor, *parameters: Tensor | None) -> None:
    """PyTorch's error for a weight or bias whose dtype is not the input's."""
    for parameter in parameters:
        if parameter is not None and parameter.dtype is not input.dtype:
            if input.dtype is not dtypes.float32:
                raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
            raise RuntimeError(
                "mixed dtype (CPU): expect parameter to have scalar type of "
                f"{input.dtype.torch_scalar_name}"
            )


class NativeBatchNorm(Normalization):
    """$\\gamma \\hat x + \\beta$, $\\hat x$ normalized per channel (dim 1): with the batch's
    statistics in training, with `running_mean` and `running_var` otherwise."""

    @staticmethod
    def forward(
        ctx,
        x: Tensor,
        weight,
        bias,
        running_mean,
        running_var,
        training: bool,
        momentum: float,
        eps: float,
    ) -> Tensor:
        dims = tuple(d for d in range(x.ndim) if d != 1)
        shape = [1] * x.ndim
        shape[1] = x.shape[1]
        if training:
            x_hat, mean, variance, inverse_std = normalized(x, dims, eps)
            if running_mean is not None:
                update_running_stats(x, mean, variance, running_mean, running_var, momentum)
        else:
            inverse_std = 1 / (running_var.view(shape) + eps).sqrt()
            x_hat = (x - running_mean.view(shape)) * inverse_std
        return normalized_output(ctx, x_hat, inverse_std, weight, bias, shape, dims, dims, training)


def update_running_stats(x, mean, variance, running_mean, running_var, momentum) -> None:
    """$r \\leftarrow (1 - m) r + m s$ for the batch's mean and unbiased variance $s$
    ($\\sigma^2 n / (n - 1)$, $n$ the values per channel)."""
    count = x.numel() // x.shape[1]
    variance = variance * (count / (count - 1))
    running_mean.mul_(1 - momentum).add_(mean.view(-1), alpha=momentum)
    running_var.mul_(1 - momentum).add_(variance.view(-1), alpha=momentum)


@public(torch=False, method=False, functional=True)
def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Batch normalization of the channels (dim 1) of `input`.

    In training, each channel is normalized with the mean and biased variance of the batch,
    and `running_mean` / `running_var` (when given) move towards the batch's mean and
    unbiased variance by `momentum`; otherwise the running statistics are used.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.batch_norm(minitorch.tensor([[1.0], [3.0]]), None, None, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
    """
    if training:
        size = input.shape[0] * prod(input.shape[2:])
        if size == 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
    elif running_mean is None or running_var is None:
        name = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{name} must be defined in evaluation mode")
    channels = input.shape[1] if input.ndim > 1 else 1
    named = [("running_mean", running_mean), ("running_var", running_var)]
    named += [("weight", weight), ("bias", bias)]
    for name, t in named:
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if not input.dtype.is_floating_point:
        raise not_implemented("batch_norm", input.dtype)
    check_parameter_dtypes(input, weight, bias)
    return NativeBatchNorm.apply(
        input,
        weight,
        bias,
        running_mean=running_mean,
        running_var=running_var,
        training=training,
        momentum=momentum,
        eps=eps,
    )


@public(torch=False, method=False, functional=True)
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """$x / \\max(\\|x\\|_p, \\epsilon)$ along `dim`: vectors scaled to unit $p$-norm.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.normalize(minitorch.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    powers = input * input if p == 2 else input.abs() ** p
    # $\max(s^{1/p}, \epsilon) = \max(s, \epsilon^p)^{1/p}$: the root never sees 0, so a
    # zero vector gets a zero gradient instead of $0 \cdot \infty$.
    total = powers.sum(dim, keepdim=True).clamp(min=eps**p)
    norm = total.sqrt() if p == 2 else total ** (1 / p)
    return input / norm
