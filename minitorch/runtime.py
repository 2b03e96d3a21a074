"""Runtime settings PyTorch scripts touch: version, threads, determinism, the random state,
`compile`, and the legacy tensor types (`minitorch.FloatTensor`, ...).

`set_num_threads` sets the number of threads Numba's parallel kernels use (at most
the number Numba started with, `NUMBA_NUM_THREADS`). minitorch's kernels are
deterministic, so `use_deterministic_algorithms` only records the setting.
"""

from __future__ import annotations

from importlib import metadata

import numba

from ._tensor import Tensor
from .tensors import creation
from .tensors.legacy_types import legacy_types


def package_version() -> str:
    """minitorch's version, marked as minitorch's (`0.1.0+minitorch`)."""
    try:
        number = metadata.version("minitorch")
    except metadata.PackageNotFoundError:
        number = "0.1.0"
    return f"{number}+minitorch"


__version__ = package_version()


def set_num_threads(n: int) -> None:
    """Use `n` threads for Numba's parallel kernels (1 to `NUMBA_NUM_THREADS`)."""
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


def get_num_threads() -> int:
    """The number of threads Numba's parallel kernels use."""
    return numba.get_num_threads()


_deterministic = {"mode": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic kernels: minitorch's all are, so this records the setting
    (`warn_only` is accepted: there is nothing to warn about)."""
    _deterministic["mode"] = bool(mode)


def are_deterministic_algorithms_enabled() -> bool:
    """What `use_deterministic_algorithms` last set."""
    return _deterministic["mode"]


_settings = {"matmul_precision": "highest", "warn_always": False, "interop_threads": 1}


def set_float32_matmul_precision(precision: str) -> None:
    """Record `"highest"`, `"high"` or `"medium"`: minitorch's float32 products are always
    computed in float32 (`"highest"`), so the setting changes no result."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}: highest, high or medium")
    _settings["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """What `set_float32_matmul_precision` last set (`"highest"` by default)."""
    return _settings["matmul_precision"]


def set_warn_always(flag: bool) -> None:
    """Record whether once-only warnings should repeat (minitorch's use Python's filters)."""
    _settings["warn_always"] = bool(flag)


def is_warn_always_enabled() -> bool:
    """What `set_warn_always` last set."""
    return _settings["warn_always"]


def set_num_interop_threads(n: int) -> None:
    """Record the number of threads for running operations side by side: minitorch runs one
    operation at a time, each parallel inside (`set_num_threads`)."""
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _settings["interop_threads"] = n


def get_num_interop_threads() -> int:
    """What `set_num_interop_threads` last set (1 by default)."""
    return _settings["interop_threads"]


def get_rng_state() -> Tensor:
    """The default generator's state (an int64 tensor; PyTorch's is uint8) for `set_rng_state`."""
    return creation.default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator to a state `get_rng_state` gave."""
    creation.default_generator.set_state(new_state)


def compile(model=None, **options):  # noqa: A001 -- PyTorch's name
    """`model` itself, unchanged: minitorch has no graph compiler (its kernels are compiled
    by Numba already). Used as `@minitorch.compile` or `@minitorch.compile(mode=...)`, it
    returns the function it decorates."""
    if model is None:
        return lambda fn: fn
    return model


(
    FloatTensor,
    DoubleTensor,
    LongTensor,
    IntTensor,
    ShortTensor,
    CharTensor,
    ByteTensor,
    BoolTensor,
) = legacy_types(is_cuda=False)
