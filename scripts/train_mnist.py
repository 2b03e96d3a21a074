"""Train a LeNet-style convolutional network on handwritten digits: the main training job.

Usage:
    python scripts/train_mnist.py --dataset digits --epochs 8 --out runs/digits
    python scripts/train_mnist.py --dataset mnist --epochs 3 --root data --out runs/mnist
        [--batch-size B] [--lr LR] [--device {cpu,cuda}] [--seed S] [--resume]

Datasets (none is downloaded): `digits`, the 1,797 8x8 digits bundled with scikit-learn
(1,438 to train on, 359 to test on); `mnist` and `fashion-mnist`, the four IDX files that
`minitorch.datasets.MNIST` / `FashionMNIST` read from `ROOT/MNIST/raw/` and
`ROOT/FashionMNIST/raw/`.

The network is two convolution + ReLU + 2x2 max-pool stages, then two linear layers (sizes
chosen for 8x8 or 28x28 images, see `build_model`), trained with Adam on the cross-entropy
$L = -\\frac{1}{n} \\sum_i \\log \\mathrm{softmax}(z_i)_{y_i}$ over a shuffled `DataLoader`:
`optimizer.zero_grad(); loss.backward(); optimizer.step()`, as in any PyTorch script. The
code is plain PyTorch: `import torch as minitorch` would run it too.

Each epoch prints one line (train loss, test loss, test accuracy, seconds, and images/s, which
leaves out the time spent compiling kernels), with a progress bar on stdout while it runs when
that is a terminal; while a kernel compiles the bar says "compiling kernels" with the seconds
so far. When something compiles (a first run, or edited kernels), the job says so once. DIR
receives:

- `metrics.json`: a list with one record per epoch: `epoch`, `train_loss`, `test_loss`,
  `test_accuracy`, `seconds` (the epoch's wall time, training and testing);
- `curves.png` (losses and test accuracy per epoch), `predictions.png` (test images with
  their predicted and true labels, mistakes in red), `confusion.png` (true class against
  predicted class, counts over the test set);
- `model.safetensors` (the weights, `model.state_dict()`), `optimizer.safetensors` and
  `checkpoint.json` (the optimizer's state and the run's settings): `--resume` reads them
  and continues up to `--epochs` epochs in all.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no window

import matplotlib.pyplot as plt  # noqa: E402 -- after choosing the backend
import numpy as np  # noqa: E402
from numba.core import event as numba_event  # noqa: E402
from tqdm import tqdm  # noqa: E402

import minitorch  # noqa: E402
import minitorch.nn.functional as F  # noqa: E402
from minitorch import nn, optim  # noqa: E402
from minitorch.datasets import MNIST, Digits, FashionMNIST  # noqa: E402
from minitorch.utils.data import DataLoader  # noqa: E402

DATASETS = ("digits", "mnist", "fashion-mnist")
METRIC_KEYS = ("epoch", "train_loss", "test_loss", "test_accuracy", "seconds")
COMPILING = "compiling kernels (first run only)…"


def positive(kind):
    """An argparse type: `kind(text)`, which must be > 0."""

    def parse(text: str):
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Train a LeNet-style CNN on handwritten digits and plot how it learns."
    )
    parser.add_argument("--dataset", choices=DATASETS, default="digits")
    parser.add_argument("--epochs", type=positive(int), default=8, help="epochs in all")
    parser.add_argument("--batch-size", type=positive(int), default=32)
    parser.add_argument("--lr", type=positive(float), default=2e-3, help="Adam's step size")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--out", type=Path, required=True, help="folder for metrics and plots")
    parser.add_argument("--root", type=Path, default=Path("data"), help="MNIST files' root")
    parser.add_argument("--resume", action="store_true", help="continue the run saved in OUT")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.device == "cuda" and not minitorch.cuda.is_available():
        parser.error(
            "--device cuda: no CUDA device is available (minitorch.cuda.is_available() is "
            "False: no NVIDIA GPU, or no CUDA backend installed); use --device cpu"
        )
    return args


def load_data(name: str, root: Path):
    """The (train, test) datasets of `name`; each example is a (1, H, W) image and a label."""
    if name == "digits":
        return Digits(train=True), Digits(train=False)
    kind = MNIST if name == "mnist" else FashionMNIST
    return kind(root, train=True), kind(root, train=False)


def build_model(image_size: int, layers=nn) -> nn.Sequential:
    """LeNet-style: convolutions with ReLU and 2x2 max-pooling, then two linear layers.

    28x28 images (as LeNet-5): 5x5 kernels, 28 -> conv 24 -> pool 12 -> conv 8 -> pool 4.
    8x8 digits: two 3x3 convolutions padded to keep 8x8, then one pool to 4x4 (a pool after
    the first convolution would leave too few pixels for the second).
    `layers` is the `nn` module to build with (`torch.nn` builds the same network in PyTorch).
    """
    if image_size == 8:
        return layers.Sequential(
            layers.Conv2d(1, 32, 3, padding=1),
            layers.ReLU(),
            layers.Conv2d(32, 64, 3, padding=1),
            layers.ReLU(),
            layers.MaxPool2d(2),
            layers.Flatten(),
            layers.Linear(64 * 4 * 4, 128),
            layers.ReLU(),
            layers.Linear(128, 10),
        )
    return layers.Sequential(
        layers.Conv2d(1, 16, 5),
        layers.ReLU(),
        layers.MaxPool2d(2),
        layers.Conv2d(16, 32, 5),
        layers.ReLU(),
        layers.MaxPool2d(2),
        layers.Flatten(),
        layers.Linear(32 * 4 * 4, 128),
        layers.ReLU(),
        layers.Linear(128, 10),
    )


@dataclass
class Evaluation:
    """The mean loss, the accuracy and the predicted class of every test image."""

    loss: float
    accuracy: float
    predicted: list[int]


def train_epoch(model, loader, optimizer, device: str, progress) -> tuple[float, int]:
    """One pass over `loader`: the mean training loss and the number of images seen."""
    model.train()
    total, count = 0.0, 0
    for images, labels in progress(loader):
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(labels)
        count += len(labels)
    return total / count, count


def evaluate(model, loader, device: str) -> Evaluation:
    """The model's mean cross-entropy, accuracy and predictions on `loader`, without grads."""
    model.eval()
    total, correct, predicted = 0.0, 0, []
    with minitorch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            total += F.cross_entropy(logits, labels).item() * len(labels)
            guess = logits.argmax(dim=1)
            correct += int((guess == labels).sum().item())
            predicted += guess.tolist()
    return Evaluation(total / len(predicted), correct / len(predicted), predicted)


