"""Train a tiny character-level GPT on Shakespeare, and write its loss curves and a sample.

Usage:
    python scripts/train_gpt.py --out runs/gpt [--steps 2000] [--text FILE] [--batch-size 16]
        [--lr 3e-3] [--eval-every 100] [--sample-length 500] [--seed 0]

The model predicts each next character from the `block` (32) before it: an embedding of the
characters plus one of the positions, `layers` (2) pre-norm `nn.TransformerEncoderLayer`s of
`n_embd` (64) features and `heads` (4) heads with the causal mask
(`nn.Transformer.generate_square_subsequent_mask`), a `LayerNorm` and a linear layer to the
logits of the next character, trained with AdamW on the cross-entropy. The text is by default
scripts/gpt_data/shakespeare.txt (public domain; see the README there); 90% of it is
trained on, the last 10% is held out.

Before training the job prints the unigram-entropy baseline, $H = -\\sum_c p_c \\ln p_c$ over the
characters' frequencies in the training text: the loss of the best model that ignores the
context. Every `--eval-every` steps it prints the mean training loss since the last report
and the held-out loss; at the end, whether the held-out loss fell below the baseline. OUT
receives `metrics.json` (the losses), `curves.png` (both losses per step, with the baseline)
and `sample.txt` (text the model writes, sampled from its softmax, after a prompt from the
held-out text). The code is plain PyTorch: `build_model(vocab, torch.nn)` builds the same
model in torch.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no window

import matplotlib.pyplot as plt  # noqa: E402 -- after choosing the backend
import numpy as np  # noqa: E402

import minitorch  # noqa: E402
import minitorch.nn.functional as F  # noqa: E402
from minitorch import nn  # noqa: E402

TEXT = Path(__file__).resolve().parent / "gpt_data" / "shakespeare.txt"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, required=True, help="folder for metrics and plots")
    parser.add_argument("--text", type=Path, default=TEXT, help="the text to learn")
    parser.add_argument("--steps", type=int, default=2000, help="training steps")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3, help="AdamW's step size")
    parser.add_argument("--eval-every", type=int, default=100, help="steps between reports")
    parser.add_argument("--sample-length", type=int, default=500, help="characters to write")
    parser.add_argument("--seed", type=int, default=0)
    for name, default in (("n-embd", 64), ("heads", 4), ("layers", 2), ("block", 32)):
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args(argv)
    if args.steps < 1 or args.eval_every < 1:
        parser.error("--steps and --eval-every must be positive")
    return args


def build_model(vocab: int, layers=nn, n_embd=64, heads=4, depth=2, block=32):
    """The GPT of `layers` (`minitorch.nn` or `torch.nn`): token and position embeddings,
    `depth` causal pre-norm encoder layers, a final `LayerNorm` and the logits' `Linear`."""

    class GPT(layers.Module):
        def __init__(self) -> None:
            super().__init__()
            self.token = layers.Embedding(vocab, n_embd)
            self.position = layers.Embedding(block, n_embd)
            layer = layers.TransformerEncoderLayer(
                n_embd, heads, 4 * n_embd, dropout=0.0, activation="gelu", batch_first=True,
                norm_first=True,
            )  # fmt: skip
            self.blocks = layers.TransformerEncoder(layer, depth, enable_nested_tensor=False)
            self.norm = layers.LayerNorm(n_embd)
            self.head = layers.Linear(n_embd, vocab)

        def forward(self, indices):
            """Logits (batch, length, vocab) of the next character after each position."""
            length = indices.shape[1]
            x = self.token(indices) + self.position.weight[:length]
            mask = layers.Transformer.generate_square_subsequent_mask(
                length, device=x.device, dtype=x.dtype
            )
            return self.head(self.norm(self.blocks(x, mask=mask, is_causal=True)))

    return GPT()


def unigram_entropy(codes: np.ndarray, vocab: int) -> float:
    """$-\\sum_c p_c \\ln p_c$ of the characters' frequencies, in nats."""
    p = np.bincount(codes, minlength=vocab) / len(codes)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def batch(codes: np.ndarray, size: int, block: int, rng: np.random.Generator):
    """`size` random windows of `block` characters and the windows one character later."""
    starts = rng.integers(0, len(codes) - block - 1, size)
    x = np.stack([codes[s : s + block] for s in starts])
    y = np.stack([codes[s + 1 : s + block + 1] for s in starts])
    return minitorch.tensor(x), minitorch.tensor(y)


