"""`minitorch.profiler`, as `torch.profiler`: time per operation, forward and backward.

`recorder.py` keeps the open ranges and times backend kernels; `profile.py` has
`profile`, `record_function`, `schedule` and the averaged table.
"""

from .profile import (
    EventList,
    FunctionEventAvg,
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
)

__all__ = [
    "EventList",
    "FunctionEventAvg",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
]
