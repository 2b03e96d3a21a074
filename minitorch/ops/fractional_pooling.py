"""Fractional max pooling (Graham, 2014): `fractional_max_pool2d` and its `_with_indices`.

Windows of a fixed size $k$ whose starts step by a non-integer $\\alpha = (L - k)/(o - 1)$
along a dim of size $L$ to $o$ outputs: the $i$-th starts at
$\\lfloor (i + u)\\alpha \\rfloor - \\lfloor u \\alpha \\rfloor$, and the last at $L - k$, with
$u \\in [0, 1)$ drawn for each plane and dim (`_random_samples`, (N, C, 2): $u$ for the
width, then the height). The arithmetic runs in the input's dtype, as PyTorch's. The windows
are then pooled by `WindowMax`, as adaptive max pooling's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dtypes import int64
from ..tensors.creation import arange, rand, tensor, zeros
from .adaptive_unpool_lp_pooling import (
    WindowMax,
    check_floating,
    check_planes,
    plane_positions,
    with_indices,
)
from .joins import cat
from .pooling import pool_param
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


def window_starts(samples: Tensor, size: int, out: int, pool: int) -> Tensor:
    """(N, C, out): where each window starts, for `samples` $u$ (N, C)."""
    n, c = samples.shape
    if out == 0:
        return zeros(n, c, 0, dtype=int64, device=samples.device)
    last = tensor(size - pool, dtype=int64, device=samples.device).expand(n, c, 1)
    if out == 1:
        return last
    alpha = tensor((size - pool) / (out - 1), dtype=samples.dtype, device=samples.device)
    i = arange(out - 1, device=samples.device).to(samples.dtype).view(1, 1, -1)
    u = samples.view(n, c, 1)
    starts = ((i + u) * alpha).floor().long() - (u * alpha).floor().long()
    return cat([starts, last], -1)


def pair_of(value, what: str) -> tuple:
    return pool_param(value, what, "fractional_max_pool2d", text="a single Int or tuple of Ints")


def check_samples(input: Tensor, samples: Tensor) -> None:  # noqa: A002
    """PyTorch's checks of `_random_samples` for `input`."""
    if samples.dtype is not input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch = input.shape[0] if input.ndim == 4 else 1
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-3]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != 2:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to 2; got {samples.shape[2]}.")


@public(torch=False, method=False, functional=True)
def fractional_max_pool2d(
    input: Tensor,  # noqa: A002
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
):
    """Max pooling of kH x kW windows at pseudo-random, non-integer steps to `output_size`
    (or `output_ratio` of the input's size); the starts come from `_random_samples`, uniform
    in [0, 1) and drawn from the default generator when not given.

    >>> import minitorch
    >>> x = minitorch.arange(16.0).view(1, 1, 4, 4)
    >>> u = minitorch.full((1, 1, 2), 0.5)
    >>> minitorch.nn.functional.fractional_max_pool2d(x, 2, (2, 2), _random_samples=u)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    if output_size is None and output_ratio is None:
        raise ValueError(
            "fractional_max_pool2d requires specifying either an output_size or an output_ratio"
        )
    if output_size is None:
        if len(output_ratio) > 2:
            raise ValueError(
                "fractional_max_pool2d requires output_ratio to either be a single Int or "
                "tuple of Ints."
            )
        ratio = tuple(output_ratio) * (2 if len(output_ratio) == 1 else 1)
        output_size = (int(input.shape[-2] * ratio[0]), int(input.shape[-1] * ratio[1]))
    if _random_samples is None:
        batch = 1 if input.ndim == 3 else input.shape[0]
        _random_samples = rand(batch, input.shape[-3], 2, dtype=input.dtype, device=input.device)
    kernel, out = pair_of(kernel_size, "kernel_size"), pair_of(output_size, "output_size")
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"fractional_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}"
        )
    check_planes(input, "fractional_max_pool2d", "but got{shape} with dimension {dim} being empty.")
    check_floating(input, "fractional_max_pool2d")
    height, width = input.shape[-2:]
    for what, size, o, k in (
        ("height", height, out[0], kernel[0]),
        ("width", width, out[1], kernel[1]),
    ):
        if o + k - 1 > size:
            raise RuntimeError(
                f"fractional_max_pool2d(): pool {what} {k} too large relative to input "
                f"{what} {size}"
            )
    check_samples(input, _random_samples)
    batch = input.shape[0] if input.ndim == 4 else 1
    samples = _random_samples[:batch]
    cols = window_starts(samples[:, :, 0], width, out[1], kernel[1])
    rows = window_starts(samples[:, :, 1], height, out[0], kernel[0])
    rows = rows.unsqueeze(-1) + arange(kernel[0], device=input.device)
    cols = cols.unsqueeze(-1) + arange(kernel[1], device=input.device)
    positions = plane_positions(rows, cols, width)
    pooled = WindowMax.apply(input, positions, kind="FractionalMaxPool2DBackward0")
    return pooled if return_indices else pooled[0]


fractional_max_pool2d_with_indices = with_indices(
    fractional_max_pool2d,
    "`fractional_max_pool2d` and the position of each maximum in its (H * W) input plane.",
    torch=False,
)
