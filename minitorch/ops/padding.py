"""`pad` (`nn.functional.pad`) in its four modes: constant, reflect, replicate, circular.

Constant padding is `ConstantPadNd` (`convolution.py`). The other three modes copy
each output element from an input element: along one padded dim of size $n$, with
$b$ elements before, output position $j$ reads input position $i = j - b$ mapped
into $[0, n)$,

- reflect: $|i|$, or $2(n - 1) - i$ past the end (the edge is not repeated);
- replicate: $i$ clamped to $[0, n - 1]$;
- circular: $i \\bmod n$.

Negative amounts crop, as the same formula says; in circular mode the crop comes first and
the rest wraps around what it keeps, as PyTorch's. So a padding is one `index_select`
per padded dim (`IndexPad`), and its backward the matching `index_add`s, which add
up the gradients of the copies of each input element.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..tensors.creation import tensor, zeros
from .convolution import check_pad_length, pad_constant, pad_region
from .functions import Op
from .gather import index_add, index_select
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor

MODES = ("constant", "reflect", "replicate", "circular")
KERNEL_NAMES = {"reflect": "reflection_pad", "replicate": "replication_pad"}
NODE_KINDS = {"reflect": "ReflectionPad", "replicate": "ReplicationPad"}


def source_positions(mode: str, size: int, before: int, after: int) -> list[int]:
    """The input position each output position of one dim reads (module docstring)."""
    positions = []
    for j in range(size + before + after):
        i = j - before
        if mode == "reflect":
            i = -i if i < 0 else (2 * (size - 1) - i if i >= size else i)
        elif mode == "replicate":
            i = min(max(i, 0), size - 1)
        else:  # the crop first, then the wrap around what is left
            start, kept = max(-before, 0), size - max(-before, 0) - max(-after, 0)
            i = start + (j - max(before, 0)) % kept
        positions.append(i)
    return positions


class IndexPad(Op):
    """$y = x$ at the positions `picks` gives along each padded dim (`index_select`s)."""

    @staticmethod
    def forward(ctx, a: Tensor, picks: tuple, kind: str) -> Tensor:
        ctx.picks, ctx.shapes, out = picks, [], a
        for dim, index in picks:
            ctx.shapes.append(tuple(out.shape))
            out = index_select(out, dim, index)
        return out.contiguous()

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        """$g$ added back at the positions read, one dim at a time, last first"""
        for (dim, index), shape in reversed(list(zip(ctx.picks, ctx.shapes, strict=True))):
            grad = index_add(zeros(*shape, dtype=grad.dtype, device=grad.device), dim, index, grad)
        return grad

    @classmethod
    def node_name(cls, *inputs, kind: str, **settings) -> str:
        return kind


def check_supported(input: Tensor, pad: tuple, mode: str) -> int:  # noqa: A002
    """PyTorch's checks of a padding that is not constant; the number of padded dims."""
    dims = len(pad) // 2
    if len(pad) not in (2, 4, 6) or input.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    if mode == "circular":
        for k in reversed(range(dims)):  # the first padded dim first
            size, before, after = input.shape[-1 - k], pad[2 * k], pad[2 * k + 1]
            kept = size - max(-before, 0) - max(-after, 0)
            if before > size or after > size or max(before, after) > max(kept, 0):
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if size + before + after < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
        return dims
    shape = list(input.shape)
    if any(size == 0 for size in shape[-dims - 1 :] if input.ndim == dims + 2) or (
        input.ndim == dims + 1 and any(size == 0 for size in shape)
    ):
        raise RuntimeError(
            f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch "
            f"size and other non-zero dimensions for input, but got: {shape}"
        )
    if mode == "reflect":
        for k in range(dims):
            before, after = pad[2 * k], pad[2 * k + 1]
            if before >= shape[-1 - k] or after >= shape[-1 - k]:
                raise RuntimeError(
                    f"Argument #{2 * k + 4}: Padding size should be less than the "
                    f"corresponding input dimension, but got: padding ({before}, {after}) at "
                    f"dimension {input.ndim - 1 - k} of input {shape}"
                )
    out = pad_region(tuple(shape), pad)[0]
    if dims == 1 and out[-1] < 1:
        raise RuntimeError(f"input (W: {shape[-1]}) is too small. Calculated output W: {out[-1]}")
    if dims == 3 and all(size < 1 for size in out[-3:]):
        d, h, w = shape[-3:]
        raise RuntimeError(
            f"input (D: {d} H: {h}, W: {w}) is too small. Calculated output D: {out[-3]} "
            f"H: {out[-2]} W: {out[-1]}"
        )
    if any(size < 0 for size in out):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {out}")
    if input.dtype is dtypes.bool_:
        raise NotImplementedError(f"\"{KERNEL_NAMES[mode]}{dims}d\" not implemented for 'Bool'")
    return dims


@public(torch=False, method=False, functional=True)
def pad(input: Tensor, pad: tuple, mode: str = "constant", value=None) -> Tensor:  # noqa: A002
    """`input` padded by `pad` = (left, right, top, bottom, front, back), from the last dim;
    negative amounts crop. `mode`: "constant" (`value`, 0 by default), "reflect" (mirrored
    about the edge), "replicate" (the edge repeated) or "circular" (wrapped around).

    >>> import minitorch
    >>> x = minitorch.tensor([[1.0, 2.0, 3.0]])
    >>> minitorch.nn.functional.pad(x, (2, 1), mode="reflect")
    tensor([[3., 2., 1., 2., 3., 2.]])
    >>> minitorch.nn.functional.pad(x, (2, 1), mode="circular")
    tensor([[2., 3., 1., 2., 3., 1.]])
    """
    if mode not in MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant":
        return pad_constant(input, pad, value)
    pad = check_pad_length(input, pad)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    dims = check_supported(input, pad, mode)
    picks = tuple(
        (
            input.ndim - 1 - k,
            tensor(
                source_positions(mode, input.shape[-1 - k], pad[2 * k], pad[2 * k + 1]),
                dtype=dtypes.int64,
                device=input.device,
            ),
        )
        for k in range(dims)
    )
    kind = f"{NODE_KINDS[mode]}{dims}DBackward0" if mode in NODE_KINDS else "CircularPadBackward0"
    return IndexPad.apply(input, picks=picks, kind=kind)
