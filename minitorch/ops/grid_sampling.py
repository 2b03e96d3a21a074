"""Spatial transformers: `affine_grid` and `grid_sample` (2-D), as `torch.nn.functional`.

`affine_grid` maps the normalized coordinates of every output pixel, $(x, y, 1)$
in $[-1, 1]$, through a batch of affine matrices: one matrix product with a
fixed base grid, and its transpose for the gradient.

`grid_sample` reads the input at the grid's points. A point's coordinates
are unnormalized to pixel units (corners at the outer pixels' centres with
`align_corners`, else at their outer edges), moved by the padding mode
(clamped to the border, or reflected back inside), and read from the four
pixels around it with bilinear weights (or from the nearest one, ties to
even; or from the 4 x 4 around it with the cubic convolution of `interpolate`,
each tap moved by the padding mode on its own). Pixels outside the input read
0. Each tap is a `gather` of the
input's planes; the input's gradient adds each output's gradient back
through the same taps (`scatter_add_`), and the grid's is the derivative of
the bilinear weights times each tap's value, chained through the padding
mode and the unnormalization, as PyTorch computes it.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ..autograd.graph import GraphContext
from ..dtypes import int64
from ..tensors.creation import linspace, ones, zeros
from .functions import Op
from .interpolation import CUBIC_A, cubic_weights
from .joins import stack
from .public import public
from .selection import where

if TYPE_CHECKING:
    from .._tensor import Tensor

ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def steps(n: int, align_corners: bool, like: Tensor) -> Tensor:
    """$n$ points from -1 to 1 (the pixels' centres: scaled by $(n - 1) / n$ unless
    `align_corners`); one point is 0."""
    if n <= 1:
        return zeros(n, dtype=like.dtype, device=like.device)
    points = linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)
    return points if align_corners else points * ((n - 1) / n)


def base_grid(spatial: tuple, align_corners: bool, like: Tensor) -> Tensor:
    """(prod spatial, dims + 1): each output pixel's $(x, y[, z], 1)$, x along the last dim."""
    axes = [steps(n, align_corners, like) for n in reversed(spatial)]  # x first
    dims = len(spatial)
    columns = []
    for k, axis in enumerate(axes):
        shape = [1] * dims
        shape[dims - 1 - k] = -1
        columns.append(axis.view(*shape).expand(*spatial))
    columns.append(ones(*spatial, dtype=like.dtype, device=like.device))
    return stack(columns, dim=-1).reshape(-1, dims + 1)


class AffineGridGenerator(Op):
    """$grid_n = B\\, \\theta_n^T$ for the base grid $B$ (prod spatial, dims + 1)"""

    @staticmethod
    def forward(ctx: GraphContext, theta: Tensor, size: tuple, align_corners: bool) -> Tensor:
        base = base_grid(tuple(size[2:]), align_corners, theta)
        ctx.base, ctx.shape = base, (size[0], *size[2:], len(size) - 2)
        return (base @ theta.transpose(1, 2)).view(ctx.shape)

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """$\\partial \\theta_n = g_n^T B$"""
        rows = grad.reshape(grad.shape[0], ctx.base.shape[0], grad.shape[-1])
        return rows.transpose(1, 2) @ ctx.base


@public(torch=False, method=False, functional=True)
def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """The sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps `theta`
    (N, 2, 3) (or (N, 3, 4)) for an output of `size` (N, C, H, W) (or 5-D): point
    $(x, y)$ of the output samples $\\theta\\, (x, y, 1)^T$, all in [-1, 1] coordinates.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.affine_grid(minitorch.eye(2, 3).view(1, 2, 3), (1, 1, 2, 2), align_corners=True)
    tensor([[[[-1., -1.],
              [ 1., -1.]],
    <BLANKLINE>
             [[-1.,  1.],
              [ 1.,  1.]]]])
    """
    if align_corners is None:
        warnings.warn(ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    dims = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (dims, dims + 1):
        raise ValueError(
            f"Expected a batch of {dims}D affine matrices of shape Nx{dims}x{dims + 1} for size "
            f"{size}. Got {theta.shape}."
        )
    if align_corners and min(size[2:]) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {dims + 1}] but got: [{theta.shape[0]}, {dims + 1}]."
        )
    return AffineGridGenerator.apply(theta, size=size, align_corners=align_corners)


# ---------------------------------------------------------------------------
# grid_sample
# ---------------------------------------------------------------------------