def loss_of(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def held_out_loss(model, codes, block, batches=4, size=16) -> float:
    """The mean loss on `batches` fixed windows of the held-out text."""
    rng = np.random.default_rng(1)
    with minitorch.no_grad():
        return float(
            np.mean(
                [loss_of(model, *batch(codes, size, block, rng)).item() for _ in range(batches)]
            )
        )


def sample(model, prompt: np.ndarray, length: int, block: int, rng) -> list[int]:
    """`length` characters drawn one at a time from the model's softmax after `prompt`."""
    codes = list(prompt)
    with minitorch.no_grad():
        for _ in range(length):
            window = minitorch.tensor(np.array(codes[-block:])).unsqueeze(0)
            probs = model(window)[0, -1].softmax(-1).numpy().astype(np.float64)
            codes.append(int(rng.choice(len(probs), p=probs / probs.sum())))
    return codes[len(prompt) :]


def plot(metrics: dict, path: Path) -> None:
    figure, axes = plt.subplots(figsize=(7, 4))
    steps = np.arange(1, len(metrics["train_loss"]) + 1)
    axes.plot(steps, metrics["train_loss"], lw=0.6, alpha=0.6, label="training loss (per step)")
    axes.plot(metrics["eval_steps"], metrics["held_out_loss"], "o-", label="held-out loss")
    axes.axhline(metrics["unigram_entropy"], color="gray", ls="--", label="unigram entropy")
    axes.set_xlabel("step")
    axes.set_ylabel("cross-entropy (nats per character)")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    text = args.text.read_text(encoding="utf-8")
    alphabet = sorted(set(text))
    codes = np.array([alphabet.index(c) for c in text], dtype=np.int64)
    split = int(0.9 * len(codes))
    train, held_out = codes[:split], codes[split:]
    if len(held_out) <= args.block + 1:
        sys.exit(f"train_gpt: the text is too short for blocks of {args.block}")
    minitorch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = build_model(len(alphabet), nn, args.n_embd, args.heads, args.layers, args.block)
    optimizer = minitorch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    baseline = unigram_entropy(train, len(alphabet))
    count = sum(p.numel() for p in model.parameters())
    print(f"{len(text)} characters, {len(alphabet)} distinct; {count} parameters")
    print(f"unigram-entropy baseline: {baseline:.4f} nats per character")
    metrics = {"unigram_entropy": baseline, "train_loss": [], "eval_steps": [], "held_out_loss": []}
    metrics["held_out_loss"].append(held_out_loss(model, held_out, args.block))
    metrics["eval_steps"].append(0)
    for step in range(1, args.steps + 1):
        loss = loss_of(model, *batch(train, args.batch_size, args.block, rng))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        metrics["train_loss"].append(loss.item())
        if step % args.eval_every == 0 or step == args.steps:
            metrics["eval_steps"].append(step)
            metrics["held_out_loss"].append(held_out_loss(model, held_out, args.block))
            recent = np.mean(metrics["train_loss"][-args.eval_every :])
            print(
                f"step {step:5d}  train {recent:.4f}  held-out {metrics['held_out_loss'][-1]:.4f}"
            )
    final = metrics["held_out_loss"][-1]
    verdict = "below" if final < baseline else "not below"
    print(f"held-out loss {final:.4f} is {verdict} the unigram baseline {baseline:.4f}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "metrics.json").write_text(json.dumps(metrics))
    plot(metrics, args.out / "curves.png")
    prompt = held_out[: args.block]
    written = sample(model, prompt, args.sample_length, args.block, rng)
    sample_text = "".join(alphabet[c] for c in prompt) + "".join(alphabet[c] for c in written)
    (args.out / "sample.txt").write_text(sample_text + "\n", encoding="utf-8")
    print(
        f"wrote {args.out / 'metrics.json'}, {args.out / 'curves.png'}, {args.out / 'sample.txt'}"
    )
    metrics["perplexity"] = math.exp(final)
    return metrics


if __name__ == "__main__":
    main()
