"""Memory formats and the strides a copy keeps (`clone`, `empty_like` in PyTorch).

`preserve_format` (the default of `clone`) keeps the source's strides when its
elements fill their storage exactly once in some order (it is *non-overlapping
and dense*: a transpose, a permutation); otherwise it lays the copy out densely
in the order of the source's strides, largest outermost. `contiguous_format`
is the row-major layout.
"""

from __future__ import annotations

from ..backends.tensor_data import strides_from_shape


class MemoryFormat:
    """A memory format: `minitorch.preserve_format` or `minitorch.contiguous_format`."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"


preserve_format = MemoryFormat("preserve_format")
contiguous_format = MemoryFormat("contiguous_format")
MEMORY_FORMATS = (preserve_format, contiguous_format)


def is_non_overlapping_and_dense(shape: tuple, strides: tuple) -> bool:
    """Whether some order of the dims makes `strides` row-major (size-1 dims ignored)."""
    expected = 1
    for stride, size in sorted((s, n) for n, s in zip(shape, strides, strict=True) if n > 1):
        if stride != expected:
            return False
        expected *= size
    return True


def dense_strides(shape: tuple, strides: tuple) -> tuple:
    """Row-major strides for the dims ordered as `strides` order them (largest outermost).

    Ties and zero strides keep the dims' own order; among equal strides, the
    longer dim goes inside (PyTorch's `infer_dense_strides`).
    """
    order = list(range(len(shape) - 1, -1, -1))  # innermost first
    for i in range(1, len(order)):  # insertion sort that passes over undecided pairs
        moving = i
        for j in range(i - 1, -1, -1):
            decided = compare_dims(shape, strides, order[j], order[moving])
            if decided > 0:
                order[j], order[moving] = order[moving], order[j]
                moving = j
            elif decided < 0:
                break
    result = [0] * len(shape)
    step = 1
    for d in order:
        result[d] = step
        step *= max(shape[d], 1)
    return tuple(result)


def compare_dims(shape: tuple, strides: tuple, a: int, b: int) -> int:
    """1 where dim `a` goes outside dim `b`, -1 inside, 0 undecided (a zero stride)."""
    if strides[a] == 0 or strides[b] == 0:
        return 0
    if strides[a] != strides[b]:
        return 1 if strides[a] > strides[b] else -1
    return 1 if shape[a] > shape[b] else 0


def preserved_strides(shape: tuple, strides: tuple, memory_format: MemoryFormat) -> tuple | None:
    """The strides of a copy in `memory_format`; None where they are the row-major ones."""
    if memory_format not in MEMORY_FORMATS:
        raise RuntimeError(f"unsupported memory format {memory_format!r}")
    if memory_format is contiguous_format:
        return None
    if not is_non_overlapping_and_dense(shape, strides):
        strides = dense_strides(shape, strides)
    return None if tuple(strides) == tuple(strides_from_shape(shape)) else tuple(strides)
