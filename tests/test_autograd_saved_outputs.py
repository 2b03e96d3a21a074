"""Double backward through a `Function` whose forward saves tensors it also returns.

PyTorch's double-backward tutorial: `Sinh` saves exp(x) and exp(-x) and returns
them beside sinh(x); with `create_graph=True` the saved outputs come back
connected to the node, so the gradient has a graph of its own. The second
derivative of sinh is sinh; its first is cosh (a NumPy reference).
"""

import numpy as np

import minitorch


def sinh_function(lib):
    class Sinh(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx, expnegx = lib.exp(x), lib.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, grad_exp, grad_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            grad_input += grad_exp * expx
            grad_input -= grad_negexp * expnegx
            return grad_input

    return Sinh


POINTS = [0.5, -1.0, 2.0, 0.0]


def second_derivative(lib, keep_outputs: bool):
    x = lib.tensor(POINTS, dtype=lib.float64, requires_grad=True)
    outputs = sinh_function(lib).apply(x)
    y = outputs[0]
    if not keep_outputs:
        del outputs  # the saved outputs then outlive the tensors forward returned
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    return g, gg


def test_saved_outputs_keep_the_graph():
    for keep in (True, False):
        g, gg = second_derivative(minitorch, keep)
        assert g.grad_fn is not None
        np.testing.assert_allclose(g.detach().numpy(), np.cosh(POINTS), rtol=1e-12)
        np.testing.assert_allclose(gg.numpy(), np.sinh(POINTS), rtol=1e-12)


def test_gradients_through_the_other_outputs():
    """d/dx of exp(x) (output 1) through the saved exp(x), twice."""
    x = minitorch.tensor(POINTS, dtype=minitorch.float64, requires_grad=True)
    _, expx, _ = sinh_function(minitorch).apply(x)
    (g,) = minitorch.autograd.grad(expx.sum(), x, create_graph=True)
    (gg,) = minitorch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), np.exp(POINTS), rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), np.exp(POINTS), rtol=1e-12)


def test_second_derivative_like_torch(torch):
    for keep in (True, False):
        ours, theirs = second_derivative(minitorch, keep), second_derivative(torch, keep)
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
        assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
