"""`Dataset` (anything with `__getitem__` and `__len__`) and `TensorDataset`."""

from __future__ import annotations

from ..._tensor import Tensor


class Dataset:
    """A collection of examples: subclasses define `__getitem__(index)` and `__len__()`."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class TensorDataset(Dataset):
    """Example `i` is `(t[i] for t in tensors)`: the tensors share their first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        if any(t.ndim == 0 for t in tensors):
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]