def summary(record: dict, epochs: int, images_per_second: float) -> str:
    """The one line printed after an epoch."""
    return (
        f"epoch {record['epoch']}/{epochs}  train loss {record['train_loss']:.4f}  "
        f"test loss {record['test_loss']:.4f}  test accuracy {record['test_accuracy']:.2%}  "
        f"{record['seconds']:.1f} s  {images_per_second:,.0f} images/s"
    )


# ---- files written to OUT: metrics, figures, checkpoint -------------------------------------


def write_metrics(records: list[dict], out: Path) -> None:
    """`out/metrics.json`: the list of per-epoch records (keys `METRIC_KEYS`)."""
    (out / "metrics.json").write_text(json.dumps(records, indent=2) + "\n")


def read_metrics(out: Path) -> list[dict]:
    path = out / "metrics.json"
    return json.loads(path.read_text()) if path.exists() else []


def plot_curves(records: list[dict], path: Path) -> None:
    """Train and test loss (left) and test accuracy (right) against the epoch."""
    epochs = [r["epoch"] for r in records]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(epochs, [r["train_loss"] for r in records], "o-", label="train")
    left.plot(epochs, [r["test_loss"] for r in records], "s-", label="test")
    left.set(xlabel="epoch", ylabel="cross-entropy loss", title="Loss")
    left.legend()
    right.plot(epochs, [100 * r["test_accuracy"] for r in records], "o-", color="tab:green")
    right.set(xlabel="epoch", ylabel="test accuracy (%)", title="Test accuracy")
    for axes in (left, right):
        axes.grid(alpha=0.3)
        axes.set_xticks(epochs)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_predictions(
    images: np.ndarray, predicted: list[int], true: list[int], classes: list[str], path: Path
) -> str:
    """A grid of test images titled "predicted (true)"; mistakes in red with a red frame.

    Shows the first 30 test images and the first 10 mistakes among all of them; the title
    (returned) says how many of the mistakes are shown."""
    wrong = [k for k, (p, t) in enumerate(zip(predicted, true, strict=True)) if p != t]
    shown = sorted(set(range(min(30, len(true)))) | set(wrong[:10]))
    columns = 10
    rows = (len(shown) + columns - 1) // columns
    fig, grid = plt.subplots(rows, columns, figsize=(columns * 1.2, rows * 1.45), squeeze=False)
    for axes in grid.flat:
        axes.axis("off")
    for axes, k in zip(grid.flat, shown, strict=False):
        mistake = predicted[k] != true[k]
        colour = "red" if mistake else "black"
        axes.imshow(images[k], cmap="gray_r", vmin=0.0, vmax=1.0)
        axes.set_title(f"{classes[predicted[k]]} ({classes[true[k]]})", color=colour, fontsize=8)
        if mistake:
            axes.axis("on")
            axes.set_xticks([])
            axes.set_yticks([])
            for spine in axes.spines.values():
                spine.set(color="red", linewidth=2)
    title = predictions_title(len(shown), len(true), len(wrong), len(set(shown) & set(wrong)))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return title


