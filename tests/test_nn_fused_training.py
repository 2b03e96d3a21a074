"""The fused kernels of a training step on the default backend (optional kernels), each
against the tensor operations it replaces (the composition, with the kernel taken away),
values derived by hand or from a NumPy formula (so the tests run without torch), central
differences where it has a gradient and, where it is installed, torch live:

- ReLU's gradient in one pass (`relu_backward`);
- the one-pass softmax cross-entropy (`ops/losses.py`'s `SoftmaxCrossEntropy`, the kernels
  `cross_entropy` and `cross_entropy_backward`): values, gradients, node names and errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.backends import backend_for

KERNELS = ("cross_entropy", "cross_entropy_backward")
REDUCTIONS = ("mean", "sum", "none")
RELU = ("relu_backward",)
SMOOTHINGS = (0.0, 0.25)
TOLERANCE = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-11, atol=1e-13)}


def counted_kernels(monkeypatch, names) -> dict:
    """How often each of the default backend's kernels `names` ran, counted from now."""
    backend = backend_for(minitorch.device("cpu"))
    counts = dict.fromkeys(names, 0)
    for name in names:
        kernel = backend.kernel(name)
        assert kernel is not None, f"the default backend has no {name} kernel"

        def counted(*args, _name=name, _kernel=kernel):
            counts[_name] += 1
            return _kernel(*args)

        monkeypatch.setitem(backend._optional, name, counted)
    return counts


def without_kernels(monkeypatch, names):
    """A function that runs its argument with the kernels `names` taken away."""
    backend = backend_for(minitorch.device("cpu"))

    def run(fn):
        with monkeypatch.context() as patch:
            for name in names:
                patch.setitem(backend._optional, name, None)
            return fn()

    return run


@pytest.fixture
def calls(monkeypatch):
    """How often each cross-entropy kernel ran."""
    return counted_kernels(monkeypatch, KERNELS)


@pytest.fixture
def composed(monkeypatch):
    """Runs its argument with the cross-entropy kernels taken away (the composition)."""
    return without_kernels(monkeypatch, KERNELS)


# ---------------------------------------------------------------------------
# ReLU's gradient in one pass
# ---------------------------------------------------------------------------

RELU_INPUT = [[-1.5, 0.0, 2.0], [np.nan, 3.0, -0.0]]
RELU_GRAD = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
RELU_EXPECTED = [[0.0, 0.0, 3.0], [4.0, 5.0, 0.0]]  # a NaN input passes the gradient on


def relu_gradient(values, upstream, dtype, transpose=False):
    a = minitorch.tensor(values, dtype=dtype, requires_grad=True)
    g = minitorch.tensor(upstream, dtype=dtype)
    x, g = (a.t(), g.t()) if transpose else (a, g)
    x.relu().backward(g)
    return a.grad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transpose", [False, True])
def test_relu_backward_in_one_pass_by_hand_and_as_the_composition(monkeypatch, dtype, transpose):
    counts = counted_kernels(monkeypatch, RELU)
    dtype = getattr(minitorch, dtype)
    grad = relu_gradient(RELU_INPUT, RELU_GRAD, dtype, transpose)
    assert counts["relu_backward"] == 1 and grad.dtype is dtype
    np.testing.assert_array_equal(grad.numpy(), RELU_EXPECTED)
    plain = without_kernels(monkeypatch, RELU)(
        lambda: relu_gradient(RELU_INPUT, RELU_GRAD, dtype, transpose)
    )
    assert counts["relu_backward"] == 1
    np.testing.assert_array_equal(plain.numpy(), grad.numpy())


def test_relu_backward_matches_torch(torch, monkeypatch):
    counts = counted_kernels(monkeypatch, RELU)
    a = torch.tensor(RELU_INPUT, requires_grad=True)
    a.relu().backward(torch.tensor(RELU_GRAD))
    np.testing.assert_array_equal(relu_gradient(RELU_INPUT, RELU_GRAD, minitorch.float32), a.grad)
    assert counts["relu_backward"] == 1


def test_relu_backward_with_create_graph_is_the_recorded_composition(monkeypatch):
    """The second derivative needs the gradient's own graph: the kernel does not run."""
    counts = counted_kernels(monkeypatch, RELU)
    a = minitorch.tensor([-1.0, 2.0], requires_grad=True)
    g = minitorch.tensor([3.0, 4.0], requires_grad=True)
    (grad,) = minitorch.autograd.grad(a.relu(), a, g, create_graph=True)
    grad.sum().backward()
    assert counts["relu_backward"] == 0
    np.testing.assert_array_equal(g.grad.numpy(), [0.0, 1.0])


