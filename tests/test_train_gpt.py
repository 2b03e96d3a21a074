"""scripts/train_gpt.py: a few steps on a tiny text lower the loss below the unigram baseline,
the files it writes, and its model against the same model built in torch."""

from __future__ import annotations

import json
import math

import matplotlib.image
import numpy as np

import minitorch
from scripts import train_gpt

TINY = ["--n-embd", "16", "--heads", "2", "--layers", "1", "--block", "8"]


def test_a_few_steps_lower_the_loss_below_the_baseline(tmp_path, capsys):
    text = tmp_path / "text.txt"
    text.write_text("the cat sat on the mat; the rat ate the hat. " * 40)
    out = tmp_path / "run"
    argv = ["--out", str(out), "--text", str(text), "--steps", "60", "--eval-every", "30"]
    metrics = train_gpt.main([*argv, "--lr", "1e-2", "--sample-length", "20", *TINY])
    printed = capsys.readouterr().out
    whole = text.read_text()
    trained = whole[: int(0.9 * len(whole))]  # the held-out text is the last 10%
    p = np.array([trained.count(c) for c in set(trained)]) / len(trained)
    assert math.isclose(metrics["unigram_entropy"], -(p * np.log(p)).sum(), rel_tol=1e-12)
    assert f"unigram-entropy baseline: {metrics['unigram_entropy']:.4f}" in printed
    losses = metrics["train_loss"]
    assert len(losses) == 60 and metrics["eval_steps"] == [0, 30, 60]
    assert np.mean(losses[-10:]) < np.mean(losses[:10]) - 0.5
    assert metrics["held_out_loss"][-1] < metrics["unigram_entropy"] < metrics["held_out_loss"][0]
    assert "is below the unigram baseline" in printed
    assert json.loads((out / "metrics.json").read_text())["train_loss"] == losses
    assert matplotlib.image.imread(out / "curves.png").shape[2] in (3, 4)
    sample = (out / "sample.txt").read_text()
    assert len(sample) == 8 + 20 + 1 and set(sample) <= set(text.read_text()) | {"\n"}


def test_the_bundled_text_is_the_default():
    args = train_gpt.parse_args(["--out", "o"])
    assert args.text == train_gpt.TEXT and args.text.stat().st_size < 400_000
    assert (args.n_embd, args.heads, args.layers, args.block) == (64, 4, 2, 32)
    assert (args.batch_size, args.steps) == (16, 2000)


def test_the_model_is_torchs(torch):
    """The same weights give the same logits and gradients in torch's build of the model."""
    ours = train_gpt.build_model(11, minitorch.nn, 8, 2, 2, 6)
    theirs = train_gpt.build_model(11, torch.nn, 8, 2, 2, 6)
    theirs.load_state_dict(
        {k: torch.tensor(v.detach().numpy()) for k, v in ours.state_dict().items()}
    )
    indices = np.random.default_rng(0).integers(0, 11, (3, 6))
    got, want = ours(minitorch.tensor(indices)), theirs(torch.tensor(indices))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)
    got.square().sum().backward()
    want.square().sum().backward()
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters(), strict=True):
        np.testing.assert_allclose(
            p.grad.numpy(), q.grad.numpy(), rtol=1e-3, atol=1e-5, err_msg=name
        )
