"""scripts/train_mnist.py without training: its options, metrics file, figures, confusion
matrix and optimizer checkpoint format. (The end-to-end run is tests/test_train_mnist_e2e.py.)"""

from __future__ import annotations

import json
import re
import sys
import time

import matplotlib.image
import numba
import numpy as np
import pytest
from numba.core import event as numba_event

import minitorch
from scripts import train_mnist

RECORDS = [
    {"epoch": 1, "train_loss": 1.2, "test_loss": 0.5, "test_accuracy": 0.9, "seconds": 3.0},
    {"epoch": 2, "train_loss": 0.4, "test_loss": 0.3, "test_accuracy": 0.95, "seconds": 2.5},
]


def test_defaults_are_the_readme_job():
    args = train_mnist.parse_args(["--out", "runs/x"])
    assert (args.dataset, args.epochs, args.batch_size, args.device) == ("digits", 8, 32, "cpu")
    assert args.lr == 2e-3 and args.seed == 0 and not args.resume
    assert str(args.out) == "runs/x"


def test_every_option_parses():
    args = train_mnist.parse_args(
        "--dataset fashion-mnist --epochs 3 --batch-size 64 --lr 0.01 --out o --root r "
        "--resume --seed 7".split()
    )
    assert (args.dataset, args.epochs, args.batch_size, args.lr) == ("fashion-mnist", 3, 64, 0.01)
    assert (str(args.root), args.resume, args.seed) == ("r", True, 7)


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        ([], "--out"),
        (["--out", "o", "--dataset", "cifar"], "invalid choice: 'cifar'"),
        (["--out", "o", "--epochs", "0"], "must be positive, got 0"),
        (["--out", "o", "--batch-size", "-2"], "must be positive, got -2"),
        (["--out", "o", "--lr", "0"], "must be positive, got 0"),
        (["--out", "o", "--device", "tpu"], "invalid choice: 'tpu'"),
    ],
)
def test_bad_options_are_refused_with_the_reason(capsys, argv, complaint):
    with pytest.raises(SystemExit) as exit_:
        train_mnist.parse_args(argv)
    assert exit_.value.code == 2
    assert complaint in capsys.readouterr().err


def test_cuda_without_a_gpu_is_refused_clearly(capsys, monkeypatch):
    monkeypatch.setattr(minitorch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit):
        train_mnist.parse_args(["--out", "o", "--device", "cuda"])
    assert "no CUDA device is available" in capsys.readouterr().err


def test_metrics_are_a_list_of_records_with_the_documented_keys(tmp_path):
    train_mnist.write_metrics(RECORDS, tmp_path)
    written = json.loads((tmp_path / "metrics.json").read_text())
    assert written == RECORDS
    assert all(tuple(record) == train_mnist.METRIC_KEYS for record in written)
    assert train_mnist.read_metrics(tmp_path) == RECORDS
    assert train_mnist.read_metrics(tmp_path / "none") == []


def test_summary_line_has_losses_accuracy_seconds_and_rate():
    line = train_mnist.summary(RECORDS[1], 8, 1234.4)
    assert line == (
        "epoch 2/8  train loss 0.4000  test loss 0.3000  test accuracy 95.00%  2.5 s  "
        "1,234 images/s"
    )


def test_confusion_matrix_counts_true_against_predicted():
    true = [0, 0, 1, 2, 2, 2]
    predicted = [0, 1, 1, 2, 0, 2]
    expected = np.array([[1, 1, 0], [0, 1, 0], [1, 0, 2]])
    np.testing.assert_array_equal(train_mnist.confusion_matrix(predicted, true, 3), expected)


def red_pixels(path) -> int:
    pixels = matplotlib.image.imread(path)[..., :3]
    return int(((pixels[..., 0] > 0.9) & (pixels[..., 1] < 0.1) & (pixels[..., 2] < 0.1)).sum())


