"""`minitorch.nn.utils`: gradient clipping and flat parameter vectors, against a NumPy
reference (the norm of all gradient elements together) and live against torch."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.nn import utils

RNG = np.random.default_rng(21)
SHAPES = [(3, 4), (5,), (2, 1, 3)]
NORMS = [2.0, 1.0, 3.0, 0.5, math.inf, -math.inf, 0.0]


def gradients(scale: float = 1.0) -> list[np.ndarray]:
    return [RNG.normal(size=shape) * scale for shape in SHAPES]


def params_with(grads: list[np.ndarray], lib=minitorch) -> list:
    params = []
    for g in grads:
        p = lib.zeros(*g.shape, dtype=lib.float64, requires_grad=True)
        p.grad = lib.tensor(g)
        params.append(p)
    return params


def vector_norm(values: np.ndarray, p: float) -> float:
    flat = np.abs(values.ravel())
    if p == math.inf:
        return flat.max()
    if p == -math.inf:
        return flat.min()
    if p == 0:
        return float(np.count_nonzero(flat))
    return (flat**p).sum() ** (1 / p)


def numpy_norm(grads: list[np.ndarray], p: float) -> float:
    """The norm of the gradients' norms (for order 0: how many gradients are nonzero)."""
    return vector_norm(np.array([vector_norm(g, p) for g in grads]), p)


@pytest.mark.parametrize("norm_type", NORMS)
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm_scales_to_max_norm(norm_type, max_norm):
    grads = gradients()
    params = params_with(grads)
    total = utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
    expected_total = numpy_norm(grads, norm_type)
    np.testing.assert_allclose(total.item(), expected_total, rtol=1e-12)
    coef = min(1.0, max_norm / (expected_total + 1e-6))
    for p, g in zip(params, grads, strict=True):
        np.testing.assert_allclose(p.grad.numpy(), g * coef, rtol=1e-12)


def test_clip_grad_norm_accepts_one_tensor_strings_and_skips_missing_grads():
    grads = gradients()
    params = params_with(grads)
    params.append(minitorch.zeros(2, requires_grad=True))  # no gradient: left alone
    total = utils.clip_grad_norm_(params, 1.0, norm_type="inf")
    assert total.item() == pytest.approx(numpy_norm(grads, math.inf))
    assert params[-1].grad is None
    single = params_with([grads[0]])[0]
    assert utils.clip_grad_norm_(single, 1.0).item() == pytest.approx(numpy_norm(grads[:1], 2))


def test_clip_grad_norm_of_nothing_is_zero_and_warns_for_an_empty_generator():
    assert utils.clip_grad_norm_([], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="empty generator"):
        assert utils.clip_grad_norm_((p for p in []), 1.0).item() == 0.0


def test_clip_grad_norm_nonfinite():
    grads = gradients()
    grads[1][0] = np.nan
    with pytest.raises(RuntimeError, match="total norm of order 2.0 .* non-finite"):
        utils.clip_grad_norm_(params_with(grads), 1.0, error_if_nonfinite=True)
    assert math.isnan(utils.clip_grad_norm_(params_with(grads), 1.0).item())


def test_clip_grad_norm_deprecated_name_warns():
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        total = utils.clip_grad_norm(params_with(gradients()), 1.0)
    assert total.item() > 0


@pytest.mark.parametrize("foreach", [None, False, True])
def test_foreach_is_accepted(foreach):
    grads = gradients()
    params = params_with(grads)
    utils.clip_grad_norm_(params, 0.1, foreach=foreach)
    assert numpy_norm([p.grad.numpy() for p in params], 2) == pytest.approx(0.1, rel=1e-5)
    utils.clip_grad_value_(params, 0.01, foreach=foreach)
    assert max(abs(p.grad.numpy()).max() for p in params) <= 0.01


def test_get_total_norm():
    grads = gradients()
    tensors = [minitorch.tensor(g) for g in grads]
    assert utils.get_total_norm(tensors, 3).item() == pytest.approx(numpy_norm(grads, 3))
    assert utils.get_total_norm(tensors[0]).item() == pytest.approx(numpy_norm(grads[:1], 2))
    assert utils.get_total_norm([]).item() == 0.0


def test_clip_grad_value():
    grads = gradients(scale=3.0)
    params = params_with(grads)
    assert utils.clip_grad_value_(params, 1.5) is None
    for p, g in zip(params, grads, strict=True):
        np.testing.assert_array_equal(p.grad.numpy(), np.clip(g, -1.5, 1.5))


def test_parameters_to_vector_and_back():
    values = gradients()
    params = [minitorch.tensor(v, requires_grad=True) for v in values]
    vec = utils.parameters_to_vector(params)
    np.testing.assert_array_equal(vec.detach().numpy(), np.concatenate([v.ravel() for v in values]))
    (vec * minitorch.arange(vec.numel(), dtype=minitorch.float64)).sum().backward()
    start = 0
    for p in params:  # d(sum_i i v_i)/dv = i: each parameter sees its own positions
        count = p.numel()
        expected = np.arange(start, start + count, dtype=float).reshape(p.shape)
        np.testing.assert_array_equal(p.grad.numpy(), expected)
        start += count
    utils.vector_to_parameters(minitorch.arange(vec.numel(), dtype=minitorch.float64), params)
    np.testing.assert_array_equal(params[1].detach().numpy(), np.arange(12, 17))
    assert params[2].shape == (2, 1, 3) and params[2].requires_grad
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        utils.vector_to_parameters([1.0, 2.0], params)


@pytest.mark.torch
@pytest.mark.parametrize("norm_type", NORMS)
def test_clip_grad_norm_against_torch(torch, norm_type):
    grads = gradients()
    ours, theirs = params_with(grads), params_with(grads, torch)
    total = utils.clip_grad_norm_(ours, 0.7, norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, 0.7, norm_type)
    np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-12)
    for p, q in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(
            utils.get_total_norm([p.grad for p in ours], norm_type).item(),
            torch.nn.utils.get_total_norm([q.grad for q in theirs], norm_type).item(),
            rtol=1e-12,
        )


@pytest.mark.torch
def test_clip_grad_value_and_vectors_against_torch(torch):
    grads = gradients(scale=2.0)
    ours, theirs = params_with(grads), params_with(grads, torch)
    utils.clip_grad_value_(ours, 0.8)
    torch.nn.utils.clip_grad_value_(theirs, 0.8)
    for p, q in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    np.testing.assert_array_equal(
        utils.parameters_to_vector(ours).detach().numpy(),
        torch.nn.utils.parameters_to_vector(theirs).detach().numpy(),
    )