# ---------------------------------------------------------------------------
# Softmax cross-entropy of class indices
# ---------------------------------------------------------------------------


def numpy_cross_entropy(x, t, weight, ignore_index, reduction, smoothing):
    """The loss and its gradient, from the formulas (float64): $p = \\mathrm{softmax}(x)$,
    $\\ell_i = (1 - \\varepsilon) w_{t_i} (L_i - x_{i t_i}) + \\frac{\\varepsilon}{C}
    \\sum_c w_c (L_i - x_{ic})$, its gradient $(1 - \\varepsilon) w_t (p - e_t) +
    \\frac{\\varepsilon}{C} (W p - w)$; ignored rows 0; the mean over $\\sum_i w_{t_i}$."""
    x = x.astype(np.float64)
    rows, classes = x.shape
    w = np.ones(classes) if weight is None else weight.astype(np.float64)
    top = x.max(1, keepdims=True) if rows else np.zeros((0, 1))
    lse = top + np.log(np.exp(x - top).sum(1, keepdims=True))
    kept = t != ignore_index
    safe = np.where(kept, t, 0)
    w_t = np.where(kept, w[safe], 0.0)
    picked = x[np.arange(rows), safe][:, None]
    loss = (1 - smoothing) * w_t * (lse - picked)[:, 0]
    loss += np.where(kept, smoothing / classes * ((lse - x) * w).sum(1), 0.0)
    p = np.exp(x - lse)
    one_hot = np.eye(classes)[safe]
    grad = (1 - smoothing) * w_t[:, None] * (p - one_hot)
    grad += np.where(kept[:, None], smoothing / classes * (w.sum() * p - w), 0.0)
    if reduction == "none":
        return loss, grad  # the gradient of loss.sum()
    if reduction == "sum":
        return loss.sum(), grad
    total = w_t.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        return loss.sum() / total, grad / total


def case_arrays(rows, classes, dtype, seed=0, ignore_index=-100):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, classes)) * 3).astype(dtype)
    t = rng.integers(0, classes, rows)
    if rows > 2:
        t[1] = ignore_index
    weight = (rng.random(classes) + 0.5).astype(dtype)
    return x, t, weight


def run_loss(x, t, weight, reduction, smoothing, ignore_index=-100):
    """The loss of `x` (a NumPy array) and the gradient of its sum, by minitorch."""
    logits = minitorch.tensor(x, requires_grad=True)
    w = None if weight is None else minitorch.tensor(weight)
    out = F.cross_entropy(
        logits,
        minitorch.tensor(t),
        w,
        ignore_index=ignore_index,
        reduction=reduction,
        label_smoothing=smoothing,
    )
    out.sum().backward()
    return out, logits.grad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", SMOOTHINGS)
def test_fused_cross_entropy_equals_the_formula_and_the_composition(
    calls, composed, dtype, reduction, weighted, smoothing
):
    x, t, weight = case_arrays(9, 6, dtype)
    weight = weight if weighted else None
    out, grad = run_loss(x, t, weight, reduction, smoothing)
    assert calls == {"cross_entropy": 1, "cross_entropy_backward": 1}
    assert out.dtype is getattr(minitorch, dtype) and grad.dtype is out.dtype
    assert out.grad_fn.name() == ("AddBackward0" if smoothing else "NllLossBackward0")
    expected_out, expected_grad = numpy_cross_entropy(x, t, weight, -100, reduction, smoothing)
    np.testing.assert_allclose(out.detach().numpy(), expected_out, **TOLERANCE[dtype])
    np.testing.assert_allclose(grad.numpy(), expected_grad, **TOLERANCE[dtype])
    plain_out, plain_grad = composed(lambda: run_loss(x, t, weight, reduction, smoothing))
    assert calls == {"cross_entropy": 1, "cross_entropy_backward": 1}  # the composition ran
    assert plain_out.grad_fn.name() == out.grad_fn.name()
    np.testing.assert_allclose(out.detach().numpy(), plain_out.detach().numpy(), **TOLERANCE[dtype])
    np.testing.assert_allclose(grad.numpy(), plain_grad.numpy(), **TOLERANCE[dtype])


def test_fused_cross_entropy_by_hand(calls):
    """$[\\ln(1 + e^{-2}) + \\ln 2] / 2 = 0.41004$; the gradient is (softmax - one-hot) / 2."""
    x = minitorch.tensor([[2.0, 0.0], [0.0, 0.0]], requires_grad=True)
    loss = F.cross_entropy(x, minitorch.tensor([0, 1]))
    loss.backward()
    assert calls["cross_entropy"] == 1
    assert loss.item() == pytest.approx(0.41004, abs=1e-5)
    p = 1 / (1 + np.exp(-2.0))
    expected = np.array([[p - 1, 1 - p], [0.5, -0.5]]) / 2
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", SMOOTHINGS)
def test_fused_cross_entropy_matches_central_differences(calls, reduction, smoothing):
    x, t, weight = case_arrays(5, 4, "float64", seed=1)
    target, w = minitorch.tensor(t), minitorch.tensor(weight)

    def loss(logits):
        return F.cross_entropy(logits, target, w, reduction=reduction, label_smoothing=smoothing)

    assert minitorch.grad_check(loss, minitorch.tensor(x, requires_grad=True))
    assert calls["cross_entropy_backward"] >= 1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", SMOOTHINGS)
def test_fused_cross_entropy_matches_torch(torch, calls, dtype, reduction, smoothing):
    x, t, weight = case_arrays(12, 7, dtype, seed=2, ignore_index=3)
    out, grad = run_loss(x, t, weight, reduction, smoothing, ignore_index=3)
    theirs = torch.tensor(x, requires_grad=True)
    expected = torch.nn.functional.cross_entropy(
        theirs,
        torch.tensor(t),
        torch.tensor(weight),
        ignore_index=3,
        reduction=reduction,
        label_smoothing=smoothing,
    )
    expected.sum().backward()
    assert calls["cross_entropy"] == 1
    assert out.grad_fn.name() == expected.grad_fn.name()
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), **TOLERANCE[dtype])
    np.testing.assert_allclose(grad.numpy(), theirs.grad.numpy(), **TOLERANCE[dtype])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_fused_cross_entropy_of_no_rows_and_of_one_class(calls, composed, reduction):
    """No rows: the mean is 0 / 0 (NaN), the sum 0; one class: every loss and gradient 0."""
    for shape in ((0, 4), (5, 1)):
        x = np.zeros(shape, np.float32) + np.arange(shape[0], dtype=np.float32)[:, None]
        t = np.zeros(shape[0], np.int64)
        out, grad = run_loss(x, t, None, reduction, 0.0)
        plain_out, plain_grad = composed(lambda x=x, t=t: run_loss(x, t, None, reduction, 0.0))
        expected = {"mean": np.nan if shape[0] == 0 else 0.0, "sum": 0.0, "none": [0.0] * shape[0]}
        np.testing.assert_array_equal(out.detach().numpy(), expected[reduction])
        np.testing.assert_array_equal(plain_out.detach().numpy(), expected[reduction])
        np.testing.assert_array_equal(grad.numpy(), np.zeros(shape, np.float32))
        np.testing.assert_array_equal(plain_grad.numpy(), grad.numpy())
    assert calls["cross_entropy"] == 2


def test_fused_cross_entropy_where_every_target_is_ignored(calls, composed):
    """The mean is 0 / 0; the gradient is 0, as the composition's (and torch's)."""
    x = np.array([[1.0, 2.0], [3.0, 0.5]], np.float32)
    for run in (lambda f: f(), composed):
        out, grad = run(lambda: run_loss(x, np.array([-100, -100]), None, "mean", 0.0))
        assert np.isnan(out.item())
        np.testing.assert_array_equal(grad.numpy(), np.zeros((2, 2), np.float32))
    assert calls["cross_entropy"] == 1


def test_fused_cross_entropy_reads_strided_logits(calls):
    """A transposed (C, N) view as the (N, C) logits: the forward copies it once."""
    base = np.random.default_rng(3).standard_normal((4, 6)).astype(np.float64)
    x = minitorch.tensor(base, requires_grad=True)
    t = np.array([0, 3, 1, 2, 2, 0])
    F.cross_entropy(x.t(), minitorch.tensor(t), reduction="sum").backward()
    _, expected = numpy_cross_entropy(base.T, t, None, -100, "sum", 0.0)
    np.testing.assert_allclose(x.grad.numpy(), expected.T, rtol=1e-12)
    assert calls["cross_entropy"] == 1


BAD_TARGETS = [np.array([0, 4, 1]), np.array([0, -1, 7]), np.array([-100, 2, -5])]


