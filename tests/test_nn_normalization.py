"""LayerNorm, BatchNorm1d/2d and `F.layer_norm`, `F.batch_norm`, `F.normalize` against torch:
outputs, `grad_fn` names, gradients of the input and of the parameters, running statistics
over several training steps, evaluation mode, reprs and error texts.

Skipped when torch is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_close, pair

import minitorch
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)
DTYPES = ["float32", "float64"]
TOLERANCE = {"float32": {"rtol": 1e-4, "atol": 2e-5}, "float64": {"rtol": 1e-9, "atol": 1e-11}}


def run_both(ours_layer, theirs_layer, x: np.ndarray, dtype: str) -> None:
    """One forward and backward through both layers; compare output, node and all grads."""
    ours_x, theirs_x = pair(x, requires_grad=True)
    ours, theirs = ours_layer(ours_x), theirs_layer(theirs_x)
    assert_close(ours, theirs, "output", **TOLERANCE[dtype])
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    weights = RNG.standard_normal(x.shape).astype(dtype)
    (ours * pair(weights)[0]).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    assert_close(ours_x.grad, theirs_x.grad, "input gradient", **TOLERANCE[dtype])
    for name in ("weight", "bias"):
        mine, its = getattr(ours_layer, name), getattr(theirs_layer, name)
        ours_grad, their_grad = (None if p is None else p.grad for p in (mine, its))
        assert_close(ours_grad, their_grad, f"{name} gradient", **TOLERANCE[dtype], allow_none=True)
        if its is not None:
            mine.grad, its.grad = None, None


def torch_dtype(dtype: str):
    return getattr(torch, dtype)


# ---------------------------------------------------------------------------
# LayerNorm
# ---------------------------------------------------------------------------

LAYER_SETTINGS = [{}, {"elementwise_affine": False}, {"bias": False}, {"eps": 1e-2}]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("settings", LAYER_SETTINGS, ids=str)
@pytest.mark.parametrize(("shape", "normalized"), [((3, 5), 5), ((2, 2, 3), (2, 3)), ((4,), 4)])
def test_layer_norm_matches_torch(shape, normalized, settings, dtype):
    ours = minitorch.nn.LayerNorm(normalized, dtype=getattr(minitorch, dtype), **settings)
    theirs = torch.nn.LayerNorm(normalized, dtype=torch_dtype(dtype), **settings)
    assert repr(ours) == repr(theirs)
    if theirs.weight is not None:  # learned values, not the initial ones and zeros
        w = RNG.standard_normal(theirs.weight.shape).astype(dtype)
        with minitorch.no_grad():
            ours.weight.copy_(pair(w)[0])
        theirs.weight.data = torch.tensor(w)
    run_both(ours, theirs, RNG.standard_normal(shape).astype(dtype), dtype)


@pytest.mark.parametrize("name", ["layer_norm", "batch_norm"])
def test_float32_statistics_are_accurate_for_large_offsets(name):
    """Inputs near 1000 with spread 1 in float32: the statistics are accumulated in float64,
    so the result is that of float64 arithmetic on the same values (torch's float32 kernels
    lose about three digits here, so the reference is torch in float64)."""
    x = (RNG.standard_normal((4, 6)) + 1000).astype("float32")
    ours_x = pair(x, requires_grad=True)[0]
    theirs_x = torch.tensor(x.astype("float64"), requires_grad=True)
    if name == "layer_norm":
        ours, theirs = F.layer_norm(ours_x, (6,)), TF.layer_norm(theirs_x, (6,))
    else:
        ours = F.batch_norm(ours_x, None, None, training=True)
        theirs = TF.batch_norm(theirs_x, None, None, training=True)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-6)
    weights = RNG.standard_normal(x.shape)
    (ours * pair(weights.astype("float32"))[0]).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), atol=1e-5)


def test_layer_norm_grad_check():
    x = minitorch.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    w = minitorch.tensor(RNG.standard_normal(3), requires_grad=True)
    b = minitorch.tensor(RNG.standard_normal(3), requires_grad=True)
    assert minitorch.grad_check(lambda x, w, b: F.layer_norm(x, (3,), w, b), x, w, b)


# ---------------------------------------------------------------------------
# BatchNorm
# ---------------------------------------------------------------------------

BATCH_SETTINGS = [
    {},
    {"momentum": None},
    {"affine": False},
    {"track_running_stats": False},
    {"momentum": 0.3, "eps": 1e-3, "bias": False},
]
BATCH_SHAPES = [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (3, 3, 2)), ("BatchNorm2d", (2, 3, 2, 2))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("settings", BATCH_SETTINGS, ids=str)
@pytest.mark.parametrize(("name", "shape"), BATCH_SHAPES)
def test_batch_norm_training_and_evaluation_match_torch(name, shape, settings, dtype):
    ours = getattr(minitorch.nn, name)(3, dtype=getattr(minitorch, dtype), **settings)
    theirs = getattr(torch.nn, name)(3, dtype=torch_dtype(dtype), **settings)
    assert repr(ours) == repr(theirs)
    for step in range(3):  # batches of different means and spreads
        x = (RNG.standard_normal(shape) * (step + 1) + step).astype(dtype)
        run_both(ours, theirs, x, dtype)
        for buffer in ("running_mean", "running_var", "num_batches_tracked"):
            assert_close(
                getattr(ours, buffer),
                getattr(theirs, buffer),
                buffer,
                **TOLERANCE[dtype],
                allow_none=True,
            )
    ours.eval()
    theirs.eval()
    run_both(ours, theirs, RNG.standard_normal(shape).astype(dtype), dtype)
    assert_close(
        ours.running_mean,
        theirs.running_mean,
        "running_mean after eval",
        **TOLERANCE[dtype],
        allow_none=True,
    )


def test_batch_norm_buffers_and_parameters():
    layer = minitorch.nn.BatchNorm1d(3)
    assert [n for n, _ in layer.named_buffers()] == [
        "running_mean",
        "running_var",
        "num_batches_tracked",
    ]
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert layer.num_batches_tracked.dtype is minitorch.int64
    untracked = minitorch.nn.BatchNorm2d(3, track_running_stats=False)
    assert untracked.running_mean is None and list(untracked.buffers()) == []


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.BatchNorm2d(3),
        lambda nn: nn.LayerNorm(3),
        lambda nn: nn.BatchNorm1d(2, affine=False),
    ],
)
def test_state_dict_keys_match_torch(make):
    ours, theirs = make(minitorch.nn), make(torch.nn)
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_batch_norm_eval_of_one_sample_uses_running_statistics():
    ours, theirs = minitorch.nn.BatchNorm1d(2), torch.nn.BatchNorm1d(2)
    x = RNG.standard_normal((5, 2)).astype("float32") * 3 + 1
    run_both(ours, theirs, x, "float32")
    ours.eval()
    theirs.eval()
    run_both(ours, theirs, x[:1], "float32")


def test_batch_norm_reset_running_stats():
    layer = minitorch.nn.BatchNorm1d(2)
    layer(minitorch.tensor(RNG.standard_normal((4, 2)) + 5, dtype=minitorch.float32))
    layer.reset_running_stats()
    assert layer.running_mean.tolist() == [0.0, 0.0]
    assert layer.running_var.tolist() == [1.0, 1.0]
    assert layer.num_batches_tracked.item() == 0


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_grad_check(training):
    x = minitorch.tensor(RNG.standard_normal((4, 2)), requires_grad=True)
    w = minitorch.tensor(RNG.standard_normal(2), requires_grad=True)
    b = minitorch.tensor(RNG.standard_normal(2), requires_grad=True)
    mean, var = minitorch.tensor([0.5, -1.0]), minitorch.tensor([2.0, 0.5])
    mean, var = mean.double(), var.double()

    def fn(x, w, b):
        return F.batch_norm(x, mean.clone(), var.clone(), w, b, training=training)

    assert minitorch.grad_check(fn, x, w, b)


# ---------------------------------------------------------------------------
# normalize
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("p", "dim"), [(2.0, 1), (1.0, 0), (3.0, -1)])
def test_normalize_matches_torch(p, dim):
    values = RNG.standard_normal((3, 4)).astype("float32")
    values[1] = 0.0  # a zero vector: divided by eps, gradient 0 as in torch
    ours_x, theirs_x = pair(values, requires_grad=True)
    ours, theirs = F.normalize(ours_x, p=p, dim=dim), TF.normalize(theirs_x, p=p, dim=dim)
    assert_close(ours, theirs, "output", **TOLERANCE["float32"])
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    weights = RNG.standard_normal((3, 4)).astype("float32")
    (ours * pair(weights)[0]).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    assert_close(ours_x.grad, theirs_x.grad, "input gradient", **TOLERANCE["float32"])


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

X = RNG.standard_normal((3, 5)).astype("float32")


def ones(m, *shape, dtype="float32"):
    return m(np.ones(shape, dtype))


ERRORS = {
    "layer_norm shape": lambda f, nn, m: f.layer_norm(m(X), (4,)),
    "layer_norm int shape": lambda f, nn, m: f.layer_norm(m(X), 5),
    "layer_norm empty shape": lambda f, nn, m: f.layer_norm(m(X), ()),
    "layer_norm too many dims": lambda f, nn, m: f.layer_norm(m(X), (2, 3, 5)),
    "layer_norm weight shape": lambda f, nn, m: f.layer_norm(m(X), (5,), ones(m, 4)),
    "layer_norm weight dtype": lambda f, nn, m: f.layer_norm(m(X), (5,), ones(m, 5, dtype="f8")),
    "layer_norm double input": lambda f, nn, m: f.layer_norm(m(X.astype("f8")), (5,), ones(m, 5)),
    "layer_norm of ints": lambda f, nn, m: f.layer_norm(m(np.ones((2, 5), "int64")), (5,)),
    "batch_norm eval": lambda f, nn, m: f.batch_norm(m(X), None, None),
    "batch_norm running size": lambda f, nn, m: f.batch_norm(m(X), ones(m, 4), ones(m, 5)),
    "batch_norm weight size": lambda f, nn, m: f.batch_norm(
        m(X), ones(m, 5), ones(m, 5), ones(m, 4)
    ),
    "batch_norm one value": lambda f, nn, m: f.batch_norm(m(X[:1]), None, None, training=True),
    "BatchNorm1d 4-D": lambda f, nn, m: nn.BatchNorm1d(5)(m(np.ones((2, 5, 3, 1), "f4"))),
    "BatchNorm1d 1-D": lambda f, nn, m: nn.BatchNorm1d(5)(m(np.ones(5, "f4"))),
    "BatchNorm2d 3-D": lambda f, nn, m: nn.BatchNorm2d(5)(m(np.ones((2, 5, 3), "f4"))),
    "BatchNorm1d channels": lambda f, nn, m: nn.BatchNorm1d(5)(m(np.ones((2, 4), "f4"))),
    "BatchNorm1d one sample": lambda f, nn, m: nn.BatchNorm1d(5)(m(X[:1])),
    "LayerNorm shape": lambda f, nn, m: nn.LayerNorm(5)(m(np.ones((2, 4), "f4"))),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    with pytest.raises(Exception) as expected:
        ERRORS[case](TF, torch.nn, lambda a: pair(a)[1])
    with pytest.raises(type(expected.value)) as raised:
        ERRORS[case](F, minitorch.nn, lambda a: pair(a)[0])
    assert str(raised.value).replace("minitorch.", "torch.") == str(expected.value)
