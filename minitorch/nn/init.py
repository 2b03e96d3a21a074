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
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd import no_grad
from ..tensors.creation import Generator, empty, randperm, zeros_like
from ..tensors.creation import eye as identity

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


def uniform_(
    tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with draws from the uniform distribution on $[a, b)$ (from `generator`, or the
    default one)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with draws from $\\mathcal N(\\text{mean}, \\text{std}^2)$."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Generator | None = None,
) -> Tensor:
    """Fill with draws from $\\mathcal N(\\text{mean}, \\text{std}^2)$ kept inside $[a, b]$.

    Drawn by the inverse CDF, as PyTorch draws it: $u \\sim U(2 \\Phi(\\alpha) - 1,
    2 \\Phi(\\beta) - 1)$ for the bounds in units of std $\\alpha = (a - \\mu) / \\sigma$,
    $\\beta = (b - \\mu) / \\sigma$, then $\\mu + \\sigma \\sqrt 2 \\operatorname{erfinv}(u)$,
    clamped into $[a, b]$ against rounding: a fixed number of kernels on the tensor's device,
    with nothing read back to the host.
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )

    def cdf(t: float) -> float:
        return (1.0 + math.erf(t / math.sqrt(2.0))) / 2.0

    low, high = cdf((a - mean) / std), cdf((b - mean) / std)
    with no_grad():
        tensor.uniform_(2 * low - 1, 2 * high - 1, generator=generator)
        tensor.erfinv_().mul_(std * math.sqrt(2.0)).add_(mean)
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


def _uniform_with_std(tensor: Tensor, std: float, generator: Generator | None) -> Tensor:
    """Uniform in $\\pm \\sqrt 3 \\, \\text{std}$, the uniform draw of that std."""
    return uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)


def xavier_uniform_(
    tensor: Tensor, gain: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Uniform in $\\pm \\text{gain} \\sqrt{6 / (n_\\text{in} + n_\\text{out})}$."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return _uniform_with_std(tensor, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """$\\mathcal N(0, \\text{std}^2)$ with $\\text{std} = \\text{gain} \\sqrt{2 / (n_\\text{in} +
    n_\\text{out})}$ (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming(name: str, draw: Callable[[Tensor, float, Generator | None], Tensor], doc: str):
    """The He initialisation `name`: `draw(tensor, std, generator)` with $\\text{std} =
    \\text{gain} / \\sqrt{\\text{fan}}$; an empty tensor is left as it is, with torch's
    warning."""

    def initialise(
        tensor: Tensor,
        a: float = 0.0,
        mode: str = "fan_in",
        nonlinearity: str = "leaky_relu",
        generator: Generator | None = None,
    ) -> Tensor:
        if 0 in tensor.shape:
            warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
            return tensor
        fan = _calculate_correct_fan(tensor, mode)
        return draw(tensor, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)

    initialise.__name__ = initialise.__qualname__ = name
    initialise.__doc__ = doc
    return initialise


kaiming_uniform_ = _kaiming(
    "kaiming_uniform_",
    _uniform_with_std,
    """Uniform in $\\pm \\text{gain} \\sqrt{3 / \\text{fan}}$ (He et al.); `a` is the negative
    slope of a leaky_relu, `mode` picks $n_\\text{in}$ or $n_\\text{out}$ as fan.""",
)
kaiming_normal_ = _kaiming(
    "kaiming_normal_",
    lambda tensor, std, generator: normal_(tensor, 0.0, std, generator),
    """$\\mathcal N(0, \\text{std}^2)$ with $\\text{std} = \\text{gain} / \\sqrt{\\text{fan}}$
    (He et al.).""",
)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity: ones on the diagonal (keeps the inputs of a
    linear layer in its output)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(identity(*tensor.shape, dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: output channel $d$ of
    each of the `groups` copies the centre of input channel $d$ (an identity convolution)."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = tensor.shape[0] // groups
    centre = tuple(size // 2 for size in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d, *centre)] = 1
    return tensor


def _orthonormal_columns(a: Tensor) -> Tensor:
    """$Q$ of $A = QR$ for a tall $A$ (rows $\\ge$ columns), with $R$'s diagonal positive:
    classical Gram-Schmidt, each column orthogonalised twice against the ones before
    (which keeps $Q^T Q = I$ to rounding)."""
    q = zeros_like(a)
    for j in range(a.shape[1]):
        column = a[:, j]
        for _ in range(2):
            done = q[:, :j]
            column = column - done @ (done.T @ column)
        q[:, j] = column / column.norm()
    return q


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times `gain` (Saxe et al.): the tensor seen as
    rows $\\times$ (the rest) gets $Q$ of the QR factorisation of a standard normal draw,
    signs chosen so $R$'s diagonal is positive, which makes $Q$ uniform (Haar) among
    orthogonal matrices. Rows (or columns, whichever are fewer) are orthonormal."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flattened = empty((rows, cols), dtype=tensor.dtype, device=tensor.device)
        flattened.normal_(0, 1, generator=generator)
        if rows < cols:
            q = _orthonormal_columns(flattened.T).T
        else:
            q = _orthonormal_columns(flattened)
        tensor.view_as(q).copy_(q)
        return tensor.mul_(gain)


def sparse_(
    tensor: Tensor, sparsity: float, std: float = 0.01, generator: Generator | None = None
) -> Tensor:
    """Fill a 2-D tensor with $\\mathcal N(0, \\text{std}^2)$ draws, then zero
    $\\lceil \\text{sparsity} \\cdot \\text{rows} \\rceil$ random rows in each column (Martens);
    the rows are picked by the default generator, as in PyTorch."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            tensor[randperm(rows, device=tensor.device)[:num_zeros], col] = 0
    return tensor


def _deprecated(function: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """`function` under its old name without the final underscore, with PyTorch's
    `FutureWarning`."""
    new_name = function.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return function(*args, **kwargs)

    deprecated_init.__doc__ = f"`{new_name}` under its deprecated name (warns)."
    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)

__all__ = [
    "calculate_gain",
    "constant",
    "constant_",
    "dirac",
    "dirac_",
    "eye",
    "eye_",
    "kaiming_normal",
    "kaiming_normal_",
    "kaiming_uniform",
    "kaiming_uniform_",
    "normal",
    "normal_",
    "ones_",
    "orthogonal",
    "orthogonal_",
    "sparse",
    "sparse_",
    "trunc_normal_",
    "uniform",
    "uniform_",
    "xavier_normal",
    "xavier_normal_",
    "xavier_uniform",
    "xavier_uniform_",
    "zeros_",
]
