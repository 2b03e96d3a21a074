"""Grad mode: whether operations are recorded for backward right now.

`no_grad`, `enable_grad` and `set_grad_enabled` switch it (as context managers
or decorators); `is_grad_enabled` reads it. The switch is per thread, as in PyTorch.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable

from ..tensors.base import inference_state


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


class inference_mode:  # noqa: N801 -- PyTorch's name
    """`no_grad` that also marks every tensor made inside as an *inference tensor*.

    A context manager or a decorator (`@minitorch.inference_mode` or
    `@minitorch.inference_mode()`). Inference tensors refuse autograd afterwards, as in
    PyTorch: outside the mode they cannot be saved for backward, written in place, or made
    to require grad (`clone()` one to get a normal tensor; a refused write leaves the
    tensor as it was, where PyTorch raises after writing). `inference_mode(False)` turns
    the mode off again inside (and grad mode on).

    >>> import minitorch
    >>> with minitorch.inference_mode():
    ...     y = minitorch.ones(2) * 2
    >>> y.requires_grad, y.is_inference()
    (False, True)
    """

    def __new__(cls, mode=True):
        if callable(mode):  # used as a decorator without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self._previous: list[tuple[bool, bool]] = []

    def __enter__(self) -> None:
        self._previous.append((_state.enabled, inference_state.enabled))
        _state.enabled, inference_state.enabled = not self.mode, self.mode

    def __exit__(self, *exc_info) -> None:
        _state.enabled, inference_state.enabled = self._previous.pop()

    def __call__(self, function: Callable) -> Callable:
        mode = self.mode

        @functools.wraps(function)
        def in_mode(*args, **kwargs):
            with inference_mode(mode):
                return function(*args, **kwargs)

        return in_mode

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)


def is_inference_mode_enabled() -> bool:
    """Whether this thread is inside `minitorch.inference_mode()`."""
    return inference_state.enabled
