"""Grad mode: whether operations are recorded for backward right now.

`no_grad`, `enable_grad` and `set_grad_enabled` switch it (as context managers
or decorators); `is_grad_enabled` reads it. The switch is per thread, as in PyTorch.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable


class _GradState(threading.local):
    """Per-thread switches: is grad mode on, does this backward keep the graph,
    (inside `autograd.grad`) the nodes whose gradients are captured, not accumulated,
    and (inside `minitorch.profiler.profile`) the recorder that times each operation."""

    enabled = True
    retain_graph = False
    captured: dict | None = None
    profiler = None


_state = _GradState()


def is_grad_enabled() -> bool:
    """Whether operations are recorded for backward right now."""
    return _state.enabled


class _GradMode:
    """A context manager and decorator that sets grad mode and restores it on exit."""

    mode = True

    def __enter__(self) -> None:
        self._previous = _state.enabled
        _state.enabled = self.mode

    def __exit__(self, *exc_info) -> None:
        _state.enabled = self._previous

    def __call__(self, function: Callable) -> Callable:
        mode = self.mode

        @functools.wraps(function)
        def with_mode(*args, **kwargs):
            previous = _state.enabled
            _state.enabled = mode
            try:
                return function(*args, **kwargs)
            finally:
                _state.enabled = previous

        return with_mode


class no_grad(_GradMode):  # noqa: N801 -- PyTorch's name
    """Record no graph inside: `with minitorch.no_grad(): ...` or `@minitorch.no_grad()`.

    >>> import minitorch
    >>> x = minitorch.ones(2, requires_grad=True)
    >>> with minitorch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    mode = False


class enable_grad(_GradMode):  # noqa: N801 -- PyTorch's name
    """Record the graph inside, even within `no_grad`."""

    mode = True


class set_grad_enabled(_GradMode):  # noqa: N801 -- PyTorch's name
    """Set grad mode to `mode` now; used with `with`, the previous mode comes back on exit."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._previous = _state.enabled
        _state.enabled = self.mode

    def __enter__(self) -> None:
        pass
