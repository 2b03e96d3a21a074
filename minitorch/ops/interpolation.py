"""Resizing by interpolation: `interpolate` (`nn.functional`) and its deprecated forms.

Every mode is separable: along each spatial dim, output position $i$ reads a
few input positions (taps) $j_t(i)$ with weights $w_t(i)$,
$y[\\ldots, i, \\ldots] = \\sum_t w_t(i)\\, x[\\ldots, j_t(i), \\ldots]$: one tap of
weight 1 for the nearest modes, two for linear, four for cubic, and with
`antialias` as many as the widened filter reaches (`antialiased_taps`). Each
tap is (index, weight or None for 1, mask or None for all). `Upsample`
applies the taps dim after dim (`index_select`, a product, a sum). Its
backward gathers too: each input position's gradient is read from the outputs
that read it (`inverse_taps`), dim after dim in reverse order. The tables of
taps follow PyTorch's CPU kernels: the same source coordinates
(`source_scale`), the nearest modes' index computed in float32 as PyTorch
computes it, and the cubic convolution with $A = -0.75$.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..autograd.graph import GraphContext
from ..dtypes import bool_, float32, int64
from ..tensors.creation import tensor
from .functions import Op
from .gather import index_select
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
from .public import public
from .selection import where

if TYPE_CHECKING:
    from .._tensor import Tensor

MODES = {  # mode -> spatial dims it takes (None: any of 1, 2, 3)
    "nearest": None,
    "nearest-exact": None,
    "area": None,
    "linear": 1,
    "bilinear": 2,
    "bicubic": 2,
    "trilinear": 3,
}
NODE_KINDS = {
    "nearest": "UpsampleNearest",
    "nearest-exact": "UpsampleNearestExact",
    "linear": "UpsampleLinear",
    "bilinear": "UpsampleBilinear",
    "bicubic": "UpsampleBicubic",
    "trilinear": "UpsampleTrilinear",
    "area": "AdaptiveAvgPool",
}
# the CPU kernel whose name PyTorch's error for an integer input gives: mode -> (by dims)
KERNEL_NAMES = {
    "nearest": ("compute_indices_weights_nearest", "upsample_nearest2d_channels_last"),
    "nearest-exact": ("compute_indices_weights_nearest", "upsample_nearest2d_channels_last"),
    "linear": ("compute_indices_weights_linear",) * 2,
    "bilinear": ("upsample_bilinear2d_channels_last",) * 2,
    "trilinear": ("compute_indices_weights_linear",) * 2,
    "bicubic": ("compute_indices_weights_cubic",) * 2,
    "area": ("adaptive_avg_pool2d",) * 2,
}
CUBIC_A = -0.75  # PyTorch's (and OpenCV's) cubic convolution parameter


def f32(value: float) -> float:
    """`value` rounded to float32 (PyTorch computes the nearest modes' index in float)."""
    return float(np.float32(value))


def source_scale(size: int, out: int, align_corners: bool, scale, single: bool) -> float:
    """Input positions per output position: $(L - 1) / (o - 1)$ with aligned corners,
    else $1 / s$ for a given scale factor $s$, else $L / o$ (`single`: in float32)."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    if scale is not None and scale > 0:
        return f32(1.0 / scale) if single else 1.0 / scale
    return f32(f32(size) / out) if single else size / out


def nearest_taps(size: int, out: int, scale, exact: bool, single: bool) -> list:
    """$j(i) = \\min(\\lfloor i r \\rfloor, L - 1)$ (`exact`: $\\lfloor (i + 1/2) r \\rfloor$),
    computed in float32 as PyTorch computes it."""
    r = f32(source_scale(size, out, False, scale, single))
    if exact:
        index = [min(math.floor(f32((i + 0.5) * r)), size - 1) for i in range(out)]
    else:
        index = [min(math.floor(f32(i * r)), size - 1) for i in range(out)]
    return [(index, None, None)]


def source_index(r: float, i: int, align_corners: bool, cubic: bool) -> float:
    """The input coordinate of output position $i$: $r i$ with aligned corners, else
    $r (i + 1/2) - 1/2$ (at least 0 unless `cubic`)."""
    if align_corners:
        return r * i
    x = r * (i + 0.5) - 0.5
    return x if cubic or x >= 0 else 0.0


def split(x: float, size: int) -> tuple[int, float]:
    """The input position below `x` (at most L - 1) and how far past it `x` is, in [0, 1]."""
    j = min(math.floor(x), size - 1)
    return j, min(max(x - j, 0.0), 1.0)


def linear_taps(size: int, out: int, align_corners: bool, scale) -> list:
    """$(1 - \\lambda) x_j + \\lambda x_{j + 1}$ (the last position has no right neighbour);
    equal sizes copy, whatever the scale factor, as PyTorch."""
    if size == out:
        return [(list(range(out)), None, None)]
    r = source_scale(size, out, align_corners, scale, False)
    left, right, weights = [], [], []
    for i in range(out):
        j, lam = split(source_index(r, i, align_corners, False), size)
        left.append(j)
        right.append(j + 1 if j < size - 1 else j)
        weights.append(lam)
    return [(left, [1.0 - w for w in weights], None), (right, weights, None)]


def keys_near(x, a: float):
    """Keys' cubic convolution kernel for $|x| \\le 1$: $((a + 2) x - (a + 3)) x^2 + 1$."""
    return ((a + 2) * x - (a + 3)) * x * x + 1


def keys_far(x, a: float):
    """Keys' cubic convolution kernel for $1 < |x| < 2$: $((a x - 5 a) x + 8 a) x - 4 a$."""
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def cubic_weights(t) -> tuple:
    """The cubic convolution's weights at distances $t + 1, t, 1 - t, 2 - t$ (numbers or
    tensors of $t$ in [0, 1])."""
    return (
        keys_far(t + 1, CUBIC_A),
        keys_near(t, CUBIC_A),
        keys_near(1 - t, CUBIC_A),
        keys_far(2 - t, CUBIC_A),
    )


def cubic_taps(size: int, out: int, align_corners: bool, scale) -> list:
    """Four taps $j - 1 \\ldots j + 2$ around the source coordinate, clamped to the input."""
    r = source_scale(size, out, align_corners, scale, False)
    taps = [([], [], None) for _ in range(4)]
    for i in range(out):
        j, t = split(source_index(r, i, align_corners, True), size)
        for k, w in enumerate(cubic_weights(t)):
            taps[k][0].append(max(min(j - 1 + k, size - 1), 0))
            taps[k][1].append(w)
    return taps


def along(t: Tensor, dim: int) -> tuple:
    """The shape that lays a vector along `dim` of `t`, broadcast over the others."""
    return (-1,) + (1,) * (t.ndim - 1 - dim)


def antialiased_taps(size: int, out: int, align_corners: bool, scale, cubic: bool) -> list:
    """When shrinking by $r > 1$, the filter (triangle, or cubic with $a = -1/2$) widened $r$
    times and normalized, over the input positions it reaches around $r (i + 1/2)$, as
    PyTorch's antialias; as wide as the widest, masked where an output reads fewer."""
    r = source_scale(size, out, align_corners, scale, False)
    support = (2.0 if cubic else 1.0) * max(r, 1.0)
    most = math.ceil(support) * 2 + 1
    rows = []
    for i in range(out):
        centre = r * (i + 0.5)
        low = max(int(centre - support + 0.5), 0)
        count = max(min(min(int(centre + support + 0.5), size) - low, most), 0)
        weights = [
            antialias_filter((low + j - centre + 0.5) / max(r, 1.0), cubic) for j in range(count)
        ]
        total = sum(weights)
        rows.append((low, [w / total for w in weights] if total != 0 else weights))
    return padded_taps(rows)


def averaging_taps(size: int, out: int) -> list:
    """Adaptive average pooling's windows: output $i$ averages input positions
    $\\lfloor i L / o \\rfloor$ to $\\lceil (i + 1) L / o \\rceil$ (exclusive)."""
    rows = []
    for i in range(out):
        low, high = (i * size) // out, -((-(i + 1) * size) // out)
        rows.append((low, [1.0 / (high - low)] * (high - low)))
    return padded_taps(rows)


def padded_taps(rows: list) -> list:
    """Taps of rows (first input position, weights) of different lengths: as many as the
    longest, masked where a row has fewer."""
    taps = []
    for k in range(max(len(w) for _, w in rows)):
        has = [k < len(w) for _, w in rows]
        index = [low + k if h else 0 for (low, _), h in zip(rows, has, strict=True)]
        weight = [w[k] if h else 0.0 for (_, w), h in zip(rows, has, strict=True)]
        taps.append((index, weight, None if all(has) else has))
    return taps


def antialias_filter(x: float, cubic: bool) -> float:
    """The triangle $\\max(0, 1 - |x|)$, or Keys' cubic convolution with $a = -1/2$."""
    x = abs(x)
    if not cubic:
        return max(0.0, 1.0 - x)
    if x < 1:
        return keys_near(x, -0.5)
    return keys_far(x, -0.5) if x < 2 else 0.0


def inverse_taps(taps: list, size: int) -> list:
    """The taps of the backward: for each input position, the outputs that read it and their
    weights, as taps (index, weight, and where a position has fewer: a mask)."""
    readers = [[] for _ in range(size)]
    for index, weight, mask in taps:
        for i, j in enumerate(index):
            if mask is None or mask[i]:
                readers[j].append((i, 1.0 if weight is None else weight[i]))
    found = []
    for k in range(max(len(r) for r in readers)):
        has = [k < len(r) for r in readers]
        index = [r[k][0] if h else 0 for r, h in zip(readers, has, strict=True)]
        weight = [r[k][1] if h else 0.0 for r, h in zip(readers, has, strict=True)]
        ones = all(w == 1.0 for w in weight)
        found.append((index, None if ones else weight, None if all(has) else has))
    return found


def read_taps(x: Tensor, dim: int, taps: list) -> Tensor:
    """$\\sum_t w_t\\, x[j_t]$ along `dim` (the taps' masks, where given, keep only their
    positions: 0 elsewhere, whatever $x$ holds)."""
    out = None
    for index, weight, mask in taps:
        part = index_select(x, dim, index)
        if weight is not None:
            part = part * weight.view(along(x, dim))
        if mask is not None:
            part = where(mask.view(along(x, dim)), part, 0.0)
        out = part if out is None else out + part
    return out


class Upsample(Op):
    """$y = \\sum_t w_t\\, x[j_t]$ along each spatial dim in turn; `tables` holds each dim's
    taps and the backward's (index, weight or None, mask or None) as tensors."""

    @classmethod
    def node_name(cls, x, tables, kind) -> str:
        return kind

    @staticmethod
    def forward(ctx: GraphContext, x: Tensor, tables: list, kind: str) -> Tensor:
        ctx.tables = tables
        for d, (taps, _) in enumerate(tables):
            x = read_taps(x, 2 + d, taps)
        return x.contiguous()

    @staticmethod
    def backward(ctx: GraphContext, grad: Tensor) -> Tensor:
        """Each input's gradient gathered from the outputs that read it, times their weights"""
        for d in reversed(range(len(ctx.tables))):
            grad = read_taps(grad, 2 + d, ctx.tables[d][1])
        return grad


def taps_as_tensors(taps: list, x: Tensor) -> list:
    """(index, weight, mask) lists as tensors on `x`'s device (None stays None)."""
    kinds = (int64, x.dtype, bool_)
    return [
        tuple(
            None if values is None else tensor(values, dtype=kind, device=x.device)
            for values, kind in zip(tap, kinds, strict=True)
        )
        for tap in taps
    ]


def sizes_and_scales(x: Tensor, size, scale_factor, recompute: bool | None) -> tuple:
    """PyTorch's reading of `size` / `scale_factor`: the output's spatial sizes, and the
    scale factors the kernels use (None where they use the sizes' ratio)."""
    dims = x.ndim - 2
    spatial = list(x.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dims:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                )
            if not all(isinstance(n, int) and not isinstance(n, bool) for n in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    "Tuple[int, int, int], but got size with types "
                    f"{[type(n) for n in size]}"
                )
        if recompute:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return (list(size) if isinstance(size, (list, tuple)) else [size] * dims), [None] * dims
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dims:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {spatial} and scale_factor of shape "
                f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                "and scale_factor in (s1, s2, ...,sK) format."
            )
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dims
    sizes = [math.floor(n * s) for n, s in zip(spatial, scales, strict=True)]
    return sizes, ([None] * dims if recompute else scales)


