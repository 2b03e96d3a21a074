"""`PackedSequence`: the packed steps of a batch of sequences (`nn.utils.rnn` makes and
unpacks them; the recurrent layers step through them).

It lives beside the layers so that they need nothing from `nn.utils`, which builds on them.
"""

from __future__ import annotations

from collections import namedtuple

from ... import dtypes
from ..._tensor import Tensor
from ...ops.factories import as_tensor

__all__ = ["PackedSequence", "invert_permutation"]


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse $q$ of a permutation $p$ ($q[p[k]] = k$), or None for None."""
    if permutation is None:
        return None
    inverse = [0] * permutation.numel()
    for k, p in enumerate(permutation.tolist()):
        inverse[p] = k
    return as_tensor(inverse, dtype=dtypes.int64, device=permutation.device)


def _converting_to(dtype):
    """A method that converts a `PackedSequence`'s data to `dtype` (`.double()`, ...)."""

    def convert(self) -> PackedSequence:
        return self.to(dtype=dtype)

    convert.__doc__ = f"`to(dtype={dtype})`."
    return convert


class PackedSequence(
    namedtuple("PackedSequence", "data batch_sizes sorted_indices unsorted_indices")
):
    """The packed steps of a batch of sequences (see the module's docstring): `data`
    (sum(batch_sizes), *), `batch_sizes` (an int64 CPU tensor), and the batch order
    `sorted_indices` / `unsorted_indices` (None when the batch came sorted)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # the tuple form (data, batch_sizes)
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """`data.to(...)`; the indices follow to its device (the batch sizes stay on the CPU).
        Returns `self` when `data` does not change."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kept = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        indices = [
            None if i is None else i.to(data.device, **kept)
            for i in (self.sorted_indices, self.unsorted_indices)
        ]
        return type(self)(data, self.batch_sizes, *indices)

    def cpu(self) -> PackedSequence:
        return self.to(device="cpu")

    def cuda(self, *args, **kwargs) -> PackedSequence:
        return self.to(self.data.cuda(*args, **kwargs).device)

    double = _converting_to(dtypes.float64)
    float = _converting_to(dtypes.float32)
    long = _converting_to(dtypes.int64)
    int = _converting_to(dtypes.int32)
    short = _converting_to(dtypes.int16)
    char = _converting_to(dtypes.int8)
    byte = _converting_to(dtypes.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda
