"""Second derivatives: `autograd.grad(..., create_graph=True)` and `backward(create_graph=True)`,
against torch, and `gradcheck` / `gradgradcheck` with torch's signature and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from minitorch.autograd.gradcheck import GradcheckError

torch = pytest.importorskip("torch")
TorchGradcheckError = pytest.importorskip("torch.autograd.gradcheck").GradcheckError

# (name, function of two tensors written once for both libraries)
FUNCTIONS = [
    ("add_mul", lambda a, b: (a + b) * a * b),
    ("sub_div", lambda a, b: (a - b) / (b * b + 1)),
    ("pow", lambda a, b: a**3 + (a * a) ** b),
    ("exp_log", lambda a, b: (a * b).exp() + (a * a + 1).log()),
    ("sqrt_reciprocal", lambda a, b: (a * a + 1).sqrt() * (b * b + 1).reciprocal()),
    ("sigmoid_tanh", lambda a, b: a.sigmoid() * b.tanh()),
    ("abs_relu_neg", lambda a, b: -(a * b).abs() * a + (a * b).relu() * b),
    ("matmul", lambda a, b: (a @ b.T) * (a @ b.T)),
    ("mean_sum", lambda a, b: (a * b).sum(1, keepdim=True) * a.mean(0)),
    ("broadcast", lambda a, b: a * b[0] * b[:, :1]),
    ("softmax", lambda a, b: a.softmax(1) * b.log_softmax(0)),
]


def leaves(library, arrays):
    """float64 leaves of `library` that require grad, one per array."""
    return [library.tensor(x, dtype=library.float64, requires_grad=True) for x in arrays]


def second_derivatives(library, fn, arrays):
    """First derivatives of $L = \\sum fn(a, b)^2$, then those of
    $\\sum_i w_i \\partial_{a_i} L + \\sum_i (\\partial_{b_i} L)^2$."""
    a, b = leaves(library, arrays)
    out = fn(a, b)
    ga, gb = library.autograd.grad((out * out).sum(), (a, b), create_graph=True)
    weight = library.tensor(np.arange(ga.numel()).reshape(tuple(ga.shape)) / 5.0, dtype=ga.dtype)
    second = library.autograd.grad((ga * weight).sum() + (gb * gb).sum(), (a, b))
    return [ga.detach().numpy(), gb.detach().numpy()] + [g.numpy() for g in second]


@pytest.mark.parametrize("fn", [f for _, f in FUNCTIONS], ids=[n for n, _ in FUNCTIONS])
def test_second_derivatives_match_torch(fn):
    rng = np.random.default_rng(1)
    arrays = [rng.uniform(0.2, 1.5, (2, 3)), rng.uniform(-1.5, 1.5, (2, 3))]
    ours = second_derivatives(minitorch, fn, arrays)
    theirs = second_derivatives(torch, fn, arrays)
    for mine, expected in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(mine, expected, rtol=1e-9, atol=1e-12)


def test_backward_create_graph_gives_differentiable_grad():
    found = []
    for library in (minitorch, torch):
        x = library.tensor([0.5, -1.0, 2.0], dtype=library.float64, requires_grad=True)
        with warnings.catch_warnings():  # torch warns of a reference cycle
            warnings.simplefilter("ignore")
            (x**3).sum().backward(create_graph=True)
        assert x.grad.requires_grad  # 3x^2, with a graph
        (second,) = library.autograd.grad(x.grad.sum(), x)
        found.append(second.numpy())
    np.testing.assert_allclose(found[0], found[1])
    np.testing.assert_allclose(found[0], [3.0, -6.0, 12.0])  # 6x


def test_without_create_graph_the_gradient_has_no_graph():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = minitorch.autograd.grad((x * x).sum(), x)
    assert not g.requires_grad and g.grad_fn is None


def test_gradcheck_returns_true_for_correct_backward():
    a = minitorch.tensor([[0.5, 1.0], [2.0, 3.0]], dtype=minitorch.float64, requires_grad=True)
    b = minitorch.tensor([1.0, -2.0], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda x, y: ((x @ y).exp(), x * y), (a, b))
    assert minitorch.autograd.gradgradcheck(lambda x, y: (x * y).sigmoid() @ y, (a, b))


class Wrong(minitorch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * x

    @staticmethod
    def backward(ctx, grad):
        return grad  # should be 2 x g


class TorchWrong(torch.autograd.Function):
    forward = staticmethod(lambda ctx, x: x * x)
    backward = staticmethod(lambda ctx, grad: grad)


def test_gradcheck_failure_text_matches_torch():
    messages = []
    cases = (
        (minitorch, Wrong.apply, GradcheckError),
        (torch, TorchWrong.apply, TorchGradcheckError),
    )
    for library, fn, error_type in cases:
        x = library.tensor([1.0, 2.0], dtype=library.float64, requires_grad=True)
        with pytest.raises(error_type) as error:
            library.autograd.gradcheck(fn, (x,))
        text = str(error.value).replace("=torch.", "=minitorch.")
        messages.append(text.replace(", device='cuda:0'", ""))  # torch runs on the cpu here
        assert library.autograd.gradcheck(fn, x, raise_exception=False) is False
    assert messages[0] == messages[1]
    assert messages[0].startswith("Jacobian mismatch for output 0 with respect to input 0,\n")


def test_gradcheck_errors_and_warning_match_torch():
    for library, error_type in ((minitorch, GradcheckError), (torch, TorchGradcheckError)):
        with pytest.raises(ValueError, match="none of them have requires_grad=True"):
            library.autograd.gradcheck(lambda t: t * t, (library.tensor([1.0]),))
        with pytest.raises(error_type, match="expected to be zero"):
            x = library.tensor([1.0, 2.0], dtype=library.float64, requires_grad=True)
            library.autograd.gradcheck(lambda t: (t * t).detach(), (x,))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x32 = library.tensor([1.0, 2.0], requires_grad=True)
            library.autograd.gradcheck(lambda t: t * 3, (x32,), eps=1e-2, atol=1e-2)
        assert [str(w.message) for w in caught] == [
            "Input #0 requires gradient and is not a double precision floating point or "
            "complex. This check will likely fail if all the inputs are not of double "
            "precision floating point or complex. "
        ]


def test_second_derivative_of_a_kernel_backward_raises_instead_of_being_wrong():
    x = minitorch.tensor([[0.5, -1.0, 2.0]], dtype=minitorch.float64, requires_grad=True)
    (g,) = minitorch.autograd.grad((x * x).cumsum(1).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [[3.0, -4.0, 4.0]])  # 2x (3, 2, 1)
    with pytest.raises(RuntimeError, match="differentiate twice the backward of CumsumBackward0"):
        minitorch.autograd.grad(g.sum(), x)
