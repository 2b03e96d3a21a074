"""What the optimizer tests share: a small non-quadratic problem (two float64 parameters and
their loss), its start values, and twin runs of an optimizer in minitorch and in torch.
"""

from __future__ import annotations

import numpy as np

import minitorch

RNG = np.random.default_rng(5)
SHAPES = [(3, 2), (2,)]
X_VALUES = RNG.normal(size=(4, 3))


def start_values(rng=RNG) -> list[np.ndarray]:
    return [rng.normal(size=shape) for shape in SHAPES]


def leaves(lib, values):
    """Leaf float64 tensors of `values` in `lib`."""
    return [lib.tensor(v, requires_grad=True) for v in values]


def twin_tensors(torch, values):
    """Leaf float64 tensors with the same values in each library."""
    return leaves(minitorch, values), leaves(torch, values)


def loss_of(lib, params):
    """A small non-quadratic loss, so that each step sees a different gradient."""
    w, b = params
    return ((lib.tensor(X_VALUES) @ w + b).tanh() ** 2).sum() + (w**4).sum() * 0.1


def run_twins(torch, ours_cls, theirs_cls, kwargs, steps=5, values=None):
    """Step both optimizers `steps` times; assert equal weights after each; return both."""
    ours, theirs = twin_tensors(torch, start_values() if values is None else values)
    optimizer, reference = ours_cls(ours, **kwargs), theirs_cls(theirs, **kwargs)
    for step in range(steps):
        twin_step(torch, optimizer, reference, ours, theirs)
        assert_same_values(ours, theirs, f"after step {step}")
    return optimizer, reference, ours, theirs


def twin_step(torch, optimizer, reference, ours, theirs):
    for opt, lib, params in ((optimizer, minitorch, ours), (reference, torch, theirs)):
        opt.zero_grad()
        loss_of(lib, params).backward()
        opt.step()


def assert_same_values(ours, theirs, where, rtol=1e-8):
    for k, (p, q) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(
            p.detach().numpy(), q.detach().numpy(), rtol=rtol, atol=1e-12, err_msg=f"{k} {where}"
        )
