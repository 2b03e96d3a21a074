"""minitorch.autograd.functional: Jacobians, Hessians and products with vectors.

Values are checked against closed forms and central differences (no torch needed), the
structure of results and torch 2.13's error messages as recorded here, and everything
again against live torch when it is installed.
"""

import numpy as np
import pytest

import minitorch
from minitorch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

RNG = np.random.default_rng(0)
X, Y = RNG.standard_normal((4, 2)), RNG.standard_normal((4, 2))
V4, V42, W42 = RNG.standard_normal(4), RNG.standard_normal((4, 2)), RNG.standard_normal((4, 2))


def t(values, requires_grad=False):
    return minitorch.tensor(values, dtype=minitorch.float64, requires_grad=requires_grad)


def exp_reducer(x):
    return x.exp().sum(dim=1)


def adder(x, y):
    return 2 * x + 3 * y


def cubes(x):
    return (x**3).sum()


def weighted_squares(x, y):
    return (2 * x**2 + 3 * y**2).sum()


def numeric_jacobian(f, x: np.ndarray, h=1e-6) -> np.ndarray:
    """Central differences of a NumPy-valued function: shape f(x).shape + x.shape."""
    columns = []
    for k in range(x.size):
        step = np.zeros(x.size)
        step[k] = h
        step = step.reshape(x.shape)
        columns.append((f(x + step) - f(x - step)) / (2 * h))
    return np.moveaxis(np.array(columns), 0, -1).reshape(np.shape(f(x)) + x.shape)


def close(result, expected, rtol=1e-7):
    np.testing.assert_allclose(result.numpy(), expected, rtol=rtol, atol=1e-9)


def test_vjp_and_jvp_are_products_with_the_jacobian():
    # d exp_reducer_i / d x_jk = exp(x_jk) when i == j: J has shape (4, 4, 2)
    jac = np.zeros((4, 4, 2))
    for i in range(4):
        jac[i, i] = np.exp(X[i])
    out, product = vjp(exp_reducer, t(X), t(V4))
    close(out, np.exp(X).sum(axis=1))
    close(product, np.einsum("i,ijk->jk", V4, jac))
    out, product = jvp(exp_reducer, t(X), t(V42))
    close(product, np.einsum("ijk,jk->i", jac, V42))
    (gx, gy) = vjp(adder, (t(X), t(Y)), t(V42))[1]
    close(gx, 2 * V42), close(gy, 3 * V42)
    close(jvp(adder, (t(X), t(Y)), (t(V42), t(W42)))[1], 2 * V42 + 3 * W42)


def test_jacobian_matches_central_differences_with_torchs_shapes():
    result = jacobian(exp_reducer, t(X))
    assert result.shape == (4, 4, 2)
    close(result, numeric_jacobian(lambda a: np.exp(a).sum(axis=1), X), rtol=1e-6)
    jx, jy = jacobian(adder, (t(X), t(Y)))
    assert jx.shape == jy.shape == (4, 2, 4, 2)
    close(jx, 2 * np.eye(8).reshape(4, 2, 4, 2)), close(jy, 3 * np.eye(8).reshape(4, 2, 4, 2))

    def two_outputs(x, y):
        return x * y, (x.sin() * y).sum()

    (a, b), (c, d) = jacobian(two_outputs, (t(X), t(Y)))
    assert (a.shape, b.shape, c.shape, d.shape) == ((4, 2, 4, 2),) * 2 + ((4, 2),) * 2
    close(a, numeric_jacobian(lambda p: p * Y, X), rtol=1e-6)
    close(d, np.sin(X)), close(c, np.cos(X) * Y)


def test_hessian_and_its_products_match_the_closed_form():
    h = np.diag(6 * X.reshape(-1)).reshape(4, 2, 4, 2)  # of sum(x^3)
    close(hessian(cubes, t(X)), h)
    close(vhp(cubes, t(X), t(V42))[1], np.einsum("jk,jkab->ab", V42, h))
    close(hvp(cubes, t(X), t(V42))[1], np.einsum("jkab,ab->jk", h, V42))
    (hxx, hxy), (hyx, hyy) = hessian(weighted_squares, (t(X), t(Y)))
    close(hxx, 4 * np.eye(8).reshape(4, 2, 4, 2)), close(hyy, 6 * np.eye(8).reshape(4, 2, 4, 2))
    close(hxy, np.zeros((4, 2, 4, 2))), close(hyx, np.zeros((4, 2, 4, 2)))
    value, (px, py) = hvp(weighted_squares, (t(X), t(Y)), (t(V42), t(W42)))
    assert value.shape == () and value.item() == pytest.approx((2 * X**2 + 3 * Y**2).sum())
    close(px, 4 * V42), close(py, 6 * W42)


def test_graphs_only_with_create_graph_and_inputs_never_change():
    x = t(X, requires_grad=True)
    out, product = vjp(exp_reducer, x, t(V4))
    assert not out.requires_grad and not product.requires_grad and x.grad is None
    out, product = vjp(exp_reducer, x, t(V4), create_graph=True)
    assert product.requires_grad  # connected to x: the second derivative flows back
    product.sum().backward()
    close(x.grad, V4[:, None] * np.exp(X))
    second = hessian(cubes, x, create_graph=True)
    assert second.requires_grad
    (third,) = minitorch.autograd.grad(second.sum(), x)
    close(third, np.full((4, 2), 6.0))
    # as in torch, create_graph differentiates a fresh copy even of an input without grad
    assert jacobian(exp_reducer, t(X), create_graph=True).requires_grad
    assert t(X).grad is None


