"""How a `DataLoader` turns a list of examples into a batch, as `torch.utils.data`'s
`default_collate` and `default_convert` do.

`default_collate` works recursively on the structure of the first example:

| an example part is | the batch part is |
|---|---|
| a tensor of shape `s` | `minitorch.stack(batch)`, of shape `(len(batch), *s)` |
| a NumPy array | the same, from the arrays as tensors of their dtype |
| a NumPy scalar | a 1-D tensor of its dtype |
| a `float` / an `int` / a `bool` | a 1-D `float64` / `int64` / `bool` tensor |
| a `str` or `bytes` | the list as it is |
| a dict | a dict of the same keys, each collated |
| a namedtuple | the same namedtuple of collated fields |
| a tuple | a list of the collated columns |
| a list (any sequence) | a sequence of its type (else a list) of the collated columns |

>>> import minitorch
>>> from minitorch.utils.data import default_collate
>>> default_collate([(minitorch.tensor([1.0, 2.0]), 0), (minitorch.tensor([3.0, 4.0]), 1)])
[tensor([[1., 2.],
        [3., 4.]]), tensor([0, 1])]
"""

from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

from ...dtypes import float64
from ...ops.joins import stack
from ...tensors.creation import from_numpy, is_tensor, tensor

# NumPy dtype strings of strings, bytes and Python objects: not numbers, never tensors.
NON_NUMERIC = re.compile(r"[SaUO]")
ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def rebuild(example, parts):
    """`parts` in a container of `example`'s type when one can be built, else a list/dict."""
    if isinstance(example, collections.abc.Mapping):
        try:
            if isinstance(example, collections.abc.MutableMapping):
                clone = copy.copy(example)
                clone.update(parts)
                return clone
            return type(example)(parts)
        except TypeError:
            return dict(parts)
    if isinstance(example, tuple):
        return type(example)(*parts) if is_namedtuple(example) else list(parts)
    try:
        if isinstance(example, collections.abc.MutableSequence):
            clone = copy.copy(example)
            clone[:] = parts
            return clone
        return type(example)(parts)
    except TypeError:
        return list(parts)


def default_collate(batch: list):
    """One batch from a list of examples (the table in the module docstring)."""
    first = batch[0]
    if is_tensor(first):
        return stack(batch)
    if isinstance(first, np.ndarray):
        if NON_NUMERIC.search(first.dtype.str):
            raise TypeError(ERROR.format(first.dtype))
        return stack([from_numpy(np.ascontiguousarray(a)) for a in batch])
    if isinstance(first, (np.bool_, np.number)):
        return from_numpy(np.array(batch))
    if isinstance(first, float):
        return tensor(batch, dtype=float64)
    if isinstance(first, int):
        return tensor(batch)
    if isinstance(first, (str, bytes)):
        return batch
    if isinstance(first, collections.abc.Mapping):
        return rebuild(first, {key: default_collate([d[key] for d in batch]) for key in first})
    if isinstance(first, collections.abc.Sequence):
        size = len(first)
        if any(len(example) != size for example in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return rebuild(first, [default_collate(column) for column in zip(*batch, strict=True)])
    raise TypeError(ERROR.format(type(first)))


def default_convert(data):
    """What a `DataLoader` with `batch_size=None` returns for each example: NumPy arrays and
    scalars become tensors, containers are converted recursively, anything else is kept."""
    if isinstance(data, np.ndarray):
        if NON_NUMERIC.search(data.dtype.str):
            return data
        return from_numpy(data)
    if isinstance(data, (np.bool_, np.number)):
        return from_numpy(np.array(data))
    if isinstance(data, collections.abc.Mapping):
        return rebuild(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return rebuild(data, [default_convert(d) for d in data])
    return data
