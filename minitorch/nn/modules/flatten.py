"""`Flatten` and `Unflatten`: reshape between a batch of feature maps and of vectors."""

from __future__ import annotations

import math

from ..._tensor import Tensor
from ..module import Module


class Flatten(Module):
    """Dimensions `start_dim` to `end_dim` merged into one (a view when the strides allow)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Dimension `dim` split into `unflattened_size` (one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: tuple[int, ...]) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)) or not all(
            isinstance(size, int) for size in unflattened_size
        ):
            raise TypeError(
                f"unflattened_size must be tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        dim = self.dim % input.ndim if input.ndim else 0
        size = input.shape[dim]
        sizes = list(self.unflattened_size)
        known = math.prod(s for s in sizes if s != -1)
        if (-1 in sizes and (known == 0 or size % known)) or (-1 not in sizes and known != size):
            raise RuntimeError(
                f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim "
                f"{self.dim} ({size}) in the input tensor"
            )
        return input.view(*input.shape[:dim], *sizes, *input.shape[dim + 1 :])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
