"""`minitorch.utils.data`, as `torch.utils.data`: datasets, samplers and the `DataLoader`
a training loop reads batches from.

>>> import minitorch
>>> from minitorch.utils.data import TensorDataset
>>> points = TensorDataset(minitorch.arange(3), minitorch.tensor([0, 1, 0]))
>>> len(points), points[1]
(3, (tensor(1), tensor(1)))
"""

from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "default_collate",
    "default_convert",
    "random_split",
]
