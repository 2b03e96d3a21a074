"""What a profile records: a stack of open ranges, the events they close into, and the time
spent inside backend kernels.

Autograd calls `begin(name)` and `end(token)` around every operation's forward
(`Function.apply`) and backward (`Node.chain_rule`) while a recorder is set on its thread;
`record_function` opens user ranges the same way. A range's *self* time is its total time
less the total time of the ranges opened inside it, so the self times of all events add up
to the wall time the profile saw inside operations.

Kernel time is measured by putting a `TimedBackend` in front of each device's active backend
for the length of the profile: every call of a backend method (map, zip, matmul, a fused
kernel, ...) adds its duration to the innermost open range. On `cuda` a launch returns
before the kernel finishes, so kernel time there is launch time unless the code
synchronises.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..backends import registry


@dataclass
class Event:
    """One closed range: an operation, a backward node, or a `record_function` block.

    Times are in microseconds from the start of the profile, as in `torch.profiler`.
    """

    name: str
    start_us: float
    cpu_time_total: float  # from begin to end
    self_cpu_time_total: float  # less the ranges opened inside it
    self_kernel_time_total: float  # inside backend kernels, outside the ranges opened inside
    depth: int
    input_shapes: list


class Recorder:
    """The open ranges of one profile and the events closed so far."""

    def __init__(self, record_shapes: bool = False) -> None:
        self.record_shapes = record_shapes
        self.events: list[Event] = []
        # each open range: [name, start, time of the ranges inside, kernel time, shapes]
        self.stack: list[list] = []
        self.origin = time.perf_counter()

    def begin(self, name: str, inputs: tuple = ()) -> None:
        shapes = [list(getattr(x, "shape", ())) for x in inputs] if self.record_shapes else []
        self.stack.append([name, time.perf_counter(), 0.0, 0.0, shapes])

    def end(self) -> None:
        if not self.stack:  # a range opened before the profile started
            return
        name, start, inside, kernel, shapes = self.stack.pop()
        total = time.perf_counter() - start
        if self.stack:
            self.stack[-1][2] += total
        micro = 1e6
        self.events.append(
            Event(
                name,
                (start - self.origin) * micro,
                total * micro,
                (total - inside) * micro,
                kernel * micro,
                len(self.stack),
                shapes,
            )
        )

    def timed(self, name: str, run, inputs: tuple, params: dict):
        """`run(*inputs, **params)` as one range named `name`."""
        self.begin(name, inputs)
        try:
            return run(*inputs, **params)
        finally:
            self.end()

    def add_kernel_time(self, seconds: float) -> None:
        if self.stack:
            self.stack[-1][3] += seconds


class TimedBackend:
    """A backend's stand-in that times each method call into the recorder.

    Everything else (its name, its tables) reads through to the backend itself.
    """

    def __init__(self, backend, recorder: Recorder) -> None:
        self._backend = backend
        self._recorder = recorder

    def __getattr__(self, name: str):
        value = getattr(self._backend, name)
        if not callable(value):
            return value
        if name == "kernel":  # an optional kernel is looked up, then called: time the call
            return lambda kernel_name: self._timed(value(kernel_name))
        return self._timed(value)

    def _timed(self, method):
        if method is None:
            return None
        recorder = self._recorder

        def timed_call(*args, **kwargs):
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                recorder.add_kernel_time(time.perf_counter() - start)

        return timed_call


def install_timed_backends(recorder: Recorder) -> dict:
    """Put a `TimedBackend` in front of every device's active backend; return the originals."""
    originals = registry.active_backends()
    for device_type, backend in originals.items():
        registry.activate(device_type, TimedBackend(backend, recorder))
    return originals


def restore_backends(originals: dict) -> None:
    """Undo `install_timed_backends` (keeping any backend chosen meanwhile by `set_backend`)."""
    current = registry.active_backends()
    for device_type, backend in originals.items():
        if isinstance(current.get(device_type), TimedBackend):
            registry.activate(device_type, backend)
