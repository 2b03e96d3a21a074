"""The GPU rows of scripts/bench.py (`--only gpu`): matmul, add, sums, pooling, sorts, a folding
scatter, and MLP, LeNet-5, Adam and tiny GPT training steps on `cuda` tensors against torch's on
the same GPU; printed only on a real GPU (scripts/check_gpu.sh runs them).
"""

from __future__ import annotations

import numpy as np
from bench_timing import (
    compare,
    format_time,
    time_steps,
    torch,
)
from bench_training import gpt_steps, lenet_steps

import minitorch
from minitorch.backends.cuda import driver


def bench_gpu(rounds: int) -> None:
    """Kernels and training steps on `cuda` tensors; printed only on a real GPU."""
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
    rows, t_rows = pair(2**16, 10)
    gpu_row("sum(dim=1) of 65536x10 float32", lambda: rows.sum(1), lambda: t_rows.sum(1))
    gpu_row("sum(dim=0) of 4096x4096 float32", lambda: a.sum(0), lambda: ta.sum(0))
    gpu_row("cumsum(dim=1) of 4096x4096 float32", lambda: a.cumsum(1), lambda: ta.cumsum(1))
    image, t_image = pair(32, 64, 56, 56)
    gpu_row(
        "avg_pool2d 3x3 pad 1 of 32x64x56x56",
        lambda: minitorch.nn.functional.avg_pool2d(image, 3, 1, 1),
        lambda: torch.nn.functional.avg_pool2d(t_image, 3, 1, 1),
    )
    line, t_line = pair(2**20)
    gpu_row("sort of 1M float32 (one line)", line.sort, lambda: t_line.sort(stable=True))
    short, t_short = pair(4096, 1024)
    gpu_row("sort(dim=1) of 4096x1024 float32", lambda: short.sort(1), lambda: t_short.sort(1))
    bins = minitorch.randint(0, 1024, (2**20,), device="cuda")
    t_bins = torch.tensor(bins.tolist(), device="cuda") if on_torch else None
    gpu_row(
        "scatter_reduce amax of 1M into 1024",
        lambda: minitorch.zeros(1024, device="cuda").scatter_reduce(0, bins, line, "amax"),
        lambda: torch.zeros(1024, device="cuda").scatter_reduce(0, t_bins, t_line, "amax"),
    )
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
    # each step waits for its kernels (`bench_training.finished`)
    time_steps(lenet_steps("cuda"), "LeNet step", "LeNet-5 SGD step, batch 64", rounds)
    time_steps(gpt_steps("cuda"), "GPT step", "GPT 64x4x2 AdamW step, block 32, batch 16", rounds)