def predictions_title(shown: int, images: int, mistakes: int, mistakes_shown: int) -> str:
    """ "predicted (true) of 40 of 359 test images: 10 of the 12 mistakes shown, in red"."""
    return (
        f"predicted (true) of {shown} of {images} test images: "
        f"{mistakes_shown} of the {mistakes} mistakes shown, in red"
    )


def confusion_matrix(predicted: list[int], true: list[int], classes: int) -> np.ndarray:
    """`m[t, p]`: how many images of class `t` were predicted as class `p`."""
    matrix = np.zeros((classes, classes), dtype=np.int64)
    np.add.at(matrix, (np.asarray(true), np.asarray(predicted)), 1)
    return matrix


def plot_confusion(matrix: np.ndarray, classes: list[str], path: Path) -> None:
    """The confusion matrix as a heat map with the count in each cell."""
    fig, axes = plt.subplots(figsize=(7, 6))
    picture = axes.imshow(matrix, cmap="Blues")
    fig.colorbar(picture, ax=axes, label="test images")
    ticks = range(len(classes))
    axes.set_xticks(ticks, classes, rotation=45 if max(map(len, classes)) > 2 else 0)
    axes.set_yticks(ticks, classes)
    axes.set(xlabel="predicted class", ylabel="true class", title="Confusion matrix (test set)")
    middle = matrix.max() / 2
    for (t, p), count in np.ndenumerate(matrix):
        if count:
            colour = "white" if count > middle else "black"
            axes.text(p, t, str(count), ha="center", va="center", color=colour, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def optimizer_to_files(optimizer) -> tuple[dict, dict]:
    """Split `optimizer.state_dict()` into its tensors (a flat name -> tensor dict that
    safetensors can hold) and everything else (JSON): the state of parameter `i` is saved as
    `state.{i}.{name}`."""
    saved = optimizer.state_dict()
    tensors, numbers = {}, {}
    for index, state in saved["state"].items():
        for name, value in state.items():
            key = f"state.{index}.{name}"
            if minitorch.is_tensor(value):
                tensors[key] = value.detach().cpu().contiguous()
            else:
                numbers[key] = value
    return tensors, {"numbers": numbers, "param_groups": saved["param_groups"]}


def optimizer_from_files(tensors: dict, rest: dict) -> dict:
    """The inverse of `optimizer_to_files`: a state dict for `optimizer.load_state_dict`."""
    state: dict[int, dict] = {}
    for key, value in [*tensors.items(), *rest["numbers"].items()]:
        _, index, name = key.split(".", 2)
        state.setdefault(int(index), {})[name] = value
    return {"state": state, "param_groups": rest["param_groups"]}


def save_checkpoint(model, optimizer, settings: dict, out: Path) -> None:
    """Weights, optimizer state and settings in `out`, for `--resume`."""
    minitorch.save(model.state_dict(), out / "model.safetensors")
    tensors, rest = optimizer_to_files(optimizer)
    minitorch.save(tensors, out / "optimizer.safetensors")
    checkpoint = {"settings": settings, "optimizer": rest}
    (out / "checkpoint.json").write_text(json.dumps(checkpoint, indent=2) + "\n")


def load_checkpoint(model, optimizer, settings: dict, out: Path) -> None:
    """Restore what `save_checkpoint` wrote; `SystemExit` when `out` holds another run."""
    path = out / "checkpoint.json"
    if not path.exists():
        raise SystemExit(f"--resume: no checkpoint in {out} (no {path.name}); run without it")
    checkpoint = json.loads(path.read_text())
    if checkpoint["settings"] != settings:
        raise SystemExit(
            f"--resume: {out} holds a run with {checkpoint['settings']}, not {settings}"
        )
    model.load_state_dict(minitorch.load(out / "model.safetensors"))
    tensors = minitorch.load(out / "optimizer.safetensors")
    optimizer.load_state_dict(optimizer_from_files(tensors, checkpoint["optimizer"]))


# ---- the job ---------------------------------------------------------------------------------


class CompileWatch(numba_event.Listener):
    """Numba's "numba:compile" events (a kernel compiled, not loaded from the cache): whether
    one is compiling now and since when, and the seconds spent compiling so far. `announce`
    runs when the first compile starts."""

    def __init__(self, announce=None):
        self.announce = announce
        self.depth = 0  # compiles nest: a kernel compiles the functions it calls
        self.started: float | None = None
        self.seconds = 0.0
        self.count = 0

    def on_start(self, event) -> None:
        if self.depth == 0:
            self.started = time.perf_counter()
            if self.count == 0 and self.announce is not None:
                self.announce()
            self.count += 1
        self.depth += 1

    def on_end(self, event) -> None:
        self.depth -= 1
        if self.depth == 0 and self.started is not None:
            self.seconds += time.perf_counter() - self.started
            self.started = None

    def status(self) -> str:
        """ "compiling kernels 12s" while a kernel compiles, else ""."""
        started = self.started
        return "" if started is None else f"compiling kernels {time.perf_counter() - started:.0f}s"


@contextlib.contextmanager
def watching_compiles(announce=None):
    """A `CompileWatch` listening while the block runs."""
    watch = CompileWatch(announce)
    with numba_event.install_listener("numba:compile", watch):
        yield watch


def announce_compiling() -> None:
    tqdm.write(COMPILING, file=sys.stdout)
    sys.stdout.flush()


# How often the bar's compile status is redrawn (a compile gives the bar no updates of its own).
STATUS_SECONDS = 0.5


def progress_bar(epoch: int, epochs: int, first: bool, watch: CompileWatch | None = None):
    """Wrap a loader in a tqdm bar on stdout when it is a terminal. The first epoch of a process
    shows no time estimate: it includes compiling the kernels, which says nothing about the
    time the rest will take. While `watch` sees a kernel compile, the bar says so, with the
    seconds it has taken so far."""
    if not sys.stdout.isatty():
        return lambda loader: loader
    layout = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}{postfix}]" if first else None

    def wrap(loader):
        bar = tqdm(
            loader,
            desc=f"epoch {epoch}/{epochs}",
            unit="batch",
            leave=False,
            bar_format=layout,
            file=sys.stdout,
        )
        return bar if watch is None else with_compile_status(bar, watch)

    return wrap


