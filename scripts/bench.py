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
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import minitorch
from minitorch import operators
from minitorch.backends import fast_ops, fast_tuned
from minitorch.backends.tensor_data import TensorData

ROOT = Path(__file__).resolve().parent.parent

try:
    import torch
except ImportError:  # PyTorch is optional
    torch = None

NUMBA_BACKENDS = {"fast": fast_tuned.FastBackend, "student": fast_ops.StudentBackend}
backend = fast_tuned.FastBackend()  # replaced by --backend's
DTYPES = {np.float32: minitorch.float32, np.float64: minitorch.float64}


def layout(values: np.ndarray) -> TensorData:
    """A contiguous layout over a copy of `values`."""
    return TensorData(np.ascontiguousarray(values).reshape(-1), values.shape)


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


def compare(contenders: dict[str, Callable], rounds: int) -> dict[str, float]:
    """Best seconds per call of each contender, over interleaved rounds."""
    numbers = {name: calls_per_sample(fn) for name, fn in contenders.items()}
    best = dict.fromkeys(contenders, float("inf"))
    for _ in range(rounds):
        for name, fn in contenders.items():
            start = time.perf_counter()
            for _ in range(numbers[name]):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / numbers[name])
    return best


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
    """Times (or work/time in `unit` when `work` is given) and minitorch's speed ratios."""
    cells = []
    for name in ("minitorch", "numpy", "torch"):
        if name not in best:
            continue
        if work is None:
            cells.append(f"{format_time(best[name]):>13}")
        else:
            cells.append(f"{work / best[name] / 1e9:>8.1f} {unit:>4}")
    ratios = [
        f"{best[name] / best['minitorch']:>9.2f}x" for name in ("numpy", "torch") if name in best
    ]
    print(f"  {label:34}" + "".join(cells) + "".join(ratios))


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


def bench_matmul(rounds: int) -> None:
    print_header("matmul (GFLOP/s)")
    rng = np.random.default_rng(0)
    for n in (256, 1024):
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
            print_row(
                f"{n}x{n} {numpy_dtype.__name__}", compare(contenders, rounds), 2 * n**3, "GF/s"
            )


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
    print(f"\nserial vs parallel kernels ({fast_tuned.numba.get_num_threads()} threads)")
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
from minitorch.backends import fast_tuned
imported = time.perf_counter()
a = minitorch.arange(10, dtype=minitorch.float32)
a + a
done = time.perf_counter()
serial, _ = minitorch.get_backend().kernels(fast_tuned.tensor_zip, operators.add)
print(imported - start, done - imported, sum(serial.stats.cache_hits.values()))
"""


def bench_start() -> None:
    print("\nstart: a fresh process imports minitorch and runs one 10-element add")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
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


def bench_tensor(rounds: int) -> None:
    """Tensor-level rows: the same ops through `minitorch.Tensor`, on the default (fast) backend."""
    print_header(f"tensor level (minitorch.Tensor on the {minitorch.get_backend().name} backend)")
    try:
        small_a = minitorch.tensor(np.arange(10, dtype=np.float32))
        small_b = minitorch.tensor(np.ones(10, dtype=np.float32))
        small_a + small_b
    except Exception as error:  # the tensor layer may not be wired yet
        print(f"  unavailable: {type(error).__name__}: {error}")
        return
    u, v = np.arange(10, dtype=np.float32), np.ones(10, dtype=np.float32)
    contenders = {"minitorch": lambda: small_a + small_b, "numpy": lambda: u + v}
    if torch:
        tu, tv = torch.from_numpy(u), torch.from_numpy(v)
        contenders["torch"] = lambda: tu + tv
    print_row("10-element add", compare(contenders, rounds))
    bench_mlp_step(rounds)


def bench_mlp_step(rounds: int) -> None:
    """One SGD step of a 784-256-10 ReLU MLP with softmax cross-entropy, batch 128, float32."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    labels = rng.integers(0, 10, 128)
    one_hot = np.eye(10, dtype=np.float32)[labels]
    weights = [
        (rng.standard_normal((784, 256)) / 28).astype(np.float32),
        np.zeros(256, np.float32),
        (rng.standard_normal((256, 10)) / 16).astype(np.float32),
        np.zeros(10, np.float32),
    ]

    def make_step(lib):
        """A step function of `lib` (minitorch or torch) and the parameters it updates."""
        params = [lib.tensor(w.copy(), requires_grad=True) for w in weights]
        inputs, targets = lib.tensor(x), lib.tensor(one_hot)

        def step():
            w1, b1, w2, b2 = params
            hidden = (inputs @ w1 + b1).relu()
            log_probs = (hidden @ w2 + b2).log_softmax(dim=1)
            loss = -(log_probs * targets).sum() / 128
            for p in params:
                p.grad = None
            loss.backward()
            with lib.no_grad():  # plain SGD, outside the graph
                for p in params:
                    p -= 0.01 * p.grad

        return step, params

    try:
        step, params = make_step(minitorch)
        step()
    except Exception as error:
        print(f"  MLP step unavailable: {type(error).__name__}: {error}")
        return
    contenders = {"minitorch": step}
    if torch:
        torch_step, torch_params = make_step(torch)
        torch_step()
        # one step from the same weights: the updated weights must agree
        difference = max(
            float(np.abs(p.detach().numpy() - q.detach().numpy()).max())
            for p, q in zip(params, torch_params, strict=True)
        )
        if difference > 1e-4:
            print(f"  MLP step differs from PyTorch's by {difference:.2g}: not timed")
            return
        contenders["torch"] = torch_step
    best = compare(contenders, rounds)
    line = f"  {'MLP 784-256-10 step, batch 128':34}{format_time(best['minitorch']):>13}"
    if torch:
        ratio = best["torch"] / best["minitorch"]
        line += f"{'-':>13}{format_time(best['torch']):>13}{'':>10}{ratio:>9.2f}x"
    print(line)


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
    "scan_sort": bench_scan_sort,
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
    import numba

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