def check_sizes(x: Tensor, sizes: list) -> None:
    """PyTorch's message for an empty input or output."""
    if min(sizes) > 0 and min(x.shape[2:]) > 0:
        return
    names = ("D", "H", "W")[3 - len(sizes) :]
    given = ", ".join(f"{n}: {s}" for n, s in zip(names, x.shape[2:], strict=True))
    wanted = ", ".join(f"{n}: {s}" for n, s in zip(names, sizes, strict=True))
    joint = " and" if len(sizes) == 1 else ""  # PyTorch's wording differs by dims
    raise RuntimeError(
        f"Input and output sizes should be greater than 0, but got input ({given}){joint} "
        f"output ({wanted})"
    )


def mode_error(x: Tensor, mode: str) -> Exception:
    """PyTorch's error for a mode that does not take `x`'s number of dims, or no mode."""
    if mode in ("linear", "bilinear", "trilinear") and x.ndim in (3, 4, 5):
        wanted = {1: "3D", 2: "4D", 3: "5D"}[MODES[mode]]
        return NotImplementedError(f"Got {x.ndim}D input, but {mode} mode needs {wanted} input")
    return NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {x.ndim}D) for the modes: nearest | linear | bilinear | bicubic | trilinear |"
        f" lanczos | area | nearest-exact (got {mode})"
    )


