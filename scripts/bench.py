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
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np
import train_gpt  # scripts/train_gpt.py: the tiny GPT
import train_mnist  # scripts/train_mnist.py: the main job's model

import minitorch
from minitorch import operators
from minitorch.backends import fast_ops
from minitorch.backends.cuda import driver
from minitorch.backends.fast import FastBackend
from minitorch.backends.tensor_data import TensorData
from minitorch.datasets import DATASETS, Digits

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

NUMBA_BACKENDS = {"fast": FastBackend, "student": fast_ops.StudentBackend}
backend = FastBackend()  # replaced by --backend's
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
        float(np.abs(p.detach().numpy() - q.detach().numpy()).max())
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


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


def bench_matmul(rounds: int) -> None:
    print_header("matmul (GFLOP/s)")
    matmul_kernel_rows(rounds, (256, 1024))
    if threadpool_limits:
        with one_thread():  # the calling thread does all the work: its CPU time is the measure
            matmul_kernel_rows(rounds, (256,), ", 1 thread, CPU", time.thread_time)


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
serial, _ = minitorch.get_backend().kernels(elementwise.tensor_zip, operators.add)
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
    bench_course_epoch(rounds)


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
        if not steps_agree(params, torch_params, 1e-4, "MLP step"):
            return
        contenders["torch"] = torch_step
    print_row("MLP 784-256-10 step, batch 128", compare(contenders, rounds))


def bench_course_epoch(rounds: int) -> None:
    """One epoch of the MiniTorch course's tensor training (scripts/train_tensor.py's network
    2-100-100-1 with ReLU, 50 points of the xor set, full batch, binary cross-entropy on the
    logits, SGD): small tensors, so per-operation overhead is most of the time."""
    data = DATASETS["xor"](50, seed=0)
    points, labels = np.array(data.X, np.float32), np.array(data.y, np.float32)
    minitorch.manual_seed(0)
    shapes = [(100, 2), (100, 100), (1, 100)]
    weights = [w for s in shapes for w in (minitorch.randn(*s).numpy() / 10, np.zeros(s[0]))]

    def make_epoch(lib):
        """An epoch function of `lib` (minitorch or torch) and the parameters it updates."""
        layers = [lib.nn.Linear(s[1], s[0]) for s in shapes]
        params = [p for layer in layers for p in (layer.weight, layer.bias)]
        with lib.no_grad():
            for p, w in zip(params, weights, strict=True):
                p.copy_(lib.tensor(w.astype(np.float32)))
        optimizer = lib.optim.SGD(params, lr=0.5)
        inputs, targets = lib.tensor(points), lib.tensor(labels)

        def epoch():
            hidden = layers[0](inputs * 2 - 1).relu()
            hidden = layers[1](hidden).relu()
            logits = layers[2](hidden).view(-1)
            loss = lib.nn.functional.binary_cross_entropy_with_logits(logits, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        return epoch, params

    try:
        epoch, params = make_epoch(minitorch)
        epoch()
    except Exception as error:
        print(f"  course epoch unavailable: {type(error).__name__}: {error}")
        return
    contenders = {"minitorch": epoch}
    if torch:
        torch_epoch, torch_params = make_epoch(torch)
        torch_epoch()
        if not steps_agree(params, torch_params, 1e-4, "course epoch"):
            return
        contenders["torch"] = torch_epoch
    print_row("course epoch 2-100-100-1, 50 points", median_of_rounds(contenders, rounds))


def bench_conv(rounds: int) -> None:
    """Convolution rows: conv2d forward+backward, and one LeNet-5 SGD step, against PyTorch.

    Times are medians of interleaved rounds (minitorch, torch, minitorch, ...), both float32.
    """
    rng = np.random.default_rng(5)

    print_header("convolution (medians of interleaved rounds, float32)")
    x = rng.standard_normal((16, 1, 28, 28)).astype(np.float32)
    w = rng.standard_normal((8, 1, 3, 3)).astype(np.float32)

    def conv_step(lib):
        inputs = lib.tensor(x, requires_grad=True)
        weight = lib.tensor(w, requires_grad=True)

        def step():
            inputs.grad = weight.grad = None
            lib.conv2d(inputs, weight, padding=1).sum().backward()

        return step

    contenders = {"minitorch": conv_step(minitorch)}
    if torch:
        contenders["torch"] = conv_step(torch)
    print_row("conv2d fwd+bwd (16,1,28,28)*(8,1,3,3)", median_of_rounds(contenders, rounds))

    # LeNet-5: conv 6@5x5 pad 2, relu, maxpool 2, conv 16@5x5, relu, maxpool 2, 400-120-84-10
    shapes = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 400), (120,), (84, 120), (84,)]
    shapes += [(10, 84), (10,)]
    weights = [
        (rng.uniform(-1, 1, s) / np.sqrt(np.prod(s[1:]) if len(s) > 1 else 1)).astype(np.float32)
        for s in shapes
    ]
    images = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    one_hot = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 64)]

    def lenet_step(lib):
        F = lib.nn.functional
        params = [lib.tensor(p.copy(), requires_grad=True) for p in weights]
        inputs, targets = lib.tensor(images), lib.tensor(one_hot)

        def step():
            c1, b1, c2, b2, l1, d1, l2, d2, l3, d3 = params
            h = F.max_pool2d(F.conv2d(inputs, c1, b1, padding=2).relu(), 2)
            h = F.max_pool2d(F.conv2d(h, c2, b2).relu(), 2).flatten(1)
            h = F.linear(F.linear(h, l1, d1).relu(), l2, d2).relu()
            loss = -(F.linear(h, l3, d3).log_softmax(dim=1) * targets).sum() / 64
            for p in params:
                p.grad = None
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p -= 0.01 * p.grad

        return step, params

    time_steps(lenet_step, "LeNet step", "LeNet-5 SGD step, batch 64", rounds)


