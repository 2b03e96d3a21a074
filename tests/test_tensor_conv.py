"""Convolution and pooling on every CPU backend (they are built from the backends' existing
kernels): one tiny case each, forward and input gradient, against torch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.torch


@pytest.mark.parametrize(
    "name, args",
    [
        (
            "conv2d",
            ((2, 2, 2, 2),),
        ),
        ("max_pool2d", (2, 1, 1)),
        ("avg_pool2d", (2, 1, 1)),
    ],
)
def test_conv_and_pooling_run_on_the_backend(name, args):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, 2, 3, 4))
    extra = [a if isinstance(a, int) else rng.normal(size=a) for a in args]
    ours_args = [
        a if isinstance(a, int) else minitorch.tensor(a, dtype=minitorch.float64) for a in extra
    ]
    their_args = [a if isinstance(a, int) else torch.tensor(a) for a in extra]
    ours = minitorch.tensor(x, dtype=minitorch.float64, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    out, expected = getattr(F, name)(ours, *ours_args), getattr(TF, name)(theirs, *their_args)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), atol=1e-12)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-12)