@public(torch=False, method=False, functional=True)
def interpolate(
    input: Tensor,  # noqa: A002
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """`input` (N, C, *spatial) resized to `size`, or by `scale_factor`, with `mode` nearest,
    nearest-exact, area (adaptive average pooling), linear (3-D), bilinear or bicubic (4-D),
    trilinear (5-D). `align_corners`: the corner pixels' centres map onto each other, else
    their outer edges do.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.interpolate(minitorch.tensor([[[0.0, 1.0]]]), size=4, mode="linear")
    tensor([[[0.0000, 0.2500, 0.7500, 1.0000]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the "
                "interpolating modes: linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    sizes, scales = sizes_and_scales(input, size, scale_factor, recompute_scale_factor)
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.ndim == 4):
            raise ValueError(
                "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
                "requires a 4-D tensor as input"
            )
    dims = MODES.get(mode, 0)
    if mode not in MODES or input.ndim not in (3, 4, 5) or dims not in (None, input.ndim - 2):
        raise mode_error(input, mode)
    check_sizes(input, sizes)
    if not input.dtype.is_floating_point:
        kernel = KERNEL_NAMES[mode][input.ndim == 4]
        if mode == "area" and input.ndim == 5:
            kernel = "adaptive_avg_pool3d_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{input.dtype.torch_scalar_name}'"
        )
    if mode == "area" and input.ndim < 5:
        pool = adaptive_avg_pool1d if input.ndim == 3 else adaptive_avg_pool2d
        return pool(input, sizes[0] if input.ndim == 3 else tuple(sizes))
    single = input.dtype is float32
    tables = []
    for n, out, scale in zip(input.shape[2:], sizes, scales, strict=True):
        if mode == "area":  # 3-D: adaptive average pooling, dim by dim
            taps = averaging_taps(n, out)
        elif antialias:
            taps = antialiased_taps(n, out, align_corners, scale, mode == "bicubic")
        elif mode in ("nearest", "nearest-exact"):
            taps = nearest_taps(n, out, scale, mode == "nearest-exact", single)
        elif mode == "bicubic":
            taps = cubic_taps(n, out, align_corners, scale)
        else:
            taps = linear_taps(n, out, align_corners, scale)
        tables.append((taps_as_tensors(taps, input), taps_as_tensors(inverse_taps(taps, n), input)))
    kind = f"{NODE_KINDS[mode]}{input.ndim - 2}D{'Aa' if antialias else ''}Backward0"
    return Upsample.apply(input, tables=tables, kind=kind)


def deprecated(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=3,
    )


@public(torch=False, method=False, functional=True)
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """`interpolate` under its old name (deprecated: warns, as PyTorch)."""
    deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


@public(torch=False, method=False, functional=True)
def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    """`interpolate(..., mode="nearest")` (deprecated: warns, as PyTorch)."""
    deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


@public(torch=False, method=False, functional=True)
def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    """`interpolate(..., mode="bilinear", align_corners=True)` (deprecated: warns, as
    PyTorch)."""
    deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
