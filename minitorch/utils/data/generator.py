"""The random numbers of the samplers and of `random_split`.

torch's samplers take a `torch.Generator`; here `generator=` takes a `minitorch.Generator`
(what `minitorch.manual_seed` seeds and returns), and also a NumPy `numpy.random.Generator`
or a standard-library `random.Random`. With `generator=None` a fresh seed is drawn from
minitorch's default generator, so `minitorch.manual_seed(s)` makes every shuffle of a run
reproducible, as `torch.manual_seed` does in PyTorch. The orders differ from torch's
(another random number generator); the guarantees are the same: the same seed gives the
same orders, each pass draws a new one.
"""

from __future__ import annotations

import random

import numpy as np

from ...tensors.creation import Generator as TensorGenerator
from ...tensors.creation import randint

Generator = TensorGenerator | np.random.Generator | random.Random
KINDS = (TensorGenerator, np.random.Generator, random.Random)
# torch's base seeds are the non-negative int64 values.
SEED_BOUND = 2**63 - 1


def check_generator(generator) -> None:
    """Raise `TypeError` unless `generator` is None or one of the kinds of `Generator`."""
    if generator is not None and not isinstance(generator, KINDS):
        raise TypeError(
            "generator must be a minitorch.Generator (what minitorch.manual_seed returns), "
            f"a numpy.random.Generator or a random.Random, got {type(generator).__name__}"
        )


def resolve(generator: Generator | None) -> np.random.Generator | random.Random:
    """The stream to draw from: `generator`'s own, or, when it is None, a new one seeded
    from minitorch's default generator."""
    check_generator(generator)
    if generator is None:
        return np.random.default_rng(int(randint(0, 2**62, (1,)).item()))
    if isinstance(generator, TensorGenerator):
        return generator.rng
    return generator


def base_seed(generator: Generator | None) -> int:
    """One seed in $[0, 2^{63} - 1)$ drawn from `generator` (the default generator when None),
    as a `DataLoader` draws its workers' base seed each epoch."""
    check_generator(generator)
    if isinstance(generator, random.Random):
        return generator.randrange(SEED_BOUND)
    if isinstance(generator, np.random.Generator):
        return int(generator.integers(0, SEED_BOUND))
    return int(randint(0, SEED_BOUND, (1,), generator=generator).item())


def tensor_generator(generator: Generator | None) -> TensorGenerator | None:
    """`generator` as a `minitorch.Generator` for the tensor functions' `generator=`
    (None stays None: the default generator)."""
    check_generator(generator)
    if generator is None or isinstance(generator, TensorGenerator):
        return generator
    wrapped = TensorGenerator()
    if isinstance(generator, random.Random):
        return wrapped.manual_seed(generator.getrandbits(63))
    wrapped.rng = generator
    return wrapped


def permutation(n: int, generator: Generator | None) -> list[int]:
    """A uniformly random order of `range(n)`."""
    rng = resolve(generator)
    if isinstance(rng, random.Random):
        order = list(range(n))
        rng.shuffle(order)
        return order
    return rng.permutation(n).tolist()


def integers(n: int, count: int, generator: Generator | None) -> list[int]:
    """`count` independent uniform draws from `range(n)` (sampling with replacement)."""
    rng = resolve(generator)
    if isinstance(rng, random.Random):
        return [rng.randrange(n) for _ in range(count)]
    return rng.integers(0, n, size=count).tolist()