def with_compile_status(bar, watch: CompileWatch):
    """The items of `bar`; meanwhile a thread shows `watch.status()` after it."""
    stop = threading.Event()

    def redraw() -> None:
        shown = ""
        while not stop.wait(STATUS_SECONDS):
            status = watch.status()
            if status or shown:
                bar.set_postfix_str(status)
                shown = status

    thread = threading.Thread(target=redraw, daemon=True)
    thread.start()
    try:
        yield from bar
    finally:
        stop.set()
        thread.join()
        bar.close()


def images_per_second(images: int, seconds: float, compiling: float) -> float:
    """The training rate, without the seconds spent compiling kernels."""
    return images / max(seconds - compiling, 1e-9)


def run(args: argparse.Namespace) -> list[dict]:
    """Train as `args` say, writing everything to `args.out`; the metrics of every epoch."""
    args.out.mkdir(parents=True, exist_ok=True)
    with watching_compiles(announce_compiling) as watch:
        return train_job(args, watch)


def train_job(args: argparse.Namespace, watch: CompileWatch) -> list[dict]:
    """`run`, with `watch` seeing the kernels compile."""
    try:
        train_set, test_set = load_data(args.dataset, args.root)
    except (FileNotFoundError, ValueError) as error:  # missing or corrupt IDX files
        raise SystemExit(f"error: {error}") from None
    settings = {"dataset": args.dataset, "batch_size": args.batch_size, "seed": args.seed}
    minitorch.manual_seed(args.seed)
    model = build_model(train_set[0][0].shape[-1]).to(args.device)
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    records = read_metrics(args.out) if args.resume else []
    if args.resume:
        load_checkpoint(model, optimizer, settings, args.out)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=256)

    result = None
    if len(records) >= args.epochs:
        print(f"{args.out} already holds {len(records)} epochs (--epochs {args.epochs})")
    for epoch in range(len(records) + 1, args.epochs + 1):
        minitorch.manual_seed(args.seed + epoch)  # each epoch's order, the same when resumed
        start, compiled = time.perf_counter(), watch.seconds
        progress = progress_bar(epoch, args.epochs, epoch == len(records) + 1, watch)
        train_loss, count = train_epoch(model, train_loader, optimizer, args.device, progress)
        train_seconds = time.perf_counter() - start
        rate = images_per_second(count, train_seconds, watch.seconds - compiled)
        result = evaluate(model, test_loader, args.device)
        record = {
            "epoch": epoch,
            "train_loss": train_loss,
            "test_loss": result.loss,
            "test_accuracy": result.accuracy,
            "seconds": time.perf_counter() - start,
        }
        records.append(record)
        print(summary(record, args.epochs, rate), flush=True)
        write_metrics(records, args.out)
        save_checkpoint(model, optimizer, settings, args.out)

    if result is None:
        result = evaluate(model, test_loader, args.device)
    images = np.stack([test_set[k][0].numpy()[0] for k in range(len(test_set))])
    true = [test_set[k][1] for k in range(len(test_set))]
    classes = [name.split(" - ")[0] for name in train_set.classes]  # MNIST's "0 - zero"
    plot_curves(records, args.out / "curves.png")
    plot_predictions(images, result.predicted, true, classes, args.out / "predictions.png")
    matrix = confusion_matrix(result.predicted, true, len(classes))
    plot_confusion(matrix, classes, args.out / "confusion.png")
    print(f"wrote {', '.join(sorted(p.name for p in args.out.iterdir()))} to {args.out}")
    return records


def main(argv: list[str] | None = None) -> int:
    run(parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
