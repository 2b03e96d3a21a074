"""The tensor-level and training rows of scripts/bench.py (`--only tensor,conv,sequences,optim,
digits,gpt,losses`): ops through `minitorch.Tensor`, an MLP step and a course epoch,
convolutions, LSTMs, optimizers, the digits epoch, a tiny GPT step and the losses, each
against PyTorch from the same weights (bench_timing.py).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

import numpy as np
import train_gpt  # scripts/train_gpt.py: the tiny GPT
import train_mnist  # scripts/train_mnist.py: the main job's model
from bench_timing import (
    compare,
    median_of_rounds,
    print_header,
    print_row,
    same_start,
    steps_agree,
    time_steps,
    torch,
)

import minitorch
from minitorch.datasets import DATASETS, Digits


def bench_tensor(rounds: int) -> None:
    """Tensor-level rows: the same ops through `minitorch.Tensor`, on the default (fast) backend."""
    print_header(f"tensor level (minitorch.Tensor on the {minitorch.get_backend().name} backend)")
    try:
        small_a = minitorch.tensor(np.arange(10, dtype=np.float32))
        small_b = minitorch.tensor(np.ones(10, dtype=np.float32))
        small_a + small_b
    except Exception as error:  # in a student copy, the stubs of module 2 may raise here
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


def finished(device: str, lib) -> None:
    """Wait for the kernels `lib` queued on `device` (launches on a GPU return at once)."""
    if device == "cuda":
        lib.cuda.synchronize()


def lenet_steps(device: str) -> Callable:
    """`make_step(lib)` -> (step, parameters): one SGD step of LeNet-5 (conv 6@5x5 pad 2,
    relu, maxpool 2, conv 16@5x5, relu, maxpool 2, 400-120-84-10) on a batch of 64 random
    images on `device`, from the same weights in every library."""
    rng = np.random.default_rng(7)
    shapes = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 400), (120,), (84, 120), (84,)]
    shapes += [(10, 84), (10,)]
    weights = [
        (rng.uniform(-1, 1, s) / np.sqrt(np.prod(s[1:]) if len(s) > 1 else 1)).astype(np.float32)
        for s in shapes
    ]
    images = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    one_hot = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 64)]

    def make_step(lib):
        F = lib.nn.functional
        params = [lib.tensor(p.copy(), device=device, requires_grad=True) for p in weights]
        inputs, targets = lib.tensor(images, device=device), lib.tensor(one_hot, device=device)

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
            finished(device, lib)

        return step, params

    return make_step


def bench_conv(rounds: int) -> None:
    """Convolution rows: conv2d forward+backward, and one LeNet-5 SGD step, against PyTorch.

    Times are medians of interleaved rounds (minitorch, torch, minitorch, ...), both float32.
    """
    rng = np.random.default_rng(5)

    print_header("convolution (medians of interleaved rounds, float32)")
    # the course's small convolution, and the digits network's second one (train_mnist.py)
    for x_shape, w_shape in (((16, 1, 28, 28), (8, 1, 3, 3)), ((32, 32, 8, 8), (64, 32, 3, 3))):
        x = rng.standard_normal(x_shape).astype(np.float32)
        w = rng.standard_normal(w_shape).astype(np.float32)

        def conv_step(lib, x=x, w=w):
            inputs = lib.tensor(x, requires_grad=True)
            weight = lib.tensor(w, requires_grad=True)

            def step():
                inputs.grad = weight.grad = None
                lib.conv2d(inputs, weight, padding=1).sum().backward()

            return step

        contenders = {"minitorch": conv_step(minitorch)}
        if torch:
            contenders["torch"] = conv_step(torch)
        label = f"conv2d fwd+bwd {x_shape}*{w_shape}".replace(", ", ",")
        print_row(label, median_of_rounds(contenders, rounds))

    time_steps(lenet_steps("cpu"), "LeNet step", "LeNet-5 SGD step, batch 64", rounds)


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


def gpt_steps(device: str) -> Callable:
    """`make_step(lib)` -> (step, parameters): one AdamW step of `train_gpt.py`'s GPT (64
    features, 4 heads, 2 layers, blocks of 32, 65 characters) on a batch of 16 random windows
    on `device`, from the same weights in every library."""
    rng = np.random.default_rng(6)
    windows = rng.integers(0, 65, (16, 33))
    model_of = same_start(lambda layers: train_gpt.build_model(65, layers))

    def make_step(lib):
        model = model_of(lib).to(device)
        optimizer = lib.optim.AdamW(model.parameters(), lr=1e-3)
        x = lib.tensor(windows[:, :-1], device=device)
        y = lib.tensor(windows[:, 1:], device=device)

        def step() -> None:
            logits = model(x)
            loss = lib.nn.functional.cross_entropy(logits.reshape(-1, 65), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            finished(device, lib)

        return step, list(model.parameters())

    return make_step


def bench_gpt_step(rounds: int) -> None:
    """The tiny GPT's training step (`gpt_steps`) against the same step in PyTorch."""
    print_header("tiny GPT training step (medians of interleaved rounds, float32)")
    time_steps(gpt_steps("cpu"), "GPT step", "GPT 64x4x2, block 32, batch 16", rounds)


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
    bench_step_pieces(rounds)


def bench_step_pieces(rounds: int) -> None:
    """The pieces of an nn-style MLP step (784-256-10, batch 128, float32: `nn.Linear`, ReLU,
    `cross_entropy` of class indices, SGD with momentum): its forward, forward and backward,
    the whole step, and linear + ReLU and a larger cross-entropy on their own, fwd + bwd."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    labels = rng.integers(0, 10, 128)
    big_logits = rng.standard_normal((1024, 100)).astype(np.float32)
    big_labels = rng.integers(0, 100, 1024)
    model_of = same_start(
        lambda nn: nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    )

    def pieces(lib):
        model = model_of(lib)
        fused = {"fused": True} if lib is minitorch else {}
        optimizer = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, **fused)
        inputs, targets = lib.tensor(x), lib.tensor(labels)
        first = model[0]
        logits = lib.tensor(big_logits, requires_grad=True)
        big_targets = lib.tensor(big_labels)

        def forward():
            return lib.nn.functional.cross_entropy(model(inputs), targets)

        def forward_backward():
            optimizer.zero_grad()
            forward().backward()

        def step():
            forward_backward()
            optimizer.step()

        def linear_relu():
            first.weight.grad = first.bias.grad = None
            lib.nn.functional.linear(inputs, first.weight, first.bias).relu().sum().backward()

        def big_cross_entropy():
            logits.grad = None
            lib.nn.functional.cross_entropy(logits, big_targets).backward()

        return {
            "MLP nn step: forward": forward,
            "MLP nn step: forward + backward": forward_backward,
            "MLP nn step, SGD momentum": step,
            "linear 784->256 + ReLU, fwd + bwd": linear_relu,
            "cross_entropy 1024 x 100, fwd + bwd": big_cross_entropy,
        }

    ours = pieces(minitorch)
    theirs = pieces(torch) if torch else {}
    for label, run in ours.items():
        contenders = {"minitorch": run}
        if torch:
            contenders["torch"] = theirs[label]
        print_row(label, compare(contenders, rounds))
