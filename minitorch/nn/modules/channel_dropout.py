"""The channel and alpha dropouts: `Dropout1d/2d/3d`, `AlphaDropout`, `FeatureAlphaDropout`.

Each is the identity in eval mode and calls its function of `minitorch.nn.functional` in
training.
"""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional
from .dropout import DropoutNd


class Dropout1d(DropoutNd):
    """Each channel of (N, C, L) or (C, L) inputs zeroed with probability `p` in training.

    >>> import minitorch
    >>> minitorch.nn.Dropout1d(0.3)
    Dropout1d(p=0.3, inplace=False)
    """

    function = staticmethod(functional.dropout1d)


class Dropout2d(DropoutNd):
    """Each channel of (N, C, H, W) inputs zeroed with probability `p` in training."""

    function = staticmethod(functional.dropout2d)


class Dropout3d(DropoutNd):
    """Each channel of (N, C, D, H, W) or (C, D, H, W) inputs zeroed with probability `p`."""

    function = staticmethod(functional.dropout3d)


class AlphaDropout(DropoutNd):
    """Alpha dropout in training: dropped units at SELU's saturation, then an affine map that
    keeps zero mean and unit variance."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(DropoutNd):
    """Alpha dropout of whole channels in training."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.feature_alpha_dropout(input, self.p, self.training)
