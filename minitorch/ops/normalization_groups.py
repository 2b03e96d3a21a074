"""Normalization over groups of channels, instances, RMS and local windows: `group_norm`,
`instance_norm`, `rms_norm`, `local_response_norm`, and the `torch.*` forms of layer and
batch norm (PyTorch's argument orders, which differ from those of `nn.functional`).

Group norm is one `Op` (`NativeGroupNormBackward0`): the channels (dim 1) of each sample
are split into `num_groups` groups, and each group is normalized over its channels and
positions, $\\hat x = (x - \\mu_g) / \\sqrt{\\sigma_g^2 + \\epsilon}$, with the backward of
`normalization.py`. Instance norm is batch norm of the input seen as one sample of
$N \\cdot C$ channels, as PyTorch computes it; RMS norm and local response norm are
compositions, so autograd records their steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..autograd import no_grad
from ..autograd.graph import GraphContext
from ..backends.tensor_data import prod
from ..tensors.creation import zeros
from ..tensors.shapes import not_implemented
from .joins import cat
from .normalization import (
    Normalization,
    batch_norm,
    check_parameter_dtypes,
    checked_normalized_shape,
    layer_norm,
    normalized,
    normalized_output,
)
from .public import public
from .statistics import VectorNorm

if TYPE_CHECKING:
    from .._tensor import Tensor


class NativeGroupNorm(Normalization):
    """$\\gamma \\hat x + \\beta$, $\\hat x$ normalized over each group of channels of each
    sample; computed on the input seen as (N, G, C / G, positions)."""

    @staticmethod
    def forward(ctx, x: Tensor, weight, bias, num_groups: int, eps: float) -> Tensor:
        n, channels = x.shape[0], x.shape[1]
        grouped = x.reshape(n, num_groups, channels // num_groups, -1)
        dims = (2, 3)
        x_hat, _, _, inverse_std = normalized(grouped, dims, eps)
        shape = (1, num_groups, channels // num_groups, 1)
        ctx.input_shape = x.shape
        out = normalized_output(ctx, x_hat, inverse_std, weight, bias, shape, dims, (0, 3), True)
        return out.view(x.shape)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple[Tensor | None, ...]:
        """`Normalization.backward` in the grouped view, the input's gradient seen back in
        the input's shape"""
        x_hat = ctx.saved_tensors[0]
        d_x, d_weight, d_bias = Normalization.backward(ctx, grad.reshape(x_hat.shape))
        return (None if d_x is None else d_x.view(ctx.input_shape), d_weight, d_bias)


def check_channels_vector(name: str, parameter, input: Tensor) -> None:  # noqa: A002
    """PyTorch's error for a group norm weight or bias that is not one value per channel."""
    if parameter is not None and (parameter.ndim != 1 or parameter.numel() != input.shape[1]):
        raise RuntimeError(
            f"Expected {name} to be a vector of size equal to the number of channels in input, "
            f"but got {name} of shape {list(parameter.shape)} and input of shape "
            f"{list(input.shape)}"
        )


def native_group_norm(input: Tensor, num_groups: int, weight, bias, eps: float) -> Tensor:  # noqa: A002
    """Group norm after the checks both its forms make."""
    channels = input.shape[1]
    if channels % num_groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={num_groups}"
        )
    check_channels_vector("weight", weight, input)
    check_channels_vector("bias", bias, input)
    if not input.dtype.is_floating_point:
        raise not_implemented("GroupNormKernelImpl", input.dtype)
    check_parameter_dtypes(input, weight, bias)
    return NativeGroupNorm.apply(input, weight, bias, num_groups=num_groups, eps=eps)


@public(method=False, functional=True)
def group_norm(
    input: Tensor,  # noqa: A002
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> Tensor:
    """$\\gamma (x - \\mu_g) / \\sqrt{\\sigma_g^2 + \\epsilon} + \\beta$: the channels (dim 1)
    of each sample in `num_groups` groups, each normalized over its channels and positions
    ($\\sigma_g^2$ biased); $\\gamma$, $\\beta$ one value per channel. `cudnn_enabled`
    (`torch.group_norm`'s) changes nothing.

    >>> import minitorch
    >>> minitorch.group_norm(minitorch.tensor([[1.0, 3.0]]), 1)
    tensor([[-1.0000,  1.0000]])
    """
    if input.ndim < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    sizes = [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
    if sizes[0] * prod(sizes[2:]) == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {sizes}"
        )
    return native_group_norm(input, num_groups, weight, bias, eps)


def repeated(t: Tensor | None, times: int) -> Tensor | None:
    return None if t is None else t.repeat(times)


def native_instance_norm(
    input: Tensor,  # noqa: A002
    weight,
    bias,
    running_mean,
    running_var,
    use_input_stats: bool,
    momentum: float,
    eps: float,
) -> Tensor:
    """Batch norm of `input` seen as one sample of $N \\cdot C$ channels; the running
    statistics become the mean over the samples of the per-sample ones."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    n, channels = input.shape[0], input.shape[1]
    stats = [repeated(running_mean, n), repeated(running_var, n)]
    out = batch_norm(
        input.contiguous().view(1, n * channels, *input.shape[2:]),
        *stats,
        repeated(weight, n),
        repeated(bias, n),
        use_input_stats,
        momentum,
        eps,
    )
    with no_grad():
        for running, per_sample in zip((running_mean, running_var), stats, strict=True):
            if running is not None:
                running.copy_(per_sample.view(n, channels).mean(0))
    return out.view(input.shape)


@public("instance_norm", functional=True, torch=False, method=False)
def instance_norm(
    input: Tensor,  # noqa: A002
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Each channel of each sample normalized over its positions (dims 2 on):
    $\\gamma (x - \\mu_{nc}) / \\sqrt{\\sigma_{nc}^2 + \\epsilon} + \\beta$; with
    `use_input_stats=False`, with the running statistics instead. Given running statistics
    move by `momentum` towards the mean over the batch of each sample's statistics.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.instance_norm(minitorch.tensor([[[1.0, 3.0]]]))
    tensor([[[-1.0000,  1.0000]]])
    """
    if use_input_stats:
        size = list(input.shape)
        if prod(size[2:]) == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {input.shape}"
            )
    return native_instance_norm(
        input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps
    )


