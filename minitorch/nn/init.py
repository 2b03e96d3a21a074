"""`minitorch.nn.init`, as `torch.nn.init`: fill a tensor in place with starting weights.

Each function runs under `no_grad`, writes into the tensor it is given and returns it.
The scaled ones keep the variance of activations about the same from layer to layer:
with $n_\\text{in}$ ($n_\\text{out}$) the inputs (outputs) of a unit times the kernel size,

- Xavier/Glorot: $\\mathrm{std} = \\text{gain} \\sqrt{2 / (n_\\text{in} + n_\\text{out})}$;
- Kaiming/He: $\\mathrm{std} = \\text{gain} / \\sqrt{n}$, $n$ = $n_\\text{in}$ or $n_\\text{out}$;

and a uniform draw in $\\pm\\sqrt 3\\,\\mathrm{std}$ has that std.

>>> import minitorch
>>> w = minitorch.empty(2, 3)
>>> minitorch.nn.init.constant_(w, 0.5)
tensor([[0.5000, 0.5000, 0.5000],
        [0.5000, 0.5000, 0.5000]])
"""

from __future__ import annotations

import math
import warnings

from .._tensor import Tensor
from ..autograd import no_grad
from ..ops.selection import where
from ..tensors.creation import empty_like

_GAIN_ONE = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "sigmoid",
)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activations' scale through `nonlinearity`: 1 for linear and
    sigmoid, $5/3$ for tanh, $\\sqrt 2$ for relu, $\\sqrt{2 / (1 + s^2)}$ for leaky_relu with
    slope $s$ (`param`, 0.01 by default), $3/4$ for selu.

    >>> calculate_gain("leaky_relu", 0.2)
    1.3867504905630728
    """
    if nonlinearity in _GAIN_ONE:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """$(n_\\text{in}, n_\\text{out})$ of a weight of shape (out, in, *kernel): each times the
    number of kernel elements."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    """Fill with draws from the uniform distribution on $[a, b)$."""
    with no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill with draws from $\\mathcal N(\\text{mean}, \\text{std}^2)$."""
    with no_grad():
        return tensor.normal_(mean, std)


def trunc_normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0
) -> Tensor:
    """Fill with draws from $\\mathcal N(\\text{mean}, \\text{std}^2)$ kept inside $[a, b]$.

    Values outside are drawn again (each round on the whole tensor, by kernels); the
    few left after 64 rounds, which happens only when $[a, b]$ lies far in a tail, are
    clamped into it. PyTorch samples the same distribution by its inverse CDF.
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    with no_grad():
        tensor.normal_(mean, std)
        for _ in range(64):
            outside = (tensor < a).logical_or(tensor > b)
            if not outside.any():
                break
            tensor.copy_(where(outside, empty_like(tensor).normal_(mean, std), tensor))
        return tensor.clamp_(a, b)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with `val`."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros."""
    with no_grad():
        return tensor.zero_()


def xavier_uniform_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    """Uniform in $\\pm \\text{gain} \\sqrt{6 / (n_\\text{in} + n_\\text{out})}$."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std)


def xavier_normal_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    """$\\mathcal N(0, \\text{std}^2)$ with $\\text{std} = \\text{gain} \\sqrt{2 / (n_\\text{in} +
    n_\\text{out})}$ (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    """$\\text{gain} / \\sqrt{\\text{fan}}$, or None (with torch's warning) for an empty tensor."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    """Uniform in $\\pm \\text{gain} \\sqrt{3 / \\text{fan}}$ (He et al.); `a` is the negative
    slope of a leaky_relu, `mode` picks $n_\\text{in}$ or $n_\\text{out}$ as fan."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std)


def kaiming_normal_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    """$\\mathcal N(0, \\text{std}^2)$ with $\\text{std} = \\text{gain} / \\sqrt{\\text{fan}}$
    (He et al.)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std)


__all__ = [
    "calculate_gain",
    "constant_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]
