"""`minitorch.profiler.profile`: where a program's time goes, operation by operation.

A subset of `torch.profiler` with its names and its table:

>>> import minitorch
>>> from minitorch.profiler import profile, record_function
>>> x = minitorch.ones(8, 8, requires_grad=True)
>>> with profile() as prof:
...     with record_function("step"):
...         (x @ x).relu().sum().backward()
>>> [e.key for e in prof.key_averages() if e.key == "step"]
['step']

Each row of `prof.key_averages().table(...)` is one operation (the `Function` that
ran: `MatMul`, its backward `MatMulBackward0`, a `record_function` name), with how
often it ran, its *self* CPU time (less the operations it called), its total CPU time,
and the part of its self time spent inside backend kernels: the rest is the Python
path around them.
"""

from __future__ import annotations

import enum
import functools
import json
import warnings
from collections.abc import Callable

from ..autograd.grad_mode import _state
from .recorder import Event, Recorder, install_timed_backends, restore_backends


class ProfilerActivity(enum.Enum):
    """What to profile: accepted as in torch; both are timed on the host."""

    CPU = 0
    CUDA = 1


class ProfilerAction(enum.Enum):
    """What a `schedule` says a step does."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(
    *, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0
) -> Callable[[int], ProfilerAction]:
    """torch's step schedule: skip `skip_first` steps, then cycles of `wait` idle steps,
    `warmup` steps run but not kept, and `active` recorded ones (the last of which saves:
    `on_trace_ready` is called), `repeat` times (0: for ever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup}"
            f" (need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    cycle = wait + warmup + active

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        within = step % cycle
        if within < wait:
            return ProfilerAction.NONE
        if within < wait + warmup:
            return ProfilerAction.WARMUP
        last = within == cycle - 1
        return ProfilerAction.RECORD_AND_SAVE if last else ProfilerAction.RECORD

    return action


class FunctionEventAvg:
    """The events of one name (and, when grouped so, one list of input shapes) summed.

    Times are microseconds; `cpu_time` is the mean total time per call.
    """

    def __init__(self, key: str, input_shapes: list) -> None:
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.self_kernel_time_total = 0.0

    def add(self, event: Event) -> None:
        self.count += 1
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.self_kernel_time_total += event.self_kernel_time_total

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        self_time = format_time(self.self_cpu_time_total)
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self_time}"
            f" cpu_time={format_time(self.cpu_time)} count={self.count}>"
        )


def format_time(microseconds: float) -> str:
    """torch's table format: `438.260us`, `286.127ms`, `1.234s`."""
    if microseconds >= 1e6:
        return f"{microseconds / 1e6:.3f}s"
    if microseconds >= 1e3:
        return f"{microseconds / 1e3:.3f}ms"
    return f"{microseconds:.3f}us"


class EventList(list):
    """Averaged events, with torch's `table()`."""

    def __init__(self, rows, wall_time: float, with_shapes: bool) -> None:
        super().__init__(rows)
        self.wall_time = wall_time  # the self CPU time of everything recorded, microseconds
        self.with_shapes = with_shapes

    def table(self, sort_by: str | None = None, row_limit: int = 100, **_options) -> str:
        """The rows as torch prints them (largest `sort_by` first), plus a kernel column."""
        rows = list(self)
        if sort_by is not None:
            if rows and not hasattr(rows[0], sort_by):
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            rows.sort(key=lambda r: getattr(r, sort_by), reverse=True)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        width = min(max([len(r.key) for r in rows] + [4]) + 4, 55)
        headers = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        headers += ["Self kernel", "# of Calls"]
        shapes_width = max([len(str(r.input_shapes)) for r in rows] + [12]) + 4
        rule = "-" * width + "  " + "  ".join("-" * 12 for _ in headers) + "  "
        header = "Name".rjust(width) + "  " + "  ".join(h.rjust(12) for h in headers) + "  "
        if self.with_shapes:
            rule += "-" * shapes_width + "  "
            header += "Input Shapes".rjust(shapes_width) + "  "
        lines = [rule, header, rule]
        total = self.wall_time or 1.0
        for r in rows:
            name = r.key if len(r.key) <= width else r.key[: width - 3] + "..."
            cells = [
                f"{100 * r.self_cpu_time_total / total:.2f}%",
                format_time(r.self_cpu_time_total),
                f"{100 * r.cpu_time_total / total:.2f}%",
                format_time(r.cpu_time_total),
                format_time(r.cpu_time),
                format_time(r.self_kernel_time_total),
                str(r.count),
            ]
            line = name.rjust(width) + "  " + "  ".join(c.rjust(12) for c in cells) + "  "
            if self.with_shapes:
                line += str(r.input_shapes).rjust(shapes_width) + "  "
            lines.append(line)
        lines += [rule, f"Self CPU time total: {format_time(self.wall_time)}", ""]
        return "\n".join(lines)


