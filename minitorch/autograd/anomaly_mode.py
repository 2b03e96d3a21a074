"""Anomaly detection, as `torch.autograd.detect_anomaly`: which forward call made a NaN.

While it is on, every node the forward records remembers the stack of the user's code
that called the operation; when a node's backward returns a gradient with NaN in it, the
backward stops with `RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th
output.`, after a warning that prints the remembered stack. It is process-wide, as in
PyTorch, and slows every operation down: it is for debugging.
"""

from __future__ import annotations

import functools
import os
import traceback
import warnings
import weakref
from collections.abc import Callable

# the package's own frames are left out of a remembered stack: the user's code is what to see
PACKAGE_DIRECTORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _AnomalyMode:
    enabled = False
    check_nan = True


anomaly = _AnomalyMode()
# node -> the stack of the forward call that recorded it (only while anomaly mode is on)
forward_stacks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return anomaly.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward results for NaN."""
    return anomaly.check_nan


class set_detect_anomaly:  # noqa: N801 -- PyTorch's name
    """Turn anomaly detection on or off now; with `with`, the previous setting comes back
    on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._previous = anomaly.enabled, anomaly.check_nan
        anomaly.enabled, anomaly.check_nan = bool(mode), bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info) -> None:
        anomaly.enabled, anomaly.check_nan = self._previous


class detect_anomaly:  # noqa: N801 -- PyTorch's name
    """Anomaly detection inside a block or a decorated function.

    >>> import minitorch, warnings
    >>> x = minitorch.tensor([0.0], requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with minitorch.autograd.detect_anomaly():
    ...         x.sqrt().mul(0.0).sum().backward()
    Traceback (most recent call last):
    RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self._previous: list[tuple[bool, bool]] = []
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self._previous.append((anomaly.enabled, anomaly.check_nan))
        anomaly.enabled, anomaly.check_nan = True, self.check_nan

    def __exit__(self, *exc_info) -> None:
        anomaly.enabled, anomaly.check_nan = self._previous.pop()

    def __call__(self, function: Callable) -> Callable:
        @functools.wraps(function)
        def detecting(*args, **kwargs):
            with self:
                return function(*args, **kwargs)

        return detecting


def remember_forward(node) -> None:
    """Keep the stack of the user's code that is recording `node` now."""
    frames = [
        frame
        for frame in traceback.extract_stack()
        if not os.path.abspath(frame.filename).startswith(PACKAGE_DIRECTORY + os.sep)
    ]
    forward_stacks[node] = "".join(traceback.format_list(frames))


def check_backward_results(node, gradients: tuple) -> None:
    """PyTorch's error for a backward result with NaN, after a warning naming the forward."""
    for k, g in enumerate(gradients):
        if g is not None and g.dtype.is_floating_point and g.isnan().any().item():
            name = node.name()
            warnings.warn(
                f"Error detected in {name}. Traceback of forward call that caused the error:\n"
                + forward_stacks.get(node, "  (recorded before anomaly detection was enabled)\n"),
                stacklevel=2,
            )
            raise RuntimeError(f"Function '{name}' returned nan values in its {k}th output.")