@pytest.mark.parametrize("targets", BAD_TARGETS, ids=str)
def test_fused_cross_entropy_raises_the_compositions_error_for_targets_out_of_range(
    calls, composed, targets
):
    x = minitorch.tensor(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError) as fused_error:
        F.cross_entropy(x, minitorch.tensor(targets))
    assert calls["cross_entropy"] == 1
    with pytest.raises(IndexError) as plain_error:
        composed(lambda: F.cross_entropy(x, minitorch.tensor(targets)))
    assert str(fused_error.value) == str(plain_error.value)
    first = next(int(v) for v in targets if v != -100 and not 0 <= v < 4)
    assert str(fused_error.value) == f"Target {first} is out of bounds."


@pytest.mark.parametrize("targets", BAD_TARGETS, ids=str)
def test_out_of_range_targets_raise_as_in_torch(torch, targets):
    first = next(int(v) for v in targets if v != -100 and not 0 <= v < 4)
    with pytest.raises(IndexError, match=f"Target {first} is out of bounds."):
        torch.nn.functional.cross_entropy(torch.zeros(3, 4), torch.tensor(targets))


def test_fused_cross_entropy_leaves_other_cases_to_the_composition(calls):
    """1-D and 4-D logits, float16, a weight that needs a gradient: the composition runs."""
    F.cross_entropy(minitorch.zeros(3, requires_grad=True), minitorch.tensor(1)).backward()
    F.cross_entropy(minitorch.zeros(2, 3, 2, 2), minitorch.zeros(2, 2, 2, dtype=minitorch.long))
    weight = minitorch.ones(3, requires_grad=True)
    F.cross_entropy(minitorch.zeros(2, 3), minitorch.tensor([0, 1]), weight, label_smoothing=0.1)
    assert calls == {"cross_entropy": 0, "cross_entropy_backward": 0}


SECOND_ORDER_LOGITS = [[1.0, 2.0, 0.5], [0.25, -1.0, 3.0], [0.0, 0.5, -0.5], [2.0, 1.0, 0.0]]
SECOND_ORDER_TARGET = [1, 2, 0, 0]


def second_order(weight, reduction, smoothing, *, lib=minitorch, functional=F):
    """The gradient of $\\sum (\\partial L / \\partial x)^2$ with respect to the logits $x$
    (the backward with `create_graph=True`, then differentiated again); the last row's target
    is the ignored class 0 under `ignore_index=0`."""
    x = lib.tensor(SECOND_ORDER_LOGITS, dtype=lib.float64, requires_grad=True)
    target = lib.tensor(SECOND_ORDER_TARGET)
    w = None if weight is None else lib.tensor(weight, dtype=lib.float64)
    loss = functional.cross_entropy(
        x, target, w, reduction=reduction, label_smoothing=smoothing, ignore_index=0
    )
    upstream = (
        loss if reduction != "none" else loss * lib.tensor([1.0, -2.0, 0.5, 3.0], dtype=lib.float64)
    )
    (grad,) = lib.autograd.grad(upstream.sum(), x, create_graph=True)
    (second,) = lib.autograd.grad((grad * grad).sum(), x)
    return np.asarray(grad.detach().tolist()), np.asarray(second.tolist())


