"""Batches of sequences of different lengths, as `torch.nn.utils.rnn`.

A padded batch is one (T, B, *) tensor (or (B, T, *) with `batch_first`) whose shorter
sequences are filled up with `padding_value`. A `PackedSequence` keeps only the real
steps, time-major: its `data` holds step 0 of every sequence, then step 1 of those at
least 2 long, and so on, and `batch_sizes[t]` says how many sequences have a step $t$.
The sequences are ordered longest first (`sorted_indices[k]` is the batch position of the
$k$-th longest; `unsorted_indices` is its inverse), so the sequences running at step $t$
are always the first `batch_sizes[t]` rows: a recurrent layer steps through the packed
data without ever computing on padding.

Packing and padding are each one `index_select` (the padding of `pad_packed_sequence` is
one extra row of `data`), so gradients flow back through them unchanged.

>>> import minitorch
>>> from minitorch.nn.utils.rnn import pack_sequence
>>> pack_sequence([minitorch.tensor([1, 2, 3]), minitorch.tensor([4, 5])])
PackedSequence(data=tensor([1, 4, 2, 5, 3]), batch_sizes=tensor([2, 2, 1]), sorted_indices=None, unsorted_indices=None)
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Sequence

from ... import dtypes
from ..._tensor import Tensor
from ...ops.factories import as_tensor
from ...ops.joins import cat, stack
from ...ops.sorting import sort
from ..modules.packed_sequence import PackedSequence, invert_permutation

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


def _lengths_list(lengths) -> list[int]:
    if not isinstance(lengths, Tensor):
        return [int(n) for n in as_tensor(lengths, dtype=dtypes.int64).tolist()]
    if lengths.dim() != 1 or lengths.device.type != "cpu":  # torch: `lengths.cpu()` first
        raise RuntimeError(
            "'lengths' argument should be a 1D CPU int64 tensor, but got "
            f"{lengths.dim()}D {lengths.device} Long tensor"
        )
    return [int(n) for n in lengths.to(dtypes.int64).tolist()]


def _index(values: list[int], like: Tensor) -> Tensor:
    return as_tensor(values, dtype=dtypes.int64, device=like.device)


def pack_padded_sequence(
    input: Tensor,  # noqa: A002
    lengths,
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded batch (T, B, *) (or (B, T, *)) whose sequence $b$ is `lengths[b]` long.
    With `enforce_sorted` the lengths must come longest first; otherwise the batch is
    sorted and the order kept in `sorted_indices`."""
    sizes = _lengths_list(lengths)
    batch = input.size(0 if batch_first else 1)
    order = list(range(len(sizes)))
    sorted_indices = None
    if not enforce_sorted:
        values, indices = sort(as_tensor(sizes, dtype=dtypes.int64), descending=True, stable=True)
        sizes, order = values.tolist(), indices.tolist()
        sorted_indices = _index(order, input)
    if len(sizes) != batch:
        raise RuntimeError(
            "Expected `len(lengths)` to be equal to batch_size, but got "
            f"{len(sizes)} (batch_size={batch})"
        )
    if not sizes or sizes[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if any(a < b for a, b in zip(sizes, sizes[1:], strict=False)):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX exportability."
        )
    steps = input.size(1 if batch_first else 0)
    if sizes[0] > steps:
        raise RuntimeError(
            f"Found a length of {sizes[0]} in 'lengths' but the padded input has only {steps} steps"
        )
    batch_sizes = [sum(1 for n in sizes if n > t) for t in range(sizes[0])]
    # Row (t, b) of the padded batch flattened time-major (or batch-major) to one dim.
    at = (lambda t, b: b * steps + t) if batch_first else (lambda t, b: t * batch + b)
    rows = [at(t, order[k]) for t, size in enumerate(batch_sizes) for k in range(size)]
    flat = input.reshape(steps * batch, *input.shape[2:])
    data = flat.index_select(0, _index(rows, input))
    return PackedSequence(data, as_tensor(batch_sizes, dtype=dtypes.int64), sorted_indices)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """The inverse of `pack_padded_sequence`: the padded batch, in the original batch
    order and `total_length` steps long (by default the longest sequence's), and the
    lengths (an int64 tensor)."""
    data, batch_sizes = sequence.data, [int(n) for n in sequence.batch_sizes.tolist()]
    longest, batch = len(batch_sizes), batch_sizes[0]
    if total_length is not None:
        if total_length < longest:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{longest}"
            )
        longest = total_length
    unsorted = list(range(batch))
    if sequence.unsorted_indices is not None:
        unsorted = sequence.unsorted_indices.tolist()
    offsets = [0]
    for size in batch_sizes:
        offsets.append(offsets[-1] + size)
    pad_row = offsets[-1]
    sorted_lengths = [sum(1 for size in batch_sizes if size > k) for k in range(batch)]

    def row(t: int, b: int) -> int:
        k = unsorted[b]
        return offsets[t] + k if t < len(batch_sizes) and k < batch_sizes[t] else pad_row

    if batch_first:
        rows = [row(t, b) for b in range(batch) for t in range(longest)]
        shape = (batch, longest)
    else:
        rows = [row(t, b) for t in range(longest) for b in range(batch)]
        shape = (longest, batch)
    padded = cat([data, data.new_full((1, *data.shape[1:]), padding_value)])
    padded = padded.index_select(0, _index(rows, data)).reshape(*shape, *data.shape[1:])
    lengths = as_tensor([sorted_lengths[k] for k in unsorted], dtype=dtypes.int64)
    return padded, lengths


def pad_sequence(
    sequences: Sequence[Tensor] | Tensor,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences (L_i, *) into one (T, B, *) tensor (or (B, T, *)), $T = \\max L_i$,
    each filled up with `padding_value` on its `padding_side` ("right" or "left")."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = tuple(sequences[0].shape[1:])
    for s in sequences:
        if tuple(s.shape[1:]) != trailing:
            raise RuntimeError(
                f"pad_sequence: every sequence must have the trailing shape {list(trailing)} "
                f"of the first, but one has {list(s.shape[1:])}"
            )
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        fill = s.new_full((longest - s.shape[0], *trailing), padding_value)
        padded.append(cat([s, fill] if padding_side == "right" else [fill, s]))
    return stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (L_i, *): `pad_sequence` then `pack_padded_sequence`."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
) -> list[Tensor]:
    """The list of sequences of a padded batch: sequence $b$ is its first `lengths[b]`
    steps."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[b, :n] for b, n in enumerate(lengths.tolist())]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences of a `PackedSequence`, in the original batch order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
