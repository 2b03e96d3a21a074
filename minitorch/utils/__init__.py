"""`minitorch.utils`, as `torch.utils`: `minitorch.utils.data` holds datasets and loaders."""

from . import data

__all__ = ["data"]