def test_predictions_mark_mistakes_in_red_and_only_mistakes(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.random((12, 8, 8))
    true = [k % 10 for k in range(12)]
    classes = [str(k) for k in range(10)]
    train_mnist.plot_predictions(images, true, true, classes, tmp_path / "right.png")
    wrong = list(true)
    wrong[3] = 5
    train_mnist.plot_predictions(images, wrong, true, classes, tmp_path / "wrong.png")
    assert red_pixels(tmp_path / "right.png") == 0
    assert red_pixels(tmp_path / "wrong.png") > 100


def test_curves_and_confusion_are_written_as_images(tmp_path):
    train_mnist.plot_curves(RECORDS, tmp_path / "curves.png")
    matrix = train_mnist.confusion_matrix([0, 1, 1], [0, 1, 0], 2)
    train_mnist.plot_confusion(matrix, ["a", "b"], tmp_path / "confusion.png")
    for name in ("curves.png", "confusion.png"):
        height, width = matplotlib.image.imread(tmp_path / name).shape[:2]
        assert height >= 300 and width >= 500, (name, height, width)


def test_optimizer_state_splits_into_tensors_and_json_and_back():
    moment = minitorch.tensor([0.5, -1.0])
    saved = {
        "state": {0: {"step": 3, "exp_avg": moment}, 1: {"step": 3, "exp_avg": moment * 2}},
        "param_groups": [{"lr": 0.002, "betas": (0.9, 0.999), "params": [0, 1]}],
    }

    class Saved:
        def state_dict(self):
            return saved

    tensors, rest = train_mnist.optimizer_to_files(Saved())
    assert sorted(tensors) == ["state.0.exp_avg", "state.1.exp_avg"]
    assert rest["numbers"] == {"state.0.step": 3, "state.1.step": 3}
    rest = json.loads(json.dumps(rest))  # what checkpoint.json gives back
    restored = train_mnist.optimizer_from_files(tensors, rest)
    assert restored["state"][1]["step"] == 3
    assert restored["state"][1]["exp_avg"].tolist() == [1.0, -2.0]
    assert restored["param_groups"][0]["params"] == [0, 1]


def test_resume_refuses_another_runs_folder(tmp_path):
    settings = {"dataset": "digits", "batch_size": 32, "seed": 0}
    with pytest.raises(SystemExit, match="no checkpoint"):
        train_mnist.load_checkpoint(None, None, settings, tmp_path)
    (tmp_path / "checkpoint.json").write_text(
        json.dumps({"settings": {**settings, "dataset": "mnist"}, "optimizer": {}})
    )
    with pytest.raises(SystemExit, match="holds a run with .*'mnist'"):
        train_mnist.load_checkpoint(None, None, settings, tmp_path)


def test_no_progress_bar_when_stdout_is_not_a_terminal(capsys):
    wrap = train_mnist.progress_bar(1, 8, first=True)
    assert list(wrap([1, 2])) == [1, 2]
    assert capsys.readouterr() == ("", "")


def test_missing_mnist_files_stop_the_job_with_where_to_put_them(tmp_path):
    args = train_mnist.parse_args(
        ["--dataset", "mnist", "--root", str(tmp_path), "--out", str(tmp_path / "run")]
    )
    with pytest.raises(SystemExit, match=r"^error: MNIST: .*never downloads"):
        train_mnist.run(args)


# ---- compiling kernels: the status, the one-time line, the rate ------------------------------


def compiling(seconds: float) -> None:
    """What Numba reports while it compiles a kernel (not one loaded from its cache)."""
    with numba_event.trigger_event("numba:compile"):
        time.sleep(seconds)


def test_the_compile_watch_sees_real_compiles_once_and_announces_the_first():
    announced = []
    with train_mnist.watching_compiles(lambda: announced.append(True)) as watch:
        square = numba.njit(lambda x: x * x)  # new in this process: it compiles
        assert square(3) == 9 and watch.count == 1 and watch.seconds > 0
        assert square(4) == 16 and watch.count == 1, "compiled once"
        cube = numba.njit(lambda x: x * x * x)
        assert cube(2) == 8 and watch.count == 2
    assert announced == [True], "the first compile is announced, only it"
    assert watch.status() == ""


def test_nothing_is_announced_when_nothing_compiles(capsys):
    with train_mnist.watching_compiles(train_mnist.announce_compiling) as watch:
        assert minitorch.tensor([1.0, 2.0]).tolist() == [1.0, 2.0]
    assert watch.count == 0 and capsys.readouterr().out == ""
    with train_mnist.watching_compiles(train_mnist.announce_compiling):
        compiling(0.01)
        compiling(0.01)
    assert capsys.readouterr().out == train_mnist.COMPILING + "\n"


def test_the_bar_shows_a_live_compiling_status_with_the_seconds(capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # a terminal

    def batches():
        compiling(2.3)  # the first batch compiles its kernels
        yield from range(3)

    with train_mnist.watching_compiles() as watch:
        wrap = train_mnist.progress_bar(1, 2, first=True, watch=watch)
        assert list(wrap(batches())) == [0, 1, 2]
    out = capsys.readouterr().out
    seconds = {int(s) for s in re.findall(r"compiling kernels (\d+)s", out)}
    assert len(seconds) >= 2 and max(seconds) >= 1, f"no live compile status in {out!r}"
    assert "0/" in out, "the bar itself is there"


def test_images_per_second_leave_out_compiling():
    assert train_mnist.images_per_second(1000, 12.0, 10.0) == 500.0
    assert train_mnist.images_per_second(1000, 2.0, 0.0) == 500.0


def test_the_predictions_title_says_how_many_mistakes_are_shown(tmp_path):
    rng = np.random.default_rng(0)
    true = rng.integers(0, 10, 60).tolist()
    predicted = list(true)
    wrong = [3, 7, 31, 35, 36, 40, 44, 45, 47, 50, 52, 58]  # 2 among the first 30, 10 later
    for k in wrong:
        predicted[k] = (true[k] + 1) % 10
    images = rng.uniform(size=(60, 8, 8))
    title = train_mnist.plot_predictions(
        images, predicted, true, [str(d) for d in range(10)], tmp_path / "p.png"
    )
    # shown: the first 30 images, and the first 10 mistakes (8 of them after the first 30)
    assert title == "predicted (true) of 38 of 60 test images: 10 of the 12 mistakes shown, in red"
    assert (tmp_path / "p.png").stat().st_size > 0
