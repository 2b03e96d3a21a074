"""`minitorch.utils.data`, as `torch.utils.data`: datasets a training loop reads from.

>>> import minitorch
>>> from minitorch.utils.data import TensorDataset
>>> points = TensorDataset(minitorch.arange(3), minitorch.tensor([0, 1, 0]))
>>> len(points), points[1]
(3, (tensor(1), tensor(1)))
"""

from .dataset import Dataset, TensorDataset

__all__ = ["Dataset", "TensorDataset"]