class profile:
    """Record every operation run on this thread while the block runs.

    `activities`, `profile_memory`, `with_stack`, `with_flops` and `with_modules` are
    accepted for torch's programs and change nothing; `record_shapes=True` keeps each
    operation's input shapes (`key_averages(group_by_input_shape=True)`). With a
    `schedule`, `prof.step()` moves to the next step, only recorded steps are kept, and
    `on_trace_ready(prof)` is called at the end of each active cycle.
    """

    def __init__(
        self,
        activities=None,
        *,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        **_options,
    ) -> None:
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.step_num = 0
        self.recorder: Recorder | None = None
        self._kept: list[Event] = []
        self._originals: dict = {}

    def __enter__(self) -> profile:
        if _state.profiler is not None:
            raise RuntimeError("a profiler is already running on this thread")
        self._kept = []
        if self._action() is not ProfilerAction.NONE:
            self._start_recording()
        return self

    def __exit__(self, *exc_info) -> None:
        action = self._action()
        self._stop_recording(keep=action is not ProfilerAction.WARMUP)
        if self.on_trace_ready is not None and action is not ProfilerAction.WARMUP:
            if self.schedule is None or action is not ProfilerAction.NONE:
                self.on_trace_ready(self)

    def start(self) -> None:
        self.__enter__()

    def stop(self) -> None:
        self.__exit__(None, None, None)

    def step(self) -> None:
        """End one step of the schedule and begin the next."""
        before = self._action()
        self.step_num += 1
        after = self._action()
        if before is ProfilerAction.RECORD_AND_SAVE:  # an active cycle is complete
            self._stop_recording(keep=True)
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
            self._kept = []
        elif before is ProfilerAction.WARMUP and after is not ProfilerAction.WARMUP:
            self._stop_recording(keep=False)  # warmup steps run with the recorder, unkept
        elif after is ProfilerAction.NONE:
            self._stop_recording(keep=True)
        if after is not ProfilerAction.NONE and self.recorder is None:
            self._start_recording()

    def _action(self) -> ProfilerAction:
        return ProfilerAction.RECORD if self.schedule is None else self.schedule(self.step_num)

    def _start_recording(self) -> None:
        self.recorder = Recorder(self.record_shapes)
        self._originals = install_timed_backends(self.recorder)
        _state.profiler = self.recorder

    def _stop_recording(self, keep: bool) -> None:
        if self.recorder is None:
            return
        if keep:
            self._kept += self.recorder.events
        _state.profiler = None
        restore_backends(self._originals)
        self.recorder = None

    def events(self) -> list[Event]:
        """Every recorded range, in the order they closed."""
        return list(self._kept) + (list(self.recorder.events) if self.recorder else [])

    def key_averages(self, group_by_input_shape: bool = False) -> EventList:
        """The events summed by name (and input shapes), in the order names first closed."""
        rows: dict = {}
        for event in self.events():
            shapes = event.input_shapes if group_by_input_shape else []
            key = (event.name, str(shapes))
            if key not in rows:
                rows[key] = FunctionEventAvg(event.name, shapes)
            rows[key].add(event)
        wall = sum(e.self_cpu_time_total for e in self.events())
        return EventList(rows.values(), wall, group_by_input_shape)

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (open it in chrome://tracing or Perfetto)."""
        trace = [
            {"name": e.name, "ph": "X", "ts": e.start_us, "dur": e.cpu_time_total,
             "pid": 0, "tid": 0, "cat": "cpu_op", "args": {"Input Dims": e.input_shapes}}
            for e in self.events()
        ]  # fmt: skip
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)


class record_function:
    """A named range in the profile (a context manager or a decorator); nothing when no
    profile is running."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self._recorder: Recorder | None = None

    def __enter__(self) -> record_function:
        self._recorder = _state.profiler
        if self._recorder is not None:
            self._recorder.begin(self.name)
        return self

    def __exit__(self, *exc_info) -> None:
        if self._recorder is not None:
            self._recorder.end()
            self._recorder = None

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def ranged(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)

        return ranged
