"""Benchmark minitorch's Numba backend against NumPy and PyTorch (CPU), side by side.

Usage:
    python scripts/bench.py [--rounds 5] [--only SECTION,...] [--backend fast|student]

Every row times the same work in each library in one process, interleaved
(minitorch, NumPy, PyTorch, minitorch, ...) for `--rounds` rounds, and keeps
the best time of each: timings on a shared machine swing by 2-4x, and the best
of interleaved rounds is the least disturbed measurement of each.

Kernel rows call a Numba backend (`--backend`: `fast`, the tuned kernels and the
default, or `student`, the plain exercise kernels) on `TensorData` layouts, and
include allocating the output the way the tensor layer does
(`TensorData.empty`). Ratios are minitorch's speed relative to the other
library: above 1 means minitorch is faster. PyTorch columns appear when torch
is importable. The start rows run fresh Python processes that import
minitorch and run one op, with an empty kernel cache (cold) and then with the
cache the first one filled (warm).

The rows are grouped by what they time: the kernel rows and the start rows here,
bench_training.py (tensor level and training steps), bench_gpu.py (cuda tensors) and
bench_speed.py (data loading and tensor-level medians), all timed by bench_timing.py.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numba
import numpy as np
from bench_gpu import bench_gpu
from bench_speed import bench_loader, bench_speed
from bench_timing import (
    ROOT,
    compare,
    format_time,
    one_thread,
    print_header,
    print_row,
    threadpool_limits,
    torch,
)
from bench_training import (
    bench_conv,
    bench_digits_epoch,
    bench_gpt_step,
    bench_losses,
    bench_lstm,
    bench_optim,
    bench_tensor,
)

import minitorch
from minitorch import operators
from minitorch.backends import fast_ops
from minitorch.backends.fast import FastBackend
from minitorch.backends.tensor_data import TensorData

NUMBA_BACKENDS = {"fast": FastBackend, "student": fast_ops.StudentBackend}
backend = FastBackend()  # replaced by --backend's
DTYPES = {np.float32: minitorch.float32, np.float64: minitorch.float64}


def layout(values: np.ndarray) -> TensorData:
    """A contiguous layout over a copy of `values`."""
    return TensorData(np.ascontiguousarray(values).reshape(-1), values.shape)


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


def bench_matmul(rounds: int) -> None:
    print_header("matmul (GFLOP/s)")
    matmul_kernel_rows(rounds, (256, 1024))
    if threadpool_limits:
        with one_thread():  # the calling thread does all the work: its CPU time is the measure
            matmul_kernel_rows(rounds, (256,), ", 1 thread, CPU", time.thread_time)
    matmul_body_rows(rounds)


# (rows, inner, columns): below and at `matmul_rows_threshold` (64³ multiply-adds), the layers
# of the course's network (50 x 100 x 100) and of an MLP's last layer, around
# `matmul_parallel_threshold` (2^23), and a square product that runs in parallel.
MATMUL_BODY_SHAPES = [(8, 8, 8), (16, 16, 16), (32, 32, 32), (64, 64, 64), (50, 100, 100)]
MATMUL_BODY_SHAPES += [(128, 256, 10)]
MATMUL_BODY_SHAPES += [(100, 100, 100), (128, 128, 128), (160, 160, 160), (200, 200, 200)]
MATMUL_BODY_SHAPES += [(256, 256, 256)]


def matmul_body_rows(rounds: int) -> None:
    """Each matmul body of the fast backend on the same float32 products, the thresholds
    forced (where the chosen body is the fastest, the thresholds sit where they cross)."""
    if not hasattr(backend, "matmul_rows_threshold"):
        return
    bodies = {"rows": (1 << 62, 1 << 62), "serial": (0, 1 << 62), "parallel": (0, 0)}
    print(f"\nmatmul bodies by size, float32 (GFLOP/s, {numba.get_num_threads()} threads)")
    print(f"  {'':34}" + "".join(f"{name:>13}" for name in [*bodies, "numpy"]) + "    chosen")
    rng = np.random.default_rng(6)
    try:
        for rows, inner, columns in MATMUL_BODY_SHAPES:
            x = rng.standard_normal((rows, inner)).astype(np.float32)
            y = rng.standard_normal((inner, columns)).astype(np.float32)
            a, b = layout(x), layout(y)

            def on(thresholds, a=a, b=b, shape=(rows, columns)):
                def run():
                    backend.matmul_rows_threshold, backend.matmul_parallel_threshold = thresholds
                    backend.matmul(TensorData.empty(shape, minitorch.float32), a, b)

                return run

            contenders = {name: on(thresholds) for name, thresholds in bodies.items()}
            best = compare({**contenders, "numpy": lambda x=x, y=y: x @ y}, rounds)
            del backend.matmul_rows_threshold, backend.matmul_parallel_threshold
            work = rows * inner * columns
            if work < backend.matmul_rows_threshold:
                chosen = "rows"
            else:
                chosen = "serial" if work < backend.matmul_parallel_threshold else "parallel"
            cells = "".join(f"{2 * work / best[name] / 1e9:>8.1f} GF/s" for name in best)
            print(f"  {f'{rows}x{inner} @ {inner}x{columns}':34}{cells}    {chosen}")
    finally:  # back to the class's thresholds
        for name in ("matmul_rows_threshold", "matmul_parallel_threshold"):
            backend.__dict__.pop(name, None)


def matmul_kernel_rows(
    rounds: int, sizes: tuple, note: str = "", clock: Callable = time.perf_counter
) -> None:
    """Square products of each size in `sizes`, float32 and float64, on the backend's kernel."""
    rng = np.random.default_rng(0)
    for n in sizes:
        for numpy_dtype in (np.float32, np.float64):
            x = rng.standard_normal((n, n)).astype(numpy_dtype)
            y = rng.standard_normal((n, n)).astype(numpy_dtype)
            a, b = layout(x), layout(y)
            dtype = DTYPES[numpy_dtype]

            def ours(a=a, b=b, n=n, dtype=dtype):
                backend.matmul(TensorData.empty((n, n), dtype), a, b)

            contenders = {"minitorch": ours, "numpy": lambda x=x, y=y: x @ y}
            if torch:
                tx, ty = torch.from_numpy(x), torch.from_numpy(y)
                contenders["torch"] = lambda tx=tx, ty=ty: tx @ ty
            label = f"{n}x{n} {numpy_dtype.__name__}{note}"
            print_row(label, compare(contenders, rounds, clock=clock), 2 * n**3, "GF/s")


