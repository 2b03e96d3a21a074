"""The activations of nn.functional and their modules (Softplus, Hardtanh, ReLU6, Hardswish,
Hardsigmoid, SELU, CELU, Mish, LogSigmoid, Threshold, Softshrink, Hardshrink, Tanhshrink,
Softsign, Softmin, GLU, PReLU): values and derivatives against NumPy formulas (including
torch's derivative at each kink), gradients against central differences away from the
kinks, and live against torch in float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn

ALPHA, SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
KINKS = np.array([-25.0, -4.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 4.0, 6.0, 25.0])


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softplus_np(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(np.minimum(x * beta, 50))) / beta)


# name -> (call, NumPy value, NumPy derivative)
CASES = {
    "softplus": (lambda F, x: F.softplus(x), softplus_np,
                 lambda x: np.where(x > 20, 1.0, sigmoid(x))),
    "softplus-beta": (lambda F, x: F.softplus(x, beta=2.0, threshold=5.0),
                      lambda x: softplus_np(x, 2.0, 5.0),
                      lambda x: np.where(2 * x > 5, 1.0, sigmoid(2 * x))),
    "hardtanh": (lambda F, x: F.hardtanh(x), lambda x: np.clip(x, -1, 1),
                 lambda x: ((x > -1) & (x < 1)).astype(float)),
    "hardtanh-range": (lambda F, x: F.hardtanh(x, -3.0, 4.0), lambda x: np.clip(x, -3, 4),
                       lambda x: ((x > -3) & (x < 4)).astype(float)),
    "relu6": (lambda F, x: F.relu6(x), lambda x: np.clip(x, 0, 6),
              lambda x: ((x > 0) & (x < 6)).astype(float)),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x), lambda x: np.clip(x + 3, 0, 6) / 6,
                    # torch's derivative is 1/6 rounded to float32 in every dtype
                    lambda x: ((x > -3) & (x < 3)) * float(np.float32(1 / 6))),
    "hardswish": (lambda F, x: F.hardswish(x), lambda x: x * np.clip(x + 3, 0, 6) / 6,
                  lambda x: np.where(x <= -3, 0.0, np.where(x < 3, x / 3 + 0.5, 1.0))),
    "selu": (lambda F, x: F.selu(x), lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(x)),
             lambda x: SCALE * np.where(x > 0, 1.0, ALPHA * np.exp(x))),
    "celu": (lambda F, x: F.celu(x, alpha=2.0), lambda x: np.where(x > 0, x, 2 * np.expm1(x / 2)),
             lambda x: np.where(x > 0, 1.0, np.exp(x / 2))),
    "mish": (lambda F, x: F.mish(x), lambda x: x * np.tanh(softplus_np(x, 1, 100)),
             lambda x: np.tanh(softplus_np(x, 1, 100))
             + x * sigmoid(x) * (1 - np.tanh(softplus_np(x, 1, 100)) ** 2)),
    "logsigmoid": (lambda F, x: F.logsigmoid(x), lambda x: -softplus_np(-x, 1, 100),
                   lambda x: sigmoid(-x)),
    "threshold": (lambda F, x: F.threshold(x, 0.5, -2.0), lambda x: np.where(x > 0.5, x, -2.0),
                  lambda x: (x > 0.5).astype(float)),
    "softshrink": (lambda F, x: F.softshrink(x, 1.0),
                   lambda x: np.where(x > 1, x - 1, np.where(x < -1, x + 1, 0.0)),
                   lambda x: (np.abs(x) > 1).astype(float)),
    "hardshrink": (lambda F, x: F.hardshrink(x), lambda x: np.where(np.abs(x) > 0.5, x, 0.0),
                   lambda x: (np.abs(x) > 0.5).astype(float)),
    "rrelu-eval": (lambda F, x: F.rrelu(x, 0.1, 0.3), lambda x: np.where(x > 0, x, 0.2 * x),
                   lambda x: np.where(x > 0, 1.0, 0.2)),
    "tanhshrink": (lambda F, x: F.tanhshrink(x), lambda x: x - np.tanh(x),
                   lambda x: np.tanh(x) ** 2),
    "softsign": (lambda F, x: F.softsign(x), lambda x: x / (1 + np.abs(x)),
                 lambda x: 1 / (1 + np.abs(x)) ** 2),
}  # fmt: skip


def smooth_points(seed: int = 0) -> np.ndarray:
    """Random points at least 0.05 from every kink (where central differences hold)."""
    x = np.random.default_rng(seed).uniform(-6, 6, size=40)
    return x[np.min(np.abs(x[:, None] - KINKS[None, :]), axis=1) > 0.05]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES)
def test_value_and_derivative_including_kinks(case, dtype):
    call, value, derivative = CASES[case]
    points = np.concatenate([KINKS, smooth_points()])
    x = minitorch.tensor(points, dtype=getattr(minitorch, dtype), requires_grad=True)
    y = call(F, x)
    y.sum().backward()
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y.detach().numpy(), value(points), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(x.grad.numpy(), derivative(points), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("case", CASES)
def test_gradient_matches_central_differences(case):
    call = CASES[case][0]
    points = smooth_points(1)
    x = minitorch.tensor(points, dtype=minitorch.float64, requires_grad=True)
    call(F, x).sum().backward()
    h = 1e-6
    up = call(F, minitorch.tensor(points + h, dtype=minitorch.float64)).numpy()
    down = call(F, minitorch.tensor(points - h, dtype=minitorch.float64)).numpy()
    np.testing.assert_allclose(x.grad.numpy(), (up - down) / (2 * h), rtol=1e-6, atol=1e-8)


def test_softmin_and_glu_and_prelu_against_numpy():
    rng = np.random.default_rng(2)
    values = rng.normal(size=(3, 4, 2))
    x = minitorch.tensor(values)
    expected = np.exp(-values) / np.exp(-values).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(F.softmin(x, dim=1).numpy(), expected, rtol=1e-12)
    a, b = values[:, :2], values[:, 2:]
    np.testing.assert_allclose(F.glu(x, dim=1).numpy(), a * sigmoid(b), rtol=1e-12)
    slopes = np.array([0.1, -0.2, 0.3, 2.0])
    expected = np.where(values > 0, values, slopes[None, :, None] * values)
    np.testing.assert_allclose(F.prelu(x, minitorch.tensor(slopes)).numpy(), expected)
    one = np.where(values > 0, values, 0.25 * values)
    np.testing.assert_allclose(F.prelu(x, minitorch.tensor([0.25])).numpy(), one)


def test_prelu_gradients_against_central_differences():
    rng = np.random.default_rng(3)
    values = rng.normal(size=(2, 3, 4))
    slopes = np.array([0.1, -0.2, 0.3])
    x = minitorch.tensor(values, requires_grad=True)
    w = minitorch.tensor(slopes, requires_grad=True)
    weights = rng.normal(size=values.shape)
    (F.prelu(x, w) * minitorch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), weights * np.where(values > 0, 1, slopes[:, None]))
    expected_w = (weights * np.where(values > 0, 0, values)).sum(axis=(0, 2))
    np.testing.assert_allclose(w.grad.numpy(), expected_w, rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [(lambda: F.glu(minitorch.ones(3)), RuntimeError,
      "Halving dimension must be even, but dimension 0 is size 3"),
     (lambda: F.softshrink(minitorch.ones(3), -1.0), RuntimeError,
      "lambda must be greater or equal to 0, but found to be -1.0."),
     (lambda: F.hardtanh(minitorch.ones(3), 2.0, 1.0), ValueError,
      "min_val cannot be greater than max_val"),
     (lambda: F.prelu(minitorch.ones(2, 3), minitorch.ones(2)), RuntimeError,
      "Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and "
      "channel size = 3.")],
)  # fmt: skip
def test_errors_are_torchs(call, error, message):
    with pytest.raises(error) as raised:
        call()
    assert str(raised.value) == message


@pytest.mark.parametrize("name", ["hardtanh", "relu6", "hardswish", "hardsigmoid", "selu",
                                  "celu", "mish", "threshold"])  # fmt: skip
def test_inplace_writes_the_input(name):
    args = (0.5, -2.0) if name == "threshold" else ()
    x = minitorch.tensor(KINKS.copy())
    expected = getattr(F, name)(minitorch.tensor(KINKS.copy()), *args).numpy()
    assert getattr(F, name)(x, *args, inplace=True) is x
    np.testing.assert_array_equal(x.numpy(), expected)
    if hasattr(F, name + "_"):
        y = minitorch.tensor(KINKS.copy())
        assert getattr(F, name + "_")(y, *args) is y
        np.testing.assert_array_equal(y.numpy(), expected)


MODULES = [
    ("Softplus", (), {"beta": 2.0}), ("Hardtanh", (-2.0, 2.0), {}), ("ReLU6", (), {}),
    ("Hardswish", (), {}), ("Hardsigmoid", (), {}), ("SELU", (), {}), ("CELU", (0.5,), {}),
    ("Mish", (), {}), ("Softsign", (), {}), ("Tanhshrink", (), {}), ("LogSigmoid", (), {}),
    ("Softmin", (1,), {}), ("GLU", (1,), {}), ("Threshold", (0.1, 20.0), {}),
    ("Softshrink", (0.3,), {}), ("Hardshrink", (0.3,), {}), ("PReLU", (4,), {"init": 0.1}),
    ("RReLU", (0.1, 0.3), {}), ("Softmax2d", (), {}),
]  # fmt: skip


def test_rrelu_in_training_draws_a_slope_per_negative_element():
    values = -np.linspace(0.5, 3.0, 200)
    x = minitorch.tensor(np.concatenate([values, [0.0, 1.0, 2.0]]), requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    y.sum().backward()
    slopes = y.detach().numpy()[:200] / values
    assert (slopes >= 0.1).all() and (slopes <= 0.3).all() and slopes.std() > 0.03
    np.testing.assert_allclose(x.grad.numpy()[:200], slopes, rtol=1e-6)
    assert y.detach().numpy()[201:].tolist() == [1.0, 2.0]
    module = nn.RReLU(0.1, 0.3)
    assert not np.array_equal(module(x).detach().numpy(), module.eval()(x).detach().numpy())


def test_softmax2d_is_a_softmax_over_channels():
    values = np.random.default_rng(6).normal(size=(2, 3, 4, 5))
    expected = np.exp(values) / np.exp(values).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(nn.Softmax2d()(minitorch.tensor(values)).numpy(), expected)
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D"):
        nn.Softmax2d()(minitorch.ones(2, 3))


def test_modules_call_their_functions():
    rng = np.random.default_rng(4)
    x = minitorch.tensor(rng.normal(size=(2, 4, 3)) * 3)
    assert np.array_equal(nn.ReLU6()(x).numpy(), F.relu6(x).numpy())
    assert np.array_equal(nn.Softshrink(0.3)(x).numpy(), F.softshrink(x, 0.3).numpy())
    assert np.array_equal(nn.GLU(1)(x).numpy(), F.glu(x, 1).numpy())
    prelu = nn.PReLU(4, init=0.1)
    assert prelu.weight.tolist() == pytest.approx([0.1] * 4)
    assert list(prelu.state_dict()) == ["weight"]


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES)
def test_functions_against_torch(torch, case, dtype):
    call = CASES[case][0]
    points = np.concatenate([KINKS, smooth_points()])
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor(points, dtype=getattr(lib, dtype), requires_grad=True)
        y = call(lib.nn.functional, x)
        y.sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy(), y.grad_fn.name()))
    (y, g, node), (ty, tg, tnode) = results
    rtol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(y, ty, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(g, tg, rtol=rtol, atol=rtol)
    if node.endswith("Backward0") and case not in ("tanhshrink", "softsign"):
        assert node == tnode


@pytest.mark.torch
@pytest.mark.parametrize(("name", "args", "kwargs"), MODULES)
def test_modules_against_torch_with_copied_weights(torch, name, args, kwargs):
    rng = np.random.default_rng(5)
    values = rng.normal(size=(2, 4, 3)) * 3
    weights = rng.normal(size=values.shape[:1] + (2 if name == "GLU" else 4,) + values.shape[2:])
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    ours.double().eval(), theirs.double().eval()  # RReLU's eval mode: its fixed slope
    if name == "PReLU":
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor([0.1, -0.3, 0.5, 2.0]))
        with minitorch.no_grad():
            ours.weight.copy_(minitorch.tensor([0.1, -0.3, 0.5, 2.0]))
    grads = []
    for lib, module in ((minitorch, ours), (torch, theirs)):
        x = lib.tensor(values, requires_grad=True)
        y = module(x)
        (y * lib.tensor(weights)).sum().backward()
        grads.append([y.detach().numpy(), x.grad.numpy()])
        grads[-1] += [p.grad.numpy() for p in module.parameters()]
    for a, b in zip(*grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