def bench_lstm(rounds: int) -> None:
    """One SGD step of an LSTM (input 32, hidden 128) over 35 steps of a batch of 16, with a
    mean-squared loss on its outputs, float32, from the same weights in both libraries."""
    print_header("sequences (medians of interleaved rounds, float32)")
    rng = np.random.default_rng(8)
    x = rng.standard_normal((35, 16, 32)).astype(np.float32)
    target = rng.standard_normal((35, 16, 128)).astype(np.float32)
    reference = minitorch.nn.LSTM(32, 128)

    def make_step(lib):
        lstm = lib.nn.LSTM(32, 128)
        lstm.load_state_dict({k: lib.tensor(v.numpy()) for k, v in reference.state_dict().items()})
        optimizer = lib.optim.SGD(lstm.parameters(), lr=0.1)
        inputs, targets = lib.tensor(x), lib.tensor(target)

        def step():
            out, _ = lstm(inputs)
            loss = ((out - targets) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        return step, list(lstm.parameters())

    time_steps(make_step, "LSTM step", "LSTM 32-128 SGD step, 35x16", rounds, 1e-5)


def bench_optim(rounds: int) -> None:
    """optim: one Adam step over a 1M-parameter model (four Linear-shaped float32 tensors)."""
    print_header("optim (one optimizer.step(), gradients already set)")
    rng = np.random.default_rng(6)
    shapes = [(1024, 784), (1024,), (192, 1024), (192,)]  # 1,000,640 parameters
    starts = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    grads = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]

    def make_step(lib):
        params = [lib.tensor(w.copy(), requires_grad=True) for w in starts]
        for p, g in zip(params, grads, strict=True):
            p.grad = lib.tensor(g)
        return lib.optim.Adam(params, lr=1e-3).step, params

    time_steps(make_step, "Adam step", "Adam step, 1M float32 params", rounds, 1e-5, compare)