def bench_elementwise(rounds: int) -> None:
    print_header("elementwise add, 4M float32 elements")
    rng = np.random.default_rng(1)
    n = 2048
    x = rng.standard_normal((n, n)).astype(np.float32)
    y = rng.standard_normal((n, n)).astype(np.float32)
    column = rng.standard_normal((n, 1)).astype(np.float32)
    row = rng.standard_normal((1, n)).astype(np.float32)
    cases = {
        "contiguous (N*M) + (N*M)": (x, y),
        "broadcast (N,1) + (1,M)": (column, row),
    }
    for label, (u, v) in cases.items():
        a, b = layout(u), layout(v)

        def ours(a=a, b=b):
            backend.zip(operators.add, TensorData.empty((n, n), minitorch.float32), a, b)

        contenders = {"minitorch": ours, "numpy": lambda u=u, v=v: u + v}
        if torch:
            tu, tv = torch.from_numpy(u), torch.from_numpy(v)
            contenders["torch"] = lambda tu=tu, tv=tv: tu + tv
        print_row(label, compare(contenders, rounds))


def bench_sums(rounds: int) -> None:
    print_header("sum of a 2048x2048 float32 tensor over one dim")
    x = np.random.default_rng(2).standard_normal((2048, 2048)).astype(np.float32)
    a = layout(x)
    for dim in (0, 1):
        shape = (1, 2048) if dim == 0 else (2048, 1)

        def ours(dim=dim, shape=shape):
            backend.reduce(operators.add, TensorData.empty(shape, minitorch.float32), a, dim, 0)

        contenders = {"minitorch": ours, "numpy": lambda dim=dim: x.sum(axis=dim, keepdims=True)}
        if torch:
            tx = torch.from_numpy(x)
            contenders["torch"] = lambda dim=dim, tx=tx: tx.sum(dim=dim, keepdim=True)
        print_row(f"dim={dim}", compare(contenders, rounds))


