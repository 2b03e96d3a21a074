"""The rows of scripts/bench.py where learners feel the speed (`--only loader,speed`): the
DataLoader's workers and their start, and medians of interleaved rounds at tensor level (the
first matmul of a fresh process, matmuls on all threads and on one).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_timing import (
    ROOT,
    compare,
    format_time,
    median_of_rounds,
    one_thread,
    print_header,
    print_row,
    threadpool_limits,
    torch,
)

import minitorch


class SlowItems:
    """64 examples that take 2 ms each to read (as a file read or an image decode would):
    the wait that worker processes overlap. Defined here, at the top level, so that workers
    can unpickle it."""

    def __len__(self) -> int:
        return 64

    def __getitem__(self, index: int) -> np.ndarray:
        time.sleep(0.002)
        return np.full(8, index, np.float32)


WORKER_START_PROBE = """
import sys, time
import minitorch
from minitorch.utils.data import DataLoader

if __name__ == "__main__":
    method = None if sys.argv[1] == "default" else sys.argv[1]
    for epoch in range(2):
        start = time.perf_counter()
        next(iter(DataLoader(range(8), 4, num_workers=2, multiprocessing_context=method)))
        print(time.perf_counter() - start)
"""


def bench_loader(rounds: int) -> None:
    """A `DataLoader` epoch over `SlowItems` (batch 8) read in the main process and by two
    persistent workers, interleaved (a worker re-imports this script, torch and all, when it
    starts, so workers started anew each epoch would time that); then how long two workers
    take to give a first batch, by start method, in fresh processes of a small script."""
    print("\nDataLoader: 64 examples of 2 ms each, batch 8 (medians of interleaved epochs)")
    data = minitorch.utils.data
    loaders = {
        "num_workers=0": data.DataLoader(SlowItems(), batch_size=8),
        "num_workers=2, persistent": data.DataLoader(
            SlowItems(), 8, num_workers=2, persistent_workers=True
        ),
    }
    if torch:
        loaders["torch, num_workers=2 (fork)"] = torch.utils.data.DataLoader(
            SlowItems(), 8, num_workers=2
        )
    contenders = {name: lambda loader=loader: list(loader) for name, loader in loaders.items()}
    times = compare(contenders, max(rounds, 3), statistics.median)
    for name, seconds in times.items():
        speedup = times["num_workers=0"] / seconds
        print(f"  {name:34}{format_time(seconds):>13}{speedup:>9.2f}x vs num_workers=0")
    print("\nfirst batch from 2 workers, fresh process: first epoch, second epoch")
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "worker_start.py"  # spawned workers import the main module
        probe.write_text(WORKER_START_PROBE)
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        for method in ("default", "forkserver", "spawn", "fork"):
            result = subprocess.run(
                [sys.executable, str(probe), method], env=env, capture_output=True, text=True
            )
            if result.returncode != 0:
                print(f"  {method}: failed\n{result.stderr}")
                continue
            first, second = (float(t) for t in result.stdout.split())
            label = "default (forkserver, preloaded)" if method == "default" else method
            print(f"  {label:34} {first:.2f} s, {second:.2f} s")


# ---------------------------------------------------------------------------
# Speed where learners feel it: medians of interleaved rounds, tensor level
# ---------------------------------------------------------------------------

FIRST_MATMUL_PROBE = """
import time
start, start_cpu = time.perf_counter(), time.process_time()
import minitorch
imported, imported_cpu = time.perf_counter(), time.process_time()
a = minitorch.ones(64, 64)
a @ a
done, done_cpu = time.perf_counter(), time.process_time()
kernels = minitorch.get_backend()._matmul_kernels
misses = sum(sum(kernel.stats.cache_misses.values()) for kernel in kernels)
print(imported - start, done - imported, imported_cpu - start_cpu, done_cpu - imported_cpu, misses)
"""


def matmul_rows(
    rng: np.random.Generator, rounds: int, note: str = "", clock: Callable = time.perf_counter
) -> None:
    """`a @ b` through `minitorch.Tensor` for a square and a batched float32 product."""
    for shape in ((256, 256), (8, 256, 256)):
        u = rng.standard_normal(shape).astype(np.float32)
        v = rng.standard_normal(shape).astype(np.float32)
        a, b = minitorch.tensor(u), minitorch.tensor(v)
        contenders = {"minitorch": lambda a=a, b=b: a @ b, "numpy": lambda u=u, v=v: u @ v}
        if torch:
            tu, tv = torch.from_numpy(u), torch.from_numpy(v)
            contenders["torch"] = lambda tu=tu, tv=tv: tu @ tv
        flops = 2 * np.prod(shape) * shape[-1]
        label = "x".join(map(str, shape)) + " @ same" + note
        print_row(label, median_of_rounds(contenders, rounds, clock), flops, "GF/s")


def bench_speed(rounds: int) -> None:
    """Vectorized math, small and batched matmuls through `minitorch.Tensor`, and cold starts."""
    print_header("tensor-level math and matmuls (medians of interleaved rounds, float32)")
    rng = np.random.default_rng(5)
    x = rng.standard_normal(1 << 22).astype(np.float32)
    ours = minitorch.tensor(x)
    theirs = torch.from_numpy(x) if torch else None
    numpy_sigmoid = lambda: 1 / (1 + np.exp(-x))  # noqa: E731 (NumPy has no sigmoid)
    for name, numpy_fn in (
        ("exp", lambda: np.exp(x)),
        ("log", lambda: np.log(x)),
        ("tanh", lambda: np.tanh(x)),
        ("sigmoid", numpy_sigmoid),
    ):
        contenders = {"minitorch": getattr(ours, name), "numpy": numpy_fn}
        if torch:
            contenders["torch"] = getattr(theirs, name)
        with np.errstate(invalid="ignore", over="ignore"):
            print_row(f"{name}, 4M elements", median_of_rounds(contenders, rounds))
    matmul_rows(rng, rounds)
    if threadpool_limits:
        with one_thread():  # the calling thread does all the work: its CPU time is the measure
            matmul_rows(rng, rounds, ", 1 thread, CPU", time.thread_time)

    print("\nfirst 64x64 matmul in fresh processes (one with an empty kernel cache, then 5)")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, MINITORCH_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        for run in range(6):
            result = subprocess.run(
                [sys.executable, "-c", FIRST_MATMUL_PROBE], env=env, capture_output=True, text=True
            )
            if result.returncode != 0:
                print(f"  failed\n{result.stderr}")
                return
            imported, first, imported_cpu, first_cpu, misses = result.stdout.split()
            label = "cold (empty kernel cache)" if run == 0 else f"warm, process {run}"
            print(
                f"  {label:28} import {float(imported):.2f} s + first matmul {float(first):.2f} s"
                f" (CPU {float(imported_cpu):.2f} s + {float(first_cpu):.2f} s;"
                f" matmul kernels compiled: {misses})"
            )
