"""nn.utils.fuse_conv_bn_eval / fuse_linear_bn_eval (and their _weights forms): the fused
layer computes the eval-mode batch norm of the layer's output (checked in float64), its
weights are torch's, and the errors are torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn import utils

RNG = np.random.default_rng(8)


def with_statistics(bn, channels):
    with minitorch.no_grad():
        bn.running_mean.copy_(minitorch.tensor(RNG.normal(size=channels)))
        bn.running_var.copy_(minitorch.tensor(RNG.uniform(0.5, 2.0, size=channels)))
        bn.weight.copy_(minitorch.tensor(RNG.normal(size=channels)))
        bn.bias.copy_(minitorch.tensor(RNG.normal(size=channels)))
    return bn.eval()


@pytest.mark.parametrize("bias", [True, False])
def test_fused_conv_computes_conv_then_batch_norm(bias):
    conv = nn.Conv2d(3, 4, 3, padding=1, bias=bias, dtype=minitorch.float64).eval()
    bn = with_statistics(nn.BatchNorm2d(4, dtype=minitorch.float64), 4)
    x = minitorch.tensor(RNG.normal(size=(2, 3, 5, 5)))
    fused = utils.fuse_conv_bn_eval(conv, bn)
    assert fused is not conv and isinstance(fused.weight, nn.Parameter) and fused.bias is not None
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(conv(x)).detach().numpy(), atol=1e-12)
    assert (conv.bias is None) == (not bias)  # the original is left as it was


def test_fused_linear_computes_linear_then_batch_norm():
    linear = nn.Linear(3, 4, dtype=minitorch.float64).eval()
    bn = with_statistics(nn.BatchNorm1d(4, dtype=minitorch.float64), 4)
    x = minitorch.tensor(RNG.normal(size=(6, 3)))
    fused = utils.fuse_linear_bn_eval(linear, bn)
    np.testing.assert_allclose(
        fused(x).detach().numpy(), bn(linear(x)).detach().numpy(), atol=1e-12
    )


def test_fusion_errors():
    conv, bn = nn.Conv1d(2, 3, 1), nn.BatchNorm1d(3)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        utils.fuse_conv_bn_eval(conv, bn)
    with pytest.raises(AssertionError, match="linear.out_features=4 and bn.num_features=3"):
        utils.fuse_linear_bn_eval(nn.Linear(2, 4).eval(), bn.eval())


def fused(lib, name: str, arrays: list, *options):
    """`lib.nn.utils.<name>` of the arrays (as tensors), eps 1e-5 after the first four."""
    tensors = [lib.tensor(a) for a in arrays]
    result = getattr(lib.nn.utils, name)(*tensors[:4], 1e-5, *tensors[4:], *options)
    return [p.detach().numpy() for p in result]


@pytest.mark.torch
@pytest.mark.parametrize("transpose", [False, True])
def test_fused_weights_are_torchs(torch, transpose):
    conv_w = RNG.normal(size=(4, 3, 3, 3) if not transpose else (3, 4, 3, 3))
    stats = [RNG.normal(size=4), RNG.normal(size=4), RNG.uniform(0.1, 2, size=4)]
    affine = [RNG.normal(size=4), RNG.normal(size=4)]
    conv = [conv_w, *stats, *affine]
    ours = fused(minitorch, "fuse_conv_bn_weights", conv, transpose)
    theirs = fused(torch, "fuse_conv_bn_weights", conv, transpose)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-14)
    linear = [RNG.normal(size=(4, 3)), *stats, *affine]
    ours = fused(minitorch, "fuse_linear_bn_weights", linear)
    theirs = fused(torch, "fuse_linear_bn_weights", linear)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-14)