@public("instance_norm", method=False)
def torch_instance_norm(
    input: Tensor,  # noqa: A002
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """`torch.instance_norm`: `F.instance_norm` with PyTorch's native argument order (every
    argument required; `cudnn_enabled` changes nothing).

    >>> import minitorch
    >>> x = minitorch.tensor([[[1.0, 3.0]]])
    >>> minitorch.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
    tensor([[[-1.0000,  1.0000]]])
    """
    return native_instance_norm(
        input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps
    )


@public("batch_norm", method=False)
def torch_batch_norm(
    input: Tensor,  # noqa: A002
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """`torch.batch_norm`: `F.batch_norm` with PyTorch's native argument order (weight and
    bias first, every argument required; `cudnn_enabled` changes nothing).

    >>> import minitorch
    >>> x = minitorch.tensor([[1.0], [3.0]])
    >>> minitorch.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
    tensor([[-1.0000],
            [ 1.0000]])
    """
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@public("layer_norm", method=False)
def torch_layer_norm(
    input: Tensor,  # noqa: A002
    normalized_shape,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enable: bool = True,
) -> Tensor:
    """`torch.layer_norm`: `F.layer_norm` with `cudnn_enable` (which changes nothing).

    >>> import minitorch
    >>> minitorch.layer_norm(minitorch.tensor([[1.0, 3.0]]), [2])
    tensor([[-1.0000,  1.0000]])
    """
    return layer_norm(input, normalized_shape, weight, bias, eps)


@public(method=False, functional=True)
def rms_norm(
    input: Tensor,  # noqa: A002
    normalized_shape,
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """$\\gamma \\, x / \\sqrt{\\overline{x^2} + \\epsilon}$, the mean of squares taken over
    the last dims of `input`, those of `normalized_shape`; `eps=None` is the machine epsilon
    of the input's dtype (`finfo(dtype).eps`).

    >>> import minitorch
    >>> minitorch.rms_norm(minitorch.tensor([[3.0, 4.0]]), [2], eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    shape = checked_normalized_shape("rms_norm", input, normalized_shape, weight)
    if not input.dtype.is_floating_point:
        raise not_implemented("rms_norm", input.dtype)
    check_parameter_dtypes(input, weight)
    if eps is None:
        eps = dtypes.finfo(input.dtype).eps
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


@public(torch=False, method=False, functional=True)
def local_response_norm(
    input: Tensor,  # noqa: A002
    size: int,
    alpha: float = 1e-4,
    beta: float = 0.75,
    k: float = 1.0,
) -> Tensor:
    """$x_c / (k + \\frac{\\alpha}{n} \\sum_{c'} x_{c'}^2)^\\beta$, the sum over the window of
    `size` $= n$ channels $c - \\lfloor n/2 \\rfloor \\le c' \\le c + \\lfloor (n-1)/2 \\rfloor$
    (channels outside the input count as 0).

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.local_response_norm(minitorch.tensor([[[2.0], [0.0]]]), 2, alpha=1.0, k=0.0, beta=1.0)
    tensor([[[1.],
             [0.]]])
    """
    if input.ndim < 3:
        raise ValueError(
            "Expected 3D or higher dimensionality                          input "
            f"(got {input.ndim} dimensions)"
        )
    if input.numel() == 0:
        return input
    squares = input * input
    channels = input.shape[1]

    def padding(count: int) -> Tensor:
        sizes = list(input.shape)
        sizes[1] = count
        return zeros(*sizes, dtype=input.dtype, device=input.device)

    padded = cat([padding(size // 2), squares, padding((size - 1) // 2)], dim=1)
    window = padded.narrow(1, 0, channels)
    for start in range(1, size):
        window = window + padded.narrow(1, start, channels)
    return input / (window * (alpha / size) + k) ** beta


class Norm(VectorNorm):
    """$\\|a\\|_p$ of a whole tensor, the node PyTorch's native `norm` records
    (`NormBackward0`)."""


@public(method=False)
def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002
    """$\\|v\\|_p$ over every dim but `dim`, kept as size-1 dims: the magnitudes of weight
    norm, one per slice of `dim`; `dim=-1` is the norm of the whole tensor (0-dim).

    >>> import minitorch
    >>> minitorch.norm_except_dim(minitorch.tensor([[3.0, 0.0], [0.0, 4.0]]), 2, 1)
    tensor([[3., 4.]])
    """
    if dim == -1:
        return Norm.apply(v, p=float(pow), dim=None, keepdim=False)
    if dim == 0:
        ones = [1] * (v.ndim - 1)
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(v.shape[0], *ones)
    if dim == v.ndim - 1:
        ones = [1] * (v.ndim - 1)
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(*ones, v.shape[-1])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)