def reflected(coord: Tensor, low2: int, high2: int) -> tuple[Tensor, Tensor]:
    """`coord` reflected into [low2 / 2, high2 / 2] (as often as it takes), and the
    derivative of that map (+1 or -1)."""
    if low2 == high2:
        return coord * 0, coord * 0
    low, span = low2 / 2, (high2 - low2) / 2
    shifted = coord - low
    sign = where(shifted < 0, -1.0, 1.0).to(coord.dtype)
    distance = shifted.abs()
    extra = distance.fmod(span)
    even = (distance / span).floor().fmod(2) == 0
    out = where(even, extra + low, span - extra + low)
    return out, sign * where(even, 1.0, -1.0).to(coord.dtype)


def unnormalized(coord: Tensor, size: int, align_corners: bool) -> tuple[Tensor, Tensor]:
    """Normalized `coord` in pixel units, and the derivative of that map."""
    if align_corners:
        pixels, slope = (coord + 1) * ((size - 1) / 2), (size - 1) / 2
    else:
        pixels, slope = ((coord + 1) * size - 1) / 2, size / 2
    return pixels, ones(coord.shape, dtype=coord.dtype, device=coord.device) * slope


def padded_pixels(pixels: Tensor, size: int, padding_mode: str, align_corners: bool):
    """Pixel coordinates moved by the padding mode (reflected, clamped to the border), and the
    derivative of that move (None for zeros: none)."""
    if padding_mode == "zeros":
        return pixels, None
    turn = None
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        pixels, turn = reflected(pixels, *twice)
    inside = ((pixels > 0) & (pixels < size - 1)).to(pixels.dtype)
    return pixels.clamp(0, size - 1), inside if turn is None else inside * turn


def source_coordinates(coord: Tensor, size: int, settings: tuple) -> tuple[Tensor, Tensor]:
    """Normalized `coord` in pixel units after the padding mode, and its derivative; bicubic
    pads each of its taps instead (`taps`), as PyTorch."""
    mode, padding_mode, align_corners = settings
    pixels, slope = unnormalized(coord, size, align_corners)
    if mode == "bicubic":
        return pixels, slope
    pixels, turn = padded_pixels(pixels, size, padding_mode, align_corners)
    return pixels, slope if turn is None else slope * turn


def cubic_slopes(t: Tensor) -> tuple:
    """The derivatives by $t$ of `cubic_weights(t)`."""
    a = CUBIC_A

    def near(x):  # of ((a + 2) x - (a + 3)) x^2 + 1
        return (3 * (a + 2) * x - 2 * (a + 3)) * x

    def far(x):  # of ((a x - 5 a) x + 8 a) x - 4 a
        return (3 * a * x - 10 * a) * x + 8 * a

    return far(t + 1), near(t), -near(1 - t), -far(2 - t)


def taps(ix: Tensor, iy: Tensor, shape: tuple, settings: tuple) -> list:
    """The pixels each point reads: (flat index (N, P), whether it is inside the input and the
    weight, 0 outside (N, P), and but for nearest the weight's derivatives by ix and iy)."""
    mode, padding_mode, align_corners = settings
    height, width = shape
    if mode == "nearest":
        corners = [(ix.round(), iy.round(), ix * 0 + 1, None, None)]
    elif mode == "bicubic":
        x0, y0 = ix.floor(), iy.floor()
        wx, wy = cubic_weights(ix - x0), cubic_weights(iy - y0)
        sx, sy = cubic_slopes(ix - x0), cubic_slopes(iy - y0)
        corners = []
        for j in range(4):
            cy = padded_pixels(y0 + (j - 1), height, padding_mode, align_corners)[0]
            for i in range(4):
                cx = padded_pixels(x0 + (i - 1), width, padding_mode, align_corners)[0]
                corners.append((cx, cy, wx[i] * wy[j], sx[i] * wy[j], wx[i] * sy[j]))
    else:
        x0, y0 = ix.floor(), iy.floor()
        x1, y1 = x0 + 1, y0 + 1
        corners = [
            (x0, y0, (x1 - ix) * (y1 - iy), -(y1 - iy), -(x1 - ix)),
            (x1, y0, (ix - x0) * (y1 - iy), y1 - iy, -(ix - x0)),
            (x0, y1, (x1 - ix) * (iy - y0), -(iy - y0), x1 - ix),
            (x1, y1, (ix - x0) * (iy - y0), iy - y0, ix - x0),
        ]
    found = []
    for cx, cy, weight, by_x, by_y in corners:
        inside = ((cx >= 0) & (cx <= width - 1) & (cy >= 0) & (cy <= height - 1)).to(ix.dtype)
        index = cy.clamp(0, height - 1) * width + cx.clamp(0, width - 1)
        flat = (ix.shape[0], ix.shape[1] * ix.shape[2])  # (N, P), P possibly 0
        inside = inside.reshape(flat)
        found.append(
            (index.to(int64).reshape(flat), inside, weight.reshape(flat) * inside, by_x, by_y)
        )
    return found