def bench_digits_epoch(rounds: int) -> None:
    """optim: one training epoch of `train_mnist.py`'s CNN on the 1,438 training digits (batch
    32, Adam, lr 2e-3, no shuffling), against the same loop in PyTorch from the same weights."""
    print_header("training epoch (medians of interleaved rounds, float32)")
    train = Digits(train=True)
    images = np.stack([train[k][0].numpy() for k in range(len(train))])
    labels = np.array([train[k][1] for k in range(len(train))])
    model_of = same_start(lambda layers: train_mnist.build_model(8, layers))

    def make_epoch(lib):
        model = model_of(lib)
        optimizer = lib.optim.Adam(model.parameters(), lr=2e-3)
        data = lib.utils.data.TensorDataset(lib.tensor(images), lib.tensor(labels))
        loader = lib.utils.data.DataLoader(data, batch_size=32)

        def epoch() -> float:
            total = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = lib.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            return total / len(loader)

        return epoch

    epoch = make_epoch(minitorch)
    first = epoch()
    contenders = {"minitorch": epoch}
    if torch:
        torch_epoch = make_epoch(torch)
        expected = torch_epoch()
        if abs(first - expected) > 1e-3 * abs(expected):
            print(f"  digits epoch: mean loss {first:.6g}, PyTorch's {expected:.6g}: not timed")
            return
        contenders["torch"] = torch_epoch
    label = f"digits CNN epoch, {len(train)} images"
    print_row(label, compare(contenders, max(rounds, 3), statistics.median))


