"""Numba's worker threads for `FastBackend`'s parallel kernels: started once, sleeping when idle.

Numba's threading layer is its own default (GNU OpenMP on Linux; NUMBA_THREADING_LAYER
picks another). Idle OpenMP threads spin, and on a loaded machine with few cores that
spinning costs milliseconds per parallel kernel. OMP_WAIT_POLICY=PASSIVE makes them
sleep, and libgomp reads it once, when Numba loads it to start its threads. So minitorch
sets it only for that moment (unless the user set it) and puts the environment back: no
other library loaded later and no child process sees it.

Parallel launches take a lock: the `workqueue` layer, if chosen, aborts on concurrent ones.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from numba.np.ufunc.parallel import _launch_threads  # starts the threads (no public API)

_PARALLEL_LAUNCH = threading.Lock()
_threads_started = False


def _start_threads() -> None:
    """Start Numba's worker threads, sleeping when idle, leaving `os.environ` as it was."""
    global _threads_started
    with _PARALLEL_LAUNCH:
        if "OMP_WAIT_POLICY" in os.environ:
            _launch_threads()
        else:
            os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
            try:
                _launch_threads()
            finally:
                del os.environ["OMP_WAIT_POLICY"]
        _threads_started = True


def one_at_a_time(kernel: Callable) -> Callable:
    """`kernel` as a parallel launch: the threads started (once), then called while holding
    the lock of parallel launches."""
    if not _threads_started:
        _start_threads()

    def launch(*args) -> None:
        with _PARALLEL_LAUNCH:
            kernel(*args)

    return launch