class GridSampler2D(Op):
    """$y[n, c, p] = \\sum_t w_t[n, p]\\, x[n, c, j_t[n, p]]$ over the taps of each grid point"""

    once_differentiable = True  # its backward re-reads the taps: no second derivative

    @staticmethod
    def forward(ctx: GraphContext, x: Tensor, grid: Tensor, mode, padding_mode, align_corners):
        n, c, height, width = x.shape
        settings = (mode, padding_mode, align_corners)
        ix, gx = source_coordinates(grid[..., 0], width, settings)
        iy, gy = source_coordinates(grid[..., 1], height, settings)
        planes = x.reshape(n, c, height * width)
        found = taps(ix, iy, (height, width), settings)
        out = None
        for index, _, weight, _, _ in found:
            part = planes.gather(2, index.unsqueeze(1).expand(n, c, -1)) * weight.unsqueeze(1)
            out = part if out is None else out + part
        ctx.save_for_backward(x, grid)
        ctx.settings = settings
        return out.view(n, c, *grid.shape[1:3])

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> tuple:
        """$\\partial x$: each tap's weighted gradient added back to its pixel;
        $\\partial grid$: $\\sum_{c, t} g\\, x_t\\, \\partial w_t / \\partial i$ times
        $\\partial i / \\partial grid$"""
        x, grid = ctx.saved_tensors
        n, c, height, width = x.shape
        ix, gx = source_coordinates(grid[..., 0], width, ctx.settings)
        iy, gy = source_coordinates(grid[..., 1], height, ctx.settings)
        g = grad.reshape(n, c, grid.shape[1] * grid.shape[2])
        planes = x.reshape(n, c, height * width)
        grad_x = zeros(n, c, height * width, dtype=x.dtype, device=x.device)
        by_x = by_y = zeros(n, g.shape[2], dtype=x.dtype, device=x.device)
        for index, inside, weight, dx, dy in taps(ix, iy, (height, width), ctx.settings):
            spread = index.unsqueeze(1).expand(n, c, -1)
            grad_x.scatter_add_(2, spread, g * weight.unsqueeze(1))
            if dx is not None:
                seen = (g * planes.gather(2, spread)).sum(1) * inside
                by_x = by_x + seen * dx.reshape(seen.shape)
                by_y = by_y + seen * dy.reshape(seen.shape)
        grad_grid = stack([by_x.view(ix.shape) * gx, by_y.view(iy.shape) * gy], dim=-1)
        return grad_x.view(x.shape), grad_grid


@public(torch=False, method=False, functional=True)
def grid_sample(
    input: Tensor,  # noqa: A002
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """`input` (N, C, H, W) read at the points of `grid` (N, H_out, W_out, 2), whose last dim
    is (x, y) in [-1, 1] from the left/top to the right/bottom: (N, C, H_out, W_out).
    `mode` bilinear, nearest or bicubic; `padding_mode` zeros (0 outside), border or
    reflection.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> x = minitorch.tensor([[[[0.0, 10.0], [20.0, 30.0]]]])
    >>> F.grid_sample(x, minitorch.tensor([[[[0.0, 0.0], [1.0, -1.0]]]]), align_corners=True)
    tensor([[[[15., 10.]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(ALIGN_WARNING, stacklevel=2)
        align_corners = False
    check_grid(input, grid)
    return GridSampler2D.apply(input, grid, mode, padding_mode, align_corners)


def check_grid(x: Tensor, grid: Tensor) -> None:
    """PyTorch's checks of `grid_sample`'s operands, with its messages."""
    if grid.dtype is not x.dtype:
        raise RuntimeError(
            f"expected scalar type {x.dtype.torch_scalar_name} but found "
            f"{grid.dtype.torch_scalar_name}"
        )
    sizes = f"input with sizes {list(x.shape)} and grid with sizes {list(grid.shape)}"
    if x.ndim == 0 or grid.ndim == 0 or x.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}"
        )
    if grid.shape[-1] != x.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {x.ndim - 2} in last dimension, "
            f"but got grid with sizes {list(grid.shape)}"
        )
    if x.ndim != grid.ndim or x.ndim not in (4, 5):
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got {sizes}"
        )
    for dim in range(2, x.ndim):
        if x.shape[dim] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                f"has sizes {list(x.shape)} with dimension {dim} being empty"
            )
    if x.ndim == 5:
        raise NotImplementedError("grid_sample: minitorch samples 2-D grids only (4-D input)")
    if not x.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"grid_sampler_2d_cpu_kernel_impl\" not implemented for '{x.dtype.torch_scalar_name}'"
        )