def bench_gpt_step(rounds: int) -> None:
    """One AdamW step of `train_gpt.py`'s GPT (64 features, 4 heads, 2 layers, blocks of 32,
    65 characters) on a batch of 16 windows, against the same step in PyTorch from the same
    weights."""
    print_header("tiny GPT training step (medians of interleaved rounds, float32)")
    rng = np.random.default_rng(6)
    windows = rng.integers(0, 65, (16, 33))
    model_of = same_start(lambda layers: train_gpt.build_model(65, layers))

    def make_step(lib):
        model = model_of(lib)
        optimizer = lib.optim.AdamW(model.parameters(), lr=1e-3)
        x, y = lib.tensor(windows[:, :-1]), lib.tensor(windows[:, 1:])

        def step() -> None:
            logits = model(x)
            loss = lib.nn.functional.cross_entropy(logits.reshape(-1, 65), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        return step, list(model.parameters())

    time_steps(make_step, "GPT step", "GPT 64x4x2, block 32, batch 16", rounds)


def bench_losses(rounds: int) -> None:
    """Forward and backward of cross-entropy (128 x 10 logits) and layer norm (128 x 256)."""
    print_header("losses and normalization, forward + backward (float32)")
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((128, 10)).astype(np.float32)
    labels = rng.integers(0, 10, 128)
    features = rng.standard_normal((128, 256)).astype(np.float32)

    def runner(lib, loss):
        x = lib.tensor(logits.copy(), requires_grad=True)
        h = lib.tensor(features.copy(), requires_grad=True)
        target = lib.tensor(labels)

        def run():
            if loss == "cross_entropy":
                out = lib.nn.functional.cross_entropy(x, target)
            else:
                out = lib.nn.functional.layer_norm(h, (256,)).sum()
            out.backward()

        return run

    for loss in ("cross_entropy", "layer_norm"):
        contenders = {"minitorch": runner(minitorch, loss)}
        if torch:
            contenders["torch"] = runner(torch, loss)
        print_row(loss, compare(contenders, rounds))


def bench_gpu(rounds: int) -> None:
    """matmul, add, sum and an MLP step on `cuda` tensors; printed only on a real GPU."""
    print("\ngpu (minitorch cuda vs torch cuda; goals: matmul >= 0.5x, add >= 0.8x, MLP >= 0.5x)")
    if not minitorch.cuda.is_available() or driver.SIMULATOR:
        print("  skipped: no CUDA GPU (the simulator is not timed); see scripts/check_gpu.sh")
        return
    on_torch = torch is not None and torch.cuda.is_available()
    rng = np.random.default_rng(5)

    def gpu_row(label, ours, theirs, work=None, unit=""):
        contenders = {"minitorch": lambda: (ours(), minitorch.cuda.synchronize())}
        if on_torch:
            contenders["torch"] = lambda: (theirs(), torch.cuda.synchronize())
        best = compare(contenders, rounds)
        cells = [
            format_time(best[name]) if work is None else f"{work / best[name] / 1e9:8.1f} {unit}"
            for name in best
        ]
        ratio = f"{best['torch'] / best['minitorch']:9.2f}x" if on_torch else ""
        print(f"  {label:34}" + "".join(f"{c:>13}" for c in cells) + ratio)

    def pair(*shape):
        values = rng.standard_normal(shape).astype(np.float32)
        ours = minitorch.tensor(values, device="cuda")
        return ours, (torch.from_numpy(values).cuda() if on_torch else None)

    a, ta = pair(4096, 4096)
    b, tb = pair(4096, 4096)
    gpu_row("matmul 4096x4096 float32", lambda: a @ b, lambda: ta @ tb, 2 * 4096**3, "GF/s")
    x, tx = pair(64 * 2**20)
    y, ty = pair(64 * 2**20)
    gpu_row("add 64M float32 (GB/s moved)", lambda: x + y, lambda: tx + ty, 12 * 2**26, "GB/s")
    gpu_row("sum(dim=1) of 4096x4096 float32", lambda: a.sum(1), lambda: ta.sum(1))
    gpu_row("cumsum(dim=1) of 4096x4096 float32", lambda: a.cumsum(1), lambda: ta.cumsum(1))
    index = minitorch.randint(0, 4096, (1024,), device="cuda")
    torch_index = torch.tensor(index.tolist(), device="cuda") if on_torch else None
    gpu_row("a[:, index] 4096x1024 of 4096x4096", lambda: a[:, index], lambda: ta[:, torch_index])
    host, torch_host = x.cpu(), (tx.cpu() if on_torch else None)
    gpu_row(
        "64M float32 host -> device (GB/s)", host.cuda, lambda: torch_host.cuda(), 4 * 2**26, "GB/s"
    )
    gpu_row("64M float32 device -> host (GB/s)", x.cpu, lambda: tx.cpu(), 4 * 2**26, "GB/s")

    def mlp_step(lib):
        """A 784-256-10 ReLU MLP's SGD step on cuda with `lib` (minitorch or torch), batch 128."""
        lib.manual_seed(0)
        layers = [lib.nn.Linear(784, 256), lib.nn.Linear(256, 10)]
        params = [p for layer in layers for p in layer.to("cuda").parameters()]
        optimizer = lib.optim.SGD(params, lr=0.01)
        inputs = lib.randn(128, 784, device="cuda")
        targets = lib.randn(128, 10, device="cuda")

        def step():
            loss = lib.nn.functional.mse_loss(layers[1](layers[0](inputs).relu()), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        return step

    def adam_step(lib):
        """One Adam step of a 10M-element cuda parameter with `lib` (torch's fused kernel)."""
        param = lib.zeros(10 * 2**20, device="cuda", requires_grad=True)
        param.grad = lib.randn(10 * 2**20, device="cuda")
        options = {"fused": True} if lib is torch else {}
        optimizer = lib.optim.Adam([param], lr=1e-3, **options)
        return optimizer.step

    gpu_row(
        "MLP 784-256-10 SGD step, batch 128",
        mlp_step(minitorch),
        mlp_step(torch) if on_torch else None,
    )
    gpu_row(
        "Adam step of 10M float32", adam_step(minitorch), adam_step(torch) if on_torch else None
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
serial, parallel = minitorch.get_backend()._matmul_kernels
misses = sum(serial.stats.cache_misses.values()) + sum(parallel.stats.cache_misses.values())
print(imported - start, done - imported, imported_cpu - start_cpu, done_cpu - imported_cpu, misses)
"""


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
