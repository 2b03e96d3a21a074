"""The random fills PyTorch's tensors have besides `uniform_` and `normal_`: `random_`
(integers), `exponential_`, `geometric_`, `log_normal_`, `cauchy_` and `bernoulli_`, each
drawn by NumPy's generator (the default one, or `generator=`) and copied into the tensor
in its dtype."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..tensors.base import TensorBase
from ..tensors.creation import rng_of
from .inplace import copy_samples
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


def random_bound(dtype) -> int:
    """One past the largest integer `random_` draws by default: every integer the dtype holds
    exactly (up to $2^{24}$ for float32, $2^{53}$ for float64)."""
    if dtype is dtypes.bool_:
        return 2
    if dtype.is_floating_point:
        return 2 ** (24 if dtype is dtypes.float32 else 53)
    return dtypes.iinfo(dtype).max + 1


@public(torch=False)
def random_(a: Tensor, low: int = 0, high: int | None = None, *, generator=None) -> Tensor:
    """Fill `a` with integers drawn uniformly from $[low, high)$: `random_(high)` is
    $[0, high)$, and without bounds every integer the dtype holds exactly from 0."""
    if high is None and low != 0:
        low, high = 0, low
    high = random_bound(a.dtype) if high is None else high
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    return copy_samples(a, rng_of(generator).integers(low, high, size=tuple(a.shape)))


@public(torch=False)
def exponential_(a: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill `a` with samples of density $\\lambda e^{-\\lambda x}$."""
    return copy_samples(a, rng_of(generator).exponential(1 / lambd, size=tuple(a.shape)))


@public(torch=False)
def geometric_(a: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill `a` with the number of Bernoulli(`p`) trials up to the first success (1, 2, ...)."""
    return copy_samples(a, rng_of(generator).geometric(p, size=tuple(a.shape)))


@public(torch=False)
def log_normal_(a: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    """Fill `a` with $e^{X}$ for $X \\sim N(mean, std^2)$."""
    return copy_samples(a, rng_of(generator).lognormal(mean, std, size=tuple(a.shape)))


@public(torch=False)
def cauchy_(a: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    """Fill `a` with Cauchy samples $median + \\sigma \\tan(\\pi (U - \\frac12))$."""
    draws = rng_of(generator).standard_cauchy(size=tuple(a.shape))
    return copy_samples(a, median + sigma * draws)


@public(torch=False)
def bernoulli_(a: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill `a` with 1 (probability `p`, a number or a tensor of them) or 0."""
    chance = p.detach().numpy() if isinstance(p, TensorBase) else p
    draws = rng_of(generator).random(size=tuple(a.shape)) < chance
    return copy_samples(a, draws)
