"""How the benchmark rows of scripts/bench.py are timed and printed: interleaved rounds of
minitorch, NumPy and PyTorch (the best or the median of each), the table's header and rows,
training steps checked against torch's before they are timed, and one-thread runs.

Importing it runs one parallel minitorch kernel before torch is imported (see below), and
gives `torch` (None without PyTorch) and `threadpool_limits` (None without threadpoolctl).
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np

import minitorch

ROOT = Path(__file__).resolve().parent.parent
# One parallel kernel starts Numba's worker threads, and loads the OpenMP runtime with its
# idle threads sleeping (minitorch/backends/fast/threads.py), before torch loads the same
# runtime with its spinning default, which would slow both libraries' kernels on few cores.
(minitorch.ones(256, 256) @ minitorch.ones(256, 256)).sum()

try:
    import torch
except ImportError:  # PyTorch is optional
    torch = None
try:
    from threadpoolctl import threadpool_limits  # NumPy's BLAS threads, for one-thread rows
except ImportError:  # optional (scikit-learn installs it)
    threadpool_limits = None


def calls_per_sample(fn: Callable, min_seconds: float = 0.02) -> int:
    """How many calls of `fn` take at least `min_seconds` (after one warm-up call)."""
    fn()
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - start >= min_seconds or number >= 1 << 20:
            return number
        number *= 4


def compare(
    contenders: dict[str, Callable],
    rounds: int,
    summary: Callable = min,
    clock: Callable = time.perf_counter,
) -> dict[str, float]:
    """Seconds per call of each contender over interleaved rounds, summarised by `summary`
    (the best round by default; `statistics.median` for noisier rows), read from `clock`
    (wall time by default; `time.thread_time` for work that stays on the calling thread)."""
    numbers = {name: calls_per_sample(fn) for name, fn in contenders.items()}
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            start = clock()
            for _ in range(numbers[name]):
                fn()
            times[name].append((clock() - start) / numbers[name])
    return {name: float(summary(t)) for name, t in times.items()}


def median_of_rounds(
    contenders: dict[str, Callable], rounds: int, clock: Callable = time.perf_counter
) -> dict[str, float]:
    """Median seconds per call of each contender, over at least 3 interleaved rounds."""
    return compare(contenders, max(rounds, 3), statistics.median, clock)


def format_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.2f} us"
    return f"{seconds * 1e3:8.2f} ms"


def print_header(title: str) -> None:
    columns = ["minitorch", "numpy"] + (["torch"] if torch else [])
    ratios = ["vs numpy"] + (["vs torch"] if torch else [])
    print(f"\n{title}")
    print(f"  {'':34}" + "".join(f"{c:>13}" for c in columns) + "".join(f"{r:>10}" for r in ratios))


def print_row(
    label: str, best: dict[str, float], work: float | None = None, unit: str = ""
) -> None:
    """Times (or work/time in `unit` when `work` is given) and minitorch's speed ratios; a row
    timed against torch only shows `-` in the numpy columns."""
    numpy_missing = "numpy" not in best and "torch" in best
    cells = []
    for name in ("minitorch", "numpy", "torch"):
        if name not in best:
            cells += [f"{'-':>13}"] if name == "numpy" and numpy_missing else []
            continue
        if work is None:
            cells.append(f"{format_time(best[name]):>13}")
        else:
            cells.append(f"{work / best[name] / 1e9:>8.1f} {unit:>4}")
    ratios = [f"{'':>10}"] if numpy_missing else []
    ratios += [
        f"{best[name] / best['minitorch']:>9.2f}x" for name in ("numpy", "torch") if name in best
    ]
    print(f"  {label:34}" + "".join(cells) + "".join(ratios))


def steps_agree(params: list, torch_params: list, tolerance: float, label: str) -> bool:
    """Whether one step from the same weights left minitorch's and torch's weights within
    `tolerance` of each other; says so when they are not (the row is then not timed)."""
    difference = max(
        float(np.abs(p.detach().cpu().numpy() - q.detach().cpu().numpy()).max())
        for p, q in zip(params, torch_params, strict=True)
    )
    if difference > tolerance:
        print(f"  {label} differs from PyTorch's by {difference:.2g}: not timed")
    return difference <= tolerance


def same_start(build: Callable) -> Callable:
    """`model_of(lib)`: the model `build(lib.nn)` with the weights of one
    `build(minitorch.nn)`, so that minitorch and torch start from the same point."""
    start = build(minitorch.nn)
    weights = {name: value.detach().numpy().copy() for name, value in start.state_dict().items()}

    def model_of(lib):
        model = build(lib.nn)
        model.load_state_dict({name: lib.tensor(value) for name, value in weights.items()})
        return model

    return model_of


def time_steps(
    make_step: Callable,
    name: str,
    label: str,
    rounds: int,
    tolerance: float = 1e-4,
    timing: Callable = median_of_rounds,
) -> None:
    """The row `label` of one training step, `make_step(lib)` -> (step, parameters), in
    minitorch and torch (`timing` of interleaved rounds), timed only when one step from the
    same weights leaves both libraries' parameters within `tolerance` of each other."""
    step, params = make_step(minitorch)
    step()
    contenders = {"minitorch": step}
    if torch:
        torch_step, torch_params = make_step(torch)
        torch_step()
        if not steps_agree(params, torch_params, tolerance, name):
            return
        contenders["torch"] = torch_step
    print_row(label, timing(contenders, rounds))


@contextlib.contextmanager
def one_thread():
    """Numba, NumPy's BLAS and PyTorch each on one thread (NumPy's needs threadpoolctl)."""
    numba_threads = numba.get_num_threads()
    torch_threads = torch.get_num_threads() if torch else 0
    numba.set_num_threads(1)
    if torch:
        torch.set_num_threads(1)
    try:
        with threadpool_limits(1):
            yield
    finally:
        numba.set_num_threads(numba_threads)
        if torch:
            torch.set_num_threads(torch_threads)