def test_unused_inputs_give_zeros_or_torchs_strict_errors():
    def only_x(x, y):
        return x * 2

    jx, jy = jacobian(only_x, (t(X), t(Y)))
    close(jy, np.zeros((4, 2, 4, 2)))
    close(vjp(only_x, (t(X), t(Y)), t(V42))[1][1], np.zeros((4, 2)))
    close(jvp(only_x, (t(X), t(Y)), (t(V42), t(W42)))[1], 2 * V42)
    close(hessian(lambda x: (3 * x).sum(), t(X)), np.zeros((4, 2, 4, 2)))
    strict_errors = {
        lambda: jacobian(only_x, (t(X), t(Y)), strict=True):
            "Output 0 of the user-provided function is independent of input 1. This is not "
            "allowed in strict mode.",
        lambda: vjp(only_x, (t(X), t(Y)), t(V42), strict=True):
            "The output of the user-provided function is independent of input 1. This is not "
            "allowed in strict mode.",
        lambda: jvp(only_x, (t(X), t(Y)), (t(V42), t(W42)), strict=True):
            "The output of the user-provided function is independent of input 1. This is not "
            "allowed in strict mode.",
        lambda: hvp(lambda x: (3 * x).sum(), t(X), t(V42), strict=True):
            "While computing the hessian, found that the jacobian of the user-provided function "
            "with respect to input 0 is independent of the input.",
        lambda: hessian(lambda x: (3 * x).sum(), t(X), strict=True):
            "While computing the hessian, found that the jacobian",
        lambda: jacobian(lambda x: x.detach(), t(X), strict=True):
            "Output 0 of the user-provided function does not require gradients.",
    }  # fmt: skip
    for call, message in strict_errors.items():
        with pytest.raises(RuntimeError) as error:
            call()
        assert str(error.value).startswith(message)


def test_bad_arguments_raise_torchs_errors():
    cases = [
        (lambda: vjp(exp_reducer, t(X)), RuntimeError,
         "The vector v can only be None if the user-provided function returns a single Tensor "
         "with a single element."),
        (lambda: vjp(exp_reducer, t(X), t(V42)), RuntimeError,
         "v has invalid size: should be minitorch.Size([4]) but got minitorch.Size([4, 2])."),
        (lambda: jvp(adder, (t(X), t(Y)), (t(V42),)), RuntimeError,
         "v is a tuple of invalid length: should be 2 but got 1."),
        (lambda: vjp(lambda x: 3, t(X)), TypeError,
         "The outputs of the user-provided function given to vjp must be either a Tensor or a "
         "tuple of Tensors but the given outputs of the user-provided function has type "
         "<class 'int'>."),
        (lambda: jacobian(exp_reducer, [t(X)]), TypeError,
         "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the "
         "given inputs has type <class 'list'>."),
        (lambda: hessian(exp_reducer, t(X)), RuntimeError,
         "The Tensor returned by the function given to hessian should contain a single element"),
        (lambda: vhp(adder, (t(X), t(Y)), (t(V42), t(V42))), RuntimeError,
         "The Tensor returned by the function given to vhp should contain a single element"),
        (lambda: jacobian(exp_reducer, t(X), strategy="forward-mode"), NotImplementedError,
         "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
         "implemented for `vectorize=True`."),
        (lambda: jacobian(exp_reducer, t(X), strategy="bogus"), AssertionError,
         'Expected strategy to be either "forward-mode" or "reverse-mode".'),
        (lambda: jacobian(exp_reducer, t(X), vectorize=True, strict=True), RuntimeError,
         "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
         "supported together."),
    ]  # fmt: skip
    for call, kind, message in cases:
        with pytest.raises(kind) as error:
            call()
        assert str(error.value).startswith(message), str(error.value)
    vectorized = jacobian(exp_reducer, t(X), vectorize=True, strategy="forward-mode")
    close(vectorized, jacobian(exp_reducer, t(X)).numpy())


def test_every_function_matches_live_torch(torch):
    import torch.autograd.functional as tf

    def lib_tensor(lib, values, requires_grad=False):
        return lib.tensor(values, dtype=lib.float64, requires_grad=requires_grad)

    def same(ours, theirs):
        if isinstance(theirs, tuple):
            assert isinstance(ours, tuple) and len(ours) == len(theirs)
            for a, b in zip(ours, theirs, strict=True):
                same(a, b)
            return
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert ours.requires_grad == theirs.requires_grad
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)

    calls = [
        ("vjp", exp_reducer, [X], [V4]),
        ("vjp", adder, [X, Y], [V42]),
        ("jvp", exp_reducer, [X], [V42]),
        ("jvp", adder, [X, Y], [V42, W42]),
        ("jacobian", exp_reducer, [X], None),
        ("jacobian", adder, [X, Y], None),
        ("hessian", cubes, [X], None),
        ("hessian", weighted_squares, [X, Y], None),
        ("vhp", cubes, [X], [V42]),
        ("hvp", cubes, [X], [V42]),
        ("hvp", weighted_squares, [X, Y], [V42, W42]),
    ]
    for name, f, inputs, v in calls:
        for create_graph in (False, True):
            for requires_grad in (False, True):
                results = []
                for lib, module in ((minitorch, minitorch.autograd.functional), (torch, tf)):
                    xs = tuple(lib_tensor(lib, a, requires_grad) for a in inputs)
                    xs = xs if len(xs) > 1 else xs[0]
                    args = [f, xs]
                    if v is not None:
                        vs = tuple(lib_tensor(lib, a) for a in v)
                        args.append(vs if len(vs) > 1 else vs[0])
                    results.append(getattr(module, name)(*args, create_graph=create_graph))
                same(*results)