def bench_transposed(rounds: int) -> None:
    print_header("exp of a transposed 2048x2048 float32 tensor, into a row-major result")
    n = 2048
    x = np.random.default_rng(3).standard_normal((n, n)).astype(np.float32)
    transposed = TensorData(x.reshape(-1), (n, n), (1, n))  # x.T without copying

    def ours():
        backend.map(operators.exp, TensorData.empty((n, n), minitorch.float32), transposed)

    contenders = {"minitorch": ours, "numpy": lambda: np.exp(x.T, order="C")}
    if torch:
        tx = torch.from_numpy(x)
        contenders["torch"] = lambda: torch.exp(tx.T).contiguous()
    print_row("exp(x.T)", compare(contenders, rounds))


def bench_small(rounds: int) -> None:
    print_header("latency of a 10-element float32 add")
    u = np.arange(10, dtype=np.float32)
    v = np.ones(10, dtype=np.float32)
    a, b = layout(u), layout(v)
    preallocated = TensorData.empty((10,), minitorch.float32)
    shared = {"numpy": lambda: u + v}
    if torch:
        tu, tv = torch.from_numpy(u), torch.from_numpy(v)
        shared["torch"] = lambda: tu + tv
    rows = {
        "kernel + output allocation": lambda: backend.zip(
            operators.add, TensorData.empty((10,), minitorch.float32), a, b
        ),
        "kernel only (output given)": lambda: backend.zip(operators.add, preallocated, a, b),
        "output allocation only": lambda: TensorData.empty((10,), minitorch.float32),
    }
    for label, ours in rows.items():
        print_row(label, compare({"minitorch": ours, **shared}, rounds))


def bench_threads(rounds: int) -> None:
    """The serial and the parallel kernel on the same large inputs (thresholds forced)."""
    print(f"\nserial vs parallel kernels ({numba.get_num_threads()} threads)")
    print(f"  {'':34}{'serial':>13}{'parallel':>13}{'speed-up':>10}")
    rng = np.random.default_rng(5)
    x = layout(rng.standard_normal((2048, 2048)).astype(np.float32))
    m = layout(rng.standard_normal((1024, 1024)).astype(np.float32))
    f32 = minitorch.float32
    cases = {
        "add, 4M float32": lambda: backend.zip(
            operators.add, TensorData.empty((2048, 2048), f32), x, x
        ),
        "exp, 4M float32": lambda: backend.map(
            operators.exp, TensorData.empty((2048, 2048), f32), x
        ),
        "sum over dim 0, 2048x2048": lambda: backend.reduce(
            operators.add, TensorData.empty((1, 2048), f32), x, 0, 0
        ),
        "matmul 1024x1024 float32": lambda: backend.matmul(
            TensorData.empty((1024, 1024), f32), m, m
        ),
    }

    def forced(threshold: int, fn: Callable) -> Callable:
        def run():
            backend.parallel_threshold = backend.matmul_parallel_threshold = threshold
            fn()

        return run

    try:
        for label, fn in cases.items():
            best = compare({"serial": forced(1 << 62, fn), "parallel": forced(0, fn)}, rounds)
            print(
                f"  {label:34}{format_time(best['serial']):>13}{format_time(best['parallel']):>13}"
                f"{best['serial'] / best['parallel']:>9.2f}x"
            )
    finally:  # back to the class's thresholds
        del backend.parallel_threshold, backend.matmul_parallel_threshold