@pytest.mark.parametrize("weight", [None, [0.5, 2.0, 1.5]])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", SMOOTHINGS)
def test_fused_cross_entropy_differentiates_twice_as_the_composition(
    calls, composed, weight, reduction, smoothing
):
    """With `create_graph=True` the backward composes its formula: the first and second
    derivatives are the composition's (and torch's where it is installed)."""
    first, second = second_order(weight, reduction, smoothing)
    assert calls["cross_entropy"] == 1 and calls["cross_entropy_backward"] == 0
    want_first, want_second = composed(lambda: second_order(weight, reduction, smoothing))
    np.testing.assert_allclose(first, want_first, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(second, want_second, rtol=1e-10, atol=1e-12)
    assert np.abs(second).max() > 1e-3  # the second derivative is not trivially zero
    torch = pytest.importorskip("torch")
    got = second_order(weight, reduction, smoothing, lib=torch, functional=torch.nn.functional)
    np.testing.assert_allclose(second, got[1], rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------
# The SGD step in one pass (`optim.SGD(fused=True)`, `minitorch._fused_sgd_`)
# ---------------------------------------------------------------------------

SGD_OPTIONS = {
    "plain": {},
    "momentum": {"momentum": 0.9},
    "dampening-decay": {"momentum": 0.8, "dampening": 0.3, "weight_decay": 0.1},
    "nesterov": {"momentum": 0.9, "nesterov": True},
    "maximize-decay": {"momentum": 0.5, "maximize": True, "weight_decay": 0.2},
    "maximize-no-momentum": {"maximize": True, "weight_decay": 0.3},
}
SGD_START = [np.linspace(-1.0, 1.3, 12).reshape(3, 4), np.array([0.5, -0.25, 0.75, 1.5, -1.0])]


def sgd_trajectory(lib, dtype: str, steps: int = 4, **options):
    """The parameters and momentum buffers of `lib`'s SGD after `steps` steps on a fixed loss."""
    params = [lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=True) for v in SGD_START]
    optimizer = lib.optim.SGD(params, lr=0.1, **options)
    for _ in range(steps):
        optimizer.zero_grad()
        ((params[0] * params[0]).sum() * 0.5 + (params[1] ** 3).sum()).backward()
        optimizer.step()
    buffers = [optimizer.state[p].get("momentum_buffer") for p in params]
    return [p.detach().numpy() for p in params], [b if b is None else b.numpy() for b in buffers]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(SGD_OPTIONS))
def test_fused_sgd_takes_the_tensor_operations_steps_exactly(monkeypatch, name, dtype):
    """Bit for bit the values of the step of tensor operations (fused=False), by the kernel
    and by `_fused_sgd_`'s own composition on a backend without it."""
    counts = counted_kernels(monkeypatch, ("sgd_step",))
    options = SGD_OPTIONS[name]
    fused = sgd_trajectory(minitorch, dtype, fused=True, **options)
    assert counts["sgd_step"] == 8  # two parameters, four steps
    plain = sgd_trajectory(minitorch, dtype, **options)
    composed = without_kernels(monkeypatch, ("sgd_step",))(
        lambda: sgd_trajectory(minitorch, dtype, fused=True, **options)
    )
    assert counts["sgd_step"] == 8
    for other in (plain, composed):
        for got, expected in zip(fused[0] + fused[1], other[0] + other[1], strict=True):
            if expected is None:
                assert got is None
            else:
                np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", sorted(SGD_OPTIONS))
def test_fused_sgd_matches_torch(torch, name):
    ours = sgd_trajectory(minitorch, "float64", fused=True, **SGD_OPTIONS[name])
    theirs = sgd_trajectory(torch, "float64", **SGD_OPTIONS[name])
    for got, expected in zip(ours[0] + ours[1], theirs[0] + theirs[1], strict=True):
        if expected is None:
            assert got is None
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("nesterov", "factors"), [(False, (0.9, 0.72)), (True, (0.81, 0.5751))])
def test_fused_sgd_by_hand(nesterov, factors):
    """$g = w$ for $\\frac12 w^2$, lr 0.1, momentum 0.9. Step 1: $b = g = w_0$; step 2:
    $b = 0.9 b + g$. Plain: $w_1 = w_0 - 0.1 w_0 = 0.9 w_0$, $b = 1.8 w_0$, $w_2 = 0.72 w_0$.
    Nesterov ($d = g + 0.9 b$): $w_1 = w_0 - 0.19 w_0 = 0.81 w_0$, $b = 1.71 w_0$,
    $d = 2.349 w_0$, $w_2 = 0.5751 w_0$."""
    start = np.array([2.0, -4.0])
    w = minitorch.tensor(start, dtype=minitorch.float64, requires_grad=True)
    optimizer = minitorch.optim.SGD([w], lr=0.1, momentum=0.9, nesterov=nesterov, fused=True)
    for factor in factors:
        optimizer.zero_grad()
        (w * w * 0.5).sum().backward()
        optimizer.step()
        np.testing.assert_allclose(w.detach().numpy(), start * factor, rtol=1e-14)


def test_fused_sgd_refuses_what_its_kernel_cannot_step():
    p, g = minitorch.zeros(2, 3), minitorch.zeros(3, 2)
    options = dict(
        weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0, nesterov=False, maximize=False
    )
    with pytest.raises(RuntimeError, match="shape, dtype and device"):
        minitorch._fused_sgd_([p], [g], [], **options, is_first_step=True)
    with pytest.raises(RuntimeError, match="same length"):
        minitorch._fused_sgd_([p], [], [], **options, is_first_step=True)
