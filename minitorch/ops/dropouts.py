"""Dropout in its forms: plain, feature (whole channels), alpha and feature alpha, as the
`minitorch.*` functions (`dropout(input, p, train)`, ...) and `nn.functional`'s channel
dropouts (`dropout1d/2d/3d`, `alpha_dropout`, `feature_alpha_dropout`).

Each keeps an element (or, for feature dropout, a whole channel `x[n, c]`) with
probability $1 - p$: a mask $m$ of Bernoulli draws from the default generator. Plain
dropout scales what it keeps, $y = x \\cdot m / (1 - p)$, so $E[y] = x$. Alpha dropout
(for SELU networks) sets a dropped unit to SELU's negative saturation $-\\alpha'$ ($\\alpha'
= \\lambda \\alpha \\approx 1.7581$) and then applies $y = a\\,x' + b$ with
$a = ((1 - p)(1 + p\\alpha'^2))^{-1/2}$ and $b = a \\alpha' p$, which keeps a zero mean and
unit variance; written per element as $y = x \\cdot a m + \\alpha' a (m - 1 + p)$.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

from ..tensors.creation import rand, zeros
from .public import public
from .views import squeeze, unsqueeze

if TYPE_CHECKING:
    from .._tensor import Tensor

SELU_SATURATION = 1.7580993408473766  # SELU's scale times its alpha


def dropped(input: Tensor, p: float, train: bool, feature=False, alpha=False, inplace=False):  # noqa: A002
    """`input` with dropout of probability `p` when `train` (module docstring)."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        nothing = zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(nothing) if inplace else input * nothing
    shape = tuple(input.shape)
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (input.ndim - 2)
    keep = (rand(shape, dtype=input.dtype, device=input.device) < 1 - p).to(input.dtype)
    if not alpha:
        noise = keep / (1 - p)
        return input.mul_(noise) if inplace else input * noise
    a = 1 / math.sqrt((SELU_SATURATION**2 * p + 1) * (1 - p))
    shift = (keep - 1) * (SELU_SATURATION * a) + SELU_SATURATION * a * p
    scaled = input.mul_(keep * a) if inplace else input * (keep * a)
    return scaled.add_(shift)


@public(method=False)
def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """Each element zeroed with probability `p` and the rest scaled by $1/(1 - p)$ when
    `train`; `input` itself otherwise.

    >>> import minitorch
    >>> minitorch.dropout(minitorch.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return dropped(input, p, train)


def dropout_form(name: str, flags: str, doc: str = "", public_name: str = ""):
    """`minitorch.<public_name>(input, p, train)`: `dropped` with the `flags` named (`feature`,
    `alpha`, `inplace`); an in-place form's docstring names the form it writes."""

    def function(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
        return dropped(input, p, train, **dict.fromkeys(flags.split(), True))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc or f"`{name[:-1]}` written into `input`."
    return public(public_name or name, method=False)(function)


dropout_ = dropout_form("dropout_", "inplace")
feature_dropout = dropout_form(
    "feature_dropout",
    "feature",
    "Each channel `input[n, c]` zeroed with probability `p`, the rest scaled by $1/(1-p)$.",
)
feature_dropout_ = dropout_form("feature_dropout_", "feature inplace")
torch_alpha_dropout = dropout_form(
    "torch_alpha_dropout",
    "alpha",
    "Alpha dropout (module docstring): mean and variance kept for SELU networks.",
    "alpha_dropout",
)
alpha_dropout_ = dropout_form("alpha_dropout_", "alpha inplace")
torch_feature_alpha_dropout = dropout_form(
    "torch_feature_alpha_dropout",
    "feature alpha",
    "Alpha dropout of whole channels `input[n, c]`.",
    "feature_alpha_dropout",
)
feature_alpha_dropout_ = dropout_form("feature_alpha_dropout_", "feature alpha inplace")


# ---------------------------------------------------------------------------
# nn.functional's forms: a ValueError for a bad p, `training` and `inplace` keywords
# ---------------------------------------------------------------------------


def check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def functional_form(name: str, flags: str, doc: str):
    """`nn.functional.<name>`: `dropped` with the `flags` named, off unless `training`."""

    def function(
        input: Tensor,  # noqa: A002
        p: float = 0.5,
        training: bool = False,
        inplace: bool = False,
    ) -> Tensor:
        check_p(p)
        return dropped(input, p, training, inplace=inplace, **dict.fromkeys(flags.split(), True))

    function.__name__ = function.__qualname__ = f"functional_{name}"
    function.__doc__ = doc
    return public(name, torch=False, method=False, functional=True)(function)


functional_alpha_dropout = functional_form(
    "alpha_dropout", "alpha", "Alpha dropout when `training` (off by default, as PyTorch's)."
)
functional_feature_alpha_dropout = functional_form(
    "feature_alpha_dropout",
    "feature alpha",
    "Alpha dropout of whole channels when `training` (off by default, as PyTorch's).",
)


def channel_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched: bool):  # noqa: A002
    """Feature dropout of `input`, given a batch dim of 1 first unless `batched`."""
    if batched:
        return dropped(input, p, training, feature=True, inplace=inplace)
    one = input.unsqueeze_(0) if inplace else unsqueeze(input, 0)
    result = dropped(one, p, training, feature=True, inplace=inplace)
    return result.squeeze_(0) if inplace else squeeze(result, 0)


def spatial_warning(name: str, dims: int, ndim: int) -> None:
    """PyTorch's warning for an input of `ndim` dims to the dropout of `dims` spatial dims."""
    warnings.warn(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in "
        "an error in a future release. To retain the behavior and silence this warning, please "
        f"use dropout instead. Note that {name} exists to provide channel-wise dropout on "
        f"inputs with {dims} spatial dimensions, a channel dimension, and an optional batch "
        f"dimension (i.e. {dims + 1}D or {dims + 2}D inputs).",
        stacklevel=3,
    )


@public(torch=False, method=False, functional=True)
def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):  # noqa: A002
    """Each channel of (N, C, L) or (C, L) `input` zeroed with probability `p` in training,
    the rest scaled by $1/(1 - p)$.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.dropout1d(minitorch.ones(2, 3), 0.5, training=False)
    tensor([[1., 1., 1.],
            [1., 1., 1.]])
    """
    check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    return channel_dropout(input, p, training, inplace, input.ndim == 3)


@public(torch=False, method=False, functional=True)
def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):  # noqa: A002
    """Each channel of (N, C, H, W) `input` zeroed with probability `p` in training; a 3-D
    input is taken as (N, C, L), as PyTorch does, with its warning."""
    check_p(p)
    if input.ndim not in (3, 4):
        spatial_warning("dropout2d", 2, input.ndim)
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return dropped(input, p, training, feature=True, inplace=inplace)


@public(torch=False, method=False, functional=True)
def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):  # noqa: A002
    """Each channel of (N, C, D, H, W) or (C, D, H, W) `input` zeroed with probability `p`
    in training, the rest scaled by $1/(1 - p)$."""
    check_p(p)
    if input.ndim not in (4, 5):
        spatial_warning("dropout3d", 3, input.ndim)
    return channel_dropout(input, p, training, inplace, input.ndim == 5)