START_PROBE = """
import time
start = time.perf_counter()
import minitorch
from minitorch import operators
from minitorch.datasets import DATASETS
from minitorch.backends.fast import elementwise
imported = time.perf_counter()
a = minitorch.arange(10, dtype=minitorch.float32)
a + a
done = time.perf_counter()
serial, _ = minitorch.get_backend().kernels(elementwise.flat_zip, operators.add)
print(imported - start, done - imported, sum(serial.stats.cache_hits.values()))
"""


def bench_start() -> None:
    print("\nstart: a fresh process imports minitorch and runs one 10-element add")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, MINITORCH_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        for label in ("cold (empty kernel cache)", "warm (cache filled)"):
            result = subprocess.run(
                [sys.executable, "-c", START_PROBE], env=env, capture_output=True, text=True
            )
            if result.returncode != 0:
                print(f"  {label}: failed\n{result.stderr}")
                return
            imported, first_op, hits = result.stdout.split()
            total = float(imported) + float(first_op)
            print(
                f"  {label:34} import {float(imported):.2f} s + first op {float(first_op):.2f} s"
                f" = {total:.2f} s  (kernels loaded from cache: {hits})"
            )


def bench_scan_sort(rounds: int) -> None:
    """The scan and sort kernels along each dim of a 1024x1024 float32 tensor (cumsum, sort)."""
    print_header("cumsum and sort of a 1024x1024 float32 tensor along one dim")
    x = np.random.default_rng(5).standard_normal((1024, 1024)).astype(np.float32)
    a = layout(x)
    for dim in (0, 1):

        def scan(dim=dim):
            backend.scan(operators.add, TensorData.empty(x.shape, minitorch.float32), a, dim, 0)

        contenders = {"minitorch": scan, "numpy": lambda dim=dim: np.cumsum(x, axis=dim)}
        if torch:
            tx = torch.from_numpy(x)
            contenders["torch"] = lambda dim=dim, tx=tx: torch.cumsum(tx, dim)
        print_row(f"cumsum dim={dim}", compare(contenders, rounds))

        def sort(dim=dim):
            values = TensorData.empty(x.shape, minitorch.float32)
            backend.sort(values, TensorData.empty(x.shape, minitorch.int64), a, dim, False)

        contenders = {"minitorch": sort, "numpy": lambda dim=dim: np.sort(x, dim, kind="stable")}
        if torch:
            contenders["torch"] = lambda dim=dim, tx=tx: torch.sort(tx, dim=dim, stable=True)
        print_row(f"sort dim={dim}", compare(contenders, rounds))


SECTIONS = {
    "matmul": bench_matmul,
    "add": bench_elementwise,
    "sum": bench_sums,
    "transposed": bench_transposed,
    "small": bench_small,
    "threads": bench_threads,
    "start": None,
    "tensor": bench_tensor,
    "conv": bench_conv,
    "optim": bench_optim,
    "digits": bench_digits_epoch,
    "losses": bench_losses,
    "gpt": bench_gpt_step,
    "gpu": bench_gpu,
    "scan_sort": bench_scan_sort,
    "speed": bench_speed,
    "sequences": bench_lstm,
    "loader": bench_loader,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (best kept)")
    parser.add_argument(
        "--only", default=",".join(SECTIONS), help=f"comma-separated, of: {','.join(SECTIONS)}"
    )
    parser.add_argument(
        "--backend", choices=sorted(NUMBA_BACKENDS), default="fast", help="kernels to time"
    )
    args = parser.parse_args()
    global backend
    backend = NUMBA_BACKENDS[args.backend]()
    minitorch.set_backend(args.backend)  # for the tensor-level rows
    print(f"kernel rows: the {args.backend!r} backend ({type(backend).__name__})")
    print(
        f"numba {numba.__version__}, {numba.get_num_threads()} threads; numpy {np.__version__}"
        + (f"; torch {torch.__version__}, {torch.get_num_threads()} threads" if torch else "")
    )
    for section in args.only.split(","):
        if section == "start":
            bench_start()
        else:
            SECTIONS[section](args.rounds)


if __name__ == "__main__":
    main()
