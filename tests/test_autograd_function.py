"""Custom `autograd.Function`s as users write them for torch: ctx features, several outputs,
non-tensor inputs and outputs, the PyTorch 2 `setup_context` style. Each class is written
once and run with both libraries (`make(library)`), so the expected values are torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch


def make_scaled_cube(library):
    class ScaledCube(library.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x**3 * k

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            ctx.seen = ctx.needs_input_grad
            return grad * 3 * x**2 * ctx.k, None

    return ScaledCube


def make_split(library):
    """Three tensor outputs, a string and a non-differentiable mask (PyTorch 2 style)."""

    class Split(library.autograd.Function):
        @staticmethod
        def forward(x, y):
            return x * 2, x * y, "label", x > 0

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x, y)
            ctx.mark_non_differentiable(output[3])

        @staticmethod
        def backward(ctx, g_double, g_product, g_label, g_mask):
            x, y = ctx.saved_tensors
            ctx.received = (g_double, g_product, g_label, g_mask)
            return g_double * 2 + g_product * y, g_product * x

    return Split


def run_split(library, use_first: bool):
    x = library.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = library.tensor([0.5, 4.0, -1.0], requires_grad=True)
    double, product, label, mask = make_split(library).apply(x, y)
    loss = (product * product).sum() + ((double * 3).sum() if use_first else 0)
    loss.backward()
    return {
        "names": (type(double.grad_fn).__name__, double.grad_fn is product.grad_fn),
        "mask": (mask.requires_grad, mask.tolist(), label),
        "grads": (x.grad.tolist(), y.grad.tolist()),
    }


@pytest.mark.parametrize("use_first", [False, True])
def test_several_outputs_match_torch(torch, use_first):
    assert run_split(minitorch, use_first) == run_split(torch, use_first)


def test_unused_outputs_get_zeros_or_none(torch):
    received = []
    for library in (minitorch, torch):
        split = make_split(library)
        x = library.tensor([1.0, -2.0], requires_grad=True)
        outs = split.apply(x, library.tensor([3.0, 4.0]))
        outs[1].sum().backward()
        received.append(
            [
                None if g is None else (g.tolist(), str(g.dtype))
                for g in outs[1].grad_fn.ctx.received
            ]
            if library is minitorch
            else None
        )
    # torch's: zeros for the unused float output and for the mask (bool zeros), None for "label"
    assert received[0] == [
        ([0.0, 0.0], "minitorch.float32"),
        ([1.0, 1.0], "minitorch.float32"),
        None,
        ([False, False], "minitorch.bool"),
    ]


def test_set_materialize_grads_false_passes_none(torch):
    for library in (minitorch, torch):

        class Two(library.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                assert g1 is None
                return g2 * 3

        x = library.tensor([1.0, 2.0], requires_grad=True)
        Two.apply(x)[1].sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]


def test_ctx_save_needs_input_grad_and_node_name_match_torch(torch):
    results = []
    for library in (minitorch, torch):
        cube = make_scaled_cube(library)
        x = library.tensor([1.0, -2.0], requires_grad=True)
        y = cube.apply(x, 2.0)
        name = type(y.grad_fn).__name__
        y.sum().backward()
        results.append((name, y.tolist(), x.grad.tolist()))
    assert results[0] == results[1]
    assert results[0][0] == "ScaledCubeBackward"


def test_needs_input_grad_per_input():
    cube = make_scaled_cube(minitorch)
    x = minitorch.tensor([1.0], requires_grad=True)
    y = cube.apply(x, 2.0)
    y.backward()
    assert y.grad_fn.ctx.seen == (True, False)


def test_mark_non_differentiable_single_output(torch):
    for library in (minitorch, torch):

        class Flag(library.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                ctx.mark_non_differentiable(out)
                return out

            @staticmethod
            def backward(ctx, g):
                return g

        out = Flag.apply(library.tensor([1.0], requires_grad=True))
        assert not out.requires_grad and out.grad_fn is None


def test_save_for_backward_rejects_non_tensors_as_torch(torch):
    for library in (minitorch, torch):

        class Saves(library.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g

        with pytest.raises(
            TypeError, match="can only save variables, but argument 1 is of type int"
        ):
            Saves.apply(library.tensor([1.0], requires_grad=True))


def test_custom_function_gradients_by_central_differences():
    cube = make_scaled_cube(minitorch)
    x = minitorch.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=minitorch.float64, requires_grad=True)
    y = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: cube.apply(t, 1.5), (x,))
    assert minitorch.grad_check(lambda a, b: make_split(minitorch).apply(a, b)[1], x, y)


def test_double_backward_through_custom_function(torch):
    values = []
    for library in (minitorch, torch):
        cube = make_scaled_cube(library)
        x = library.tensor([0.5, -1.0, 2.0], dtype=library.float64, requires_grad=True)
        (g,) = library.autograd.grad(cube.apply(x, 2.0).sum(), x, create_graph=True)
        (h,) = library.autograd.grad(g.sum(), x)
        values.append(h.numpy())
    np.testing.assert_allclose(values[0], values[1])  # d2/dx2 of k x^3 is 6 k x


def run_grad_wrt_outputs(library):
    split = make_split(library)
    x = library.tensor([1.0, -2.0], requires_grad=True)
    y = library.tensor([3.0, 0.5], requires_grad=True)
    double, product, _, _ = split.apply(x, y)
    loss = (double * product * product).sum()
    found = library.autograd.grad(loss, [product, double, x], retain_graph=True)
    product.retain_grad()
    loss.backward()
    return [g.tolist() for g in found] + [product.grad.tolist(), x.grad.tolist()]


def test_grad_with_respect_to_each_output_and_retain_grad_match_torch(torch):
    assert run_grad_wrt_outputs(minitorch) == run_grad_wrt_outputs(torch)
