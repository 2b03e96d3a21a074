"""Tensor autograd behaviour: the recorded graph, backward(), grad mode, in-place safety, memory.

Expected values are derived by hand (in comments) or are PyTorch's documented
behaviour; `test_autograd_torch.py` checks the same against the installed torch.
"""

from __future__ import annotations

import gc
import re
import weakref

import pytest
from helpers import types_named_for_the_test_device

import minitorch
from minitorch.autograd.graph import AccumulateGrad, Node


def leaf(values, **kwargs) -> minitorch.Tensor:
    return minitorch.tensor(values, requires_grad=True, **kwargs)


def graph_nodes(tensor: minitorch.Tensor) -> list[Node]:
    """Every node reachable from `tensor.grad_fn`."""
    seen, stack = {}, [tensor.grad_fn] if tensor.grad_fn is not None else []
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            stack.extend(n for n, _ in node.next_functions if n is not None)
    return list(seen.values())


# ---------------------------------------------------------------------------
# The graph
# ---------------------------------------------------------------------------


def test_graph_of_sum_pow_accumulate():
    # y.grad_fn is a SumBackward0 pointing to PowBackward0 pointing to AccumulateGrad on x
    x = leaf([1.0, 2.0, 3.0])
    y = (x**2).sum()
    assert y.grad_fn.name() == "SumBackward0"
    (pow_node, index), *rest = y.grad_fn.next_functions
    assert (pow_node.name(), index, rest) == ("PowBackward0", 0, [])
    accumulate = pow_node.next_functions[0][0]
    assert isinstance(accumulate, AccumulateGrad)
    assert accumulate.variable is x
    assert accumulate.next_functions == ()


@pytest.mark.cpu_only  # host memory, or printing without a device
def test_grad_fn_prints_like_torch():
    y = leaf([1.0]) + 2
    assert re.fullmatch(r"<AddBackward0 object at 0x[0-9a-f]+>", repr(y.grad_fn)), repr(y.grad_fn)
    assert type(y.grad_fn).__name__ == "AddBackward0"
    assert str(y) == "tensor([3.], grad_fn=<AddBackward0>)"
    assert str(leaf([1.0])) == "tensor([1.], requires_grad=True)"


def test_a_leaf_has_one_accumulate_grad_node():
    x = leaf([1.0, 2.0])
    first, second = (x * 2).grad_fn, (x + 1).grad_fn
    assert first.next_functions[0][0] is second.next_functions[0][0]


def test_number_operand_has_no_node():
    y = leaf([1.0]) * 2
    assert y.grad_fn.next_functions[1] == (None, 0)


def test_requires_grad_propagates_and_is_leaf():
    x = leaf([1.0, 2.0])
    c = minitorch.tensor([3.0, 4.0])
    y = x * c
    assert (x.is_leaf, c.is_leaf, y.is_leaf) == (True, True, False)
    assert (y.requires_grad, (c * 2).requires_grad) == (True, False)
    assert (c * 2).grad_fn is None


def test_integer_and_bool_results_are_not_differentiable():
    x = leaf([1.0, -2.0])
    assert (x > 0).requires_grad is False
    assert x.argmax().requires_grad is False
    values, indices = x.max(0)
    assert (values.requires_grad, indices.requires_grad) == (True, False)


def test_only_floating_tensors_can_require_grad():
    with pytest.raises(
        RuntimeError, match="^only Tensors of floating point dtype can require gradients$"
    ):
        minitorch.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype"):
        minitorch.tensor([1, 2], requires_grad=True)


def test_requires_grad_of_a_non_leaf_cannot_be_turned_off():
    y = leaf([1.0]) * 2
    with pytest.raises(RuntimeError, match="^you can only change requires_grad flags of leaf"):
        y.requires_grad_(False)


# ---------------------------------------------------------------------------
# backward()
# ---------------------------------------------------------------------------


def test_grad_is_none_before_backward_and_accumulates():
    x = leaf([1.0, 2.0])
    assert x.grad is None
    (x * x).sum().backward()  # d/dx sum(x^2) = 2x
    assert x.grad.tolist() == [2.0, 4.0]
    (x * x).sum().backward()  # accumulates: 2x + 2x
    assert x.grad.tolist() == [4.0, 8.0]
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0]
    (3 * x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_grads_of_two_leaves_do_not_alias():
    # y = a + b hands the same gradient to both; zeroing one must not zero the other
    a, b = leaf([1.0]), leaf([2.0])
    (a + b).sum().backward()
    a.grad.zero_()
    assert b.grad.tolist() == [1.0]


def test_a_node_used_twice_sums_its_gradients():
    # z = y * y with y = 3x: dz/dx = 2 y * 3 = 18x
    x = leaf([1.0, 2.0])
    y = 3 * x
    (y * y).sum().backward()
    assert x.grad.tolist() == [18.0, 36.0]


def test_backward_with_explicit_gradient_is_a_vector_jacobian_product():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x  # Jacobian diag(2x): v^T J = 2 x v
    y.backward(minitorch.tensor([1.0, 0.5, 0.0]))
    assert x.grad.tolist() == [2.0, 2.0, 0.0]


def test_implicit_gradient_only_for_one_element():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar"):
        (x * 2).backward()
    (x * 2)[0:1].backward()  # one element, 1-D: allowed
    assert x.grad.tolist() == [2.0, 0.0]


def test_backward_needs_a_graph():
    with pytest.raises(
        RuntimeError,
        match="^element 0 of tensors does not require grad and does not have a grad_fn$",
    ):
        minitorch.ones(3).sum().backward()


def test_backward_gradient_shape_must_match():
    x = leaf([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=re.escape("grad_output[0] has a shape of minitorch.")):
        (x * 2).backward(minitorch.ones(2))


def test_backward_of_a_leaf_accumulates_the_gradient():
    x = leaf([5.0])
    x.backward()
    assert x.grad.tolist() == [1.0]


def test_second_backward_through_a_freed_graph_raises():
    x = leaf([1.0, 2.0])
    y = (x**2).sum()  # PowBackward0 saved x
    y.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    y = (x**2).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]  # 2 * 2x


def test_graph_without_saved_tensors_can_run_twice():
    x = leaf([1.0, 2.0])
    y = (x + 1).sum()  # AddBackward0 saves nothing, as in PyTorch
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_non_leaf_grad_warns_and_retain_grad_keeps_it():
    x = leaf([1.0, 2.0])
    y = x * 3
    with pytest.warns(UserWarning, match="^The .grad attribute of a Tensor that is not a leaf"):
        assert y.grad is None
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()  # d/dy y^2 = 2y = 6x
    assert y.grad.tolist() == [6.0, 12.0]
    assert x.grad.tolist() == [18.0, 36.0]


def test_grad_assignment_checks_shape():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^assigned grad has data of a different size$"):
        x.grad = minitorch.zeros(3)
    x.grad = minitorch.ones(2)
    (x * 1).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_numpy_of_a_tensor_that_requires_grad_raises():
    x = leaf([1.0])
    message = (
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
    )
    with pytest.raises(RuntimeError, match=re.escape(message)):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0]


# ---------------------------------------------------------------------------
# Grad mode and detach
# ---------------------------------------------------------------------------


def test_no_grad_records_nothing():
    x = leaf([1.0])
    with minitorch.no_grad():
        assert not minitorch.is_grad_enabled()
        y = x * 2
    assert minitorch.is_grad_enabled()
    assert (y.requires_grad, y.grad_fn, y.is_leaf) == (False, None, True)


def test_no_grad_as_decorator_and_enable_grad_inside():
    x = leaf([1.0])

    @minitorch.no_grad()
    def double(t):
        return t * 2, minitorch.is_grad_enabled()

    y, enabled = double(x)
    assert (y.requires_grad, enabled, minitorch.is_grad_enabled()) == (False, False, True)
    with minitorch.no_grad():
        with minitorch.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad


def test_set_grad_enabled_as_function_and_context():
    with minitorch.set_grad_enabled(False):
        assert not minitorch.is_grad_enabled()
    assert minitorch.is_grad_enabled()
    minitorch.set_grad_enabled(False)
    try:
        assert not minitorch.is_grad_enabled()
    finally:
        minitorch.set_grad_enabled(True)
    assert minitorch.is_grad_enabled()


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(ValueError), minitorch.no_grad():
        raise ValueError
    assert minitorch.is_grad_enabled()


def test_detach_shares_storage_and_version():
    x = leaf([1.0, 2.0])
    d = x.detach()
    assert (d.requires_grad, d.is_leaf, d.data_ptr() == x.data_ptr()) == (False, True, True)
    d[0] = 7.0
    assert x.tolist() == [7.0, 2.0]
    assert x._version == 1


def test_detach_in_place():
    y = leaf([1.0]) * 2
    assert y.detach_() is y
    assert (y.requires_grad, y.grad_fn, y.is_leaf) == (False, None, True)
    with pytest.raises(RuntimeError, match="^Can't detach views in-place"):
        (leaf([1.0, 2.0]) * 2)[0].detach_()


# ---------------------------------------------------------------------------
# In-place operations
# ---------------------------------------------------------------------------

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."


@pytest.mark.parametrize(
    "write",
    [
        lambda t: t.add_(1),
        lambda t: t.mul_(2),
        lambda t: t.zero_(),
        lambda t: t.__iadd__(1),
        lambda t: t.copy_(minitorch.ones(2)),
    ],
)
def test_in_place_on_a_leaf_that_requires_grad_raises(write):
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=f"^{re.escape(LEAF_MESSAGE)}$"):
        write(x)
    assert x.tolist() == [1.0, 2.0] and x._version == 0


def test_in_place_on_a_view_of_such_a_leaf_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        x[0] = 5.0
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        x[1:].mul_(2)


def test_in_place_update_under_no_grad_is_allowed():
    w = leaf([1.0, 2.0])
    (w * w).sum().backward()
    with minitorch.no_grad():
        w -= 0.5 * w.grad  # w - 0.5 * 2w = 0
    assert w.tolist() == [0.0, 0.0]
    assert (w.is_leaf, w.requires_grad, w._version) == (True, True, 1)


def test_in_place_ops_bump_the_shared_version_counter():
    a = minitorch.zeros(4)
    view = a[1:3]
    assert a._version == 0
    a.add_(1)
    view.mul_(2)
    a[0] = 3.0
    assert (a._version, view._version) == (3, 3)
    assert a.tolist() == [3.0, 2.0, 2.0, 1.0]


def test_modified_saved_tensor_raises_instead_of_a_wrong_gradient():
    x = leaf([1.0, 2.0, 3.0])
    y = x.exp()  # ExpBackward0 saves its output y
    z = y.sum()
    y.add_(1)
    message = types_named_for_the_test_device(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [minitorch.FloatTensor [3]], which is output 0 of Exp, is at version 1; "
        "expected version 0 instead."
    )
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}"):
        z.backward()


def test_modified_saved_input_raises():
    w = leaf([1.0, 2.0, 3.0])
    d = minitorch.tensor([1.0, 1.0, 1.0])
    z = (w * d).sum()  # MulBackward0 saves d for w's gradient
    d.add_(1)
    message = types_named_for_the_test_device("[minitorch.FloatTensor [3]] is at version 1")
    with pytest.raises(RuntimeError, match=re.escape(message)):
        z.backward()


def test_in_place_on_a_non_leaf_rebases_its_history():
    # y = 2x; y <- y + 1; z = y * x = (2x + 1) x: dz/dx = 4x + 1
    x = leaf([1.0, 2.0])
    y = x * 2
    y.add_(1)
    assert y.grad_fn.name() == "AddBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    (y * x).sum().backward()
    assert x.grad.tolist() == [5.0, 9.0]


def test_in_place_mul_by_a_tensor_that_requires_grad():
    # a <- a * w with a = [2, 3] a plain tensor: d sum(a)/dw = the old a
    a = minitorch.tensor([2.0, 3.0])
    w = leaf([4.0, 5.0])
    a.mul_(w)
    assert (a.is_leaf, a.requires_grad) == (False, True)
    a.sum().backward()
    assert w.grad.tolist() == [2.0, 3.0]


# ---------------------------------------------------------------------------
# Memory: what a graph keeps alive
# ---------------------------------------------------------------------------


def test_saved_tensors_are_released_after_backward():
    x = leaf([1.0, 2.0])
    hidden = x * 3  # saved by the Mul below
    y = (hidden * hidden).sum()
    hidden_ref = weakref.ref(hidden)
    del hidden
    gc.collect()
    assert hidden_ref() is not None, "the graph keeps the saved tensor until backward"
    y.backward()
    gc.collect()
    assert hidden_ref() is None, "backward without retain_graph frees saved tensors"


def test_output_and_its_node_do_not_form_a_cycle():
    # Exp saves its own output: that must not keep the output alive without gc
    x = leaf([1.0, 2.0])
    gc.disable()
    try:
        y = x.exp()
        y_ref = weakref.ref(y)
        del y
        assert y_ref() is None
    finally:
        gc.enable()


def test_no_graph_is_built_under_no_grad():
    x = leaf([1.0, 2.0])
    with minitorch.no_grad():
        y = ((x * 2).exp() + x).sum()
    assert graph_nodes(y) == []
    z = ((x * 2).exp() + x).sum()
    names = sorted(node.name() for node in graph_nodes(z))
    expected = ["AddBackward0", "ExpBackward0", "MulBackward0", "SumBackward0"]
    assert names == expected + ["minitorch::autograd::AccumulateGrad"]


def test_training_loop_keeps_memory_flat():
    # 1,000 steps of a linear regression's training loop; after each, no tensor of the step's
    # graph is alive
    w = leaf([[0.5]])
    x = minitorch.tensor([[1.0], [2.0]])
    target = minitorch.tensor([[2.0], [4.0]])
    step_refs = []
    for _ in range(1000):
        pred = x @ w
        loss = ((pred - target) ** 2).mean()
        loss.backward()
        with minitorch.no_grad():
            w -= 0.05 * w.grad
            w.grad.zero_()
        step_refs.append((weakref.ref(pred), weakref.ref(loss.grad_fn)))
        del pred, loss
    alive = sum(1 for refs in step_refs for ref in refs if ref() is not None)
    assert alive == 0, f"{alive} graph objects survived their step"
    assert abs(w.item() - 2.0) < 1e-4


# ---------------------------------------------------------------------------
# grad_check
# ---------------------------------------------------------------------------


class WrongSquare(minitorch.Function):
    """$x^2$ with a wrong backward ($x$ instead of $2x$), to see grad_check fail."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a


def test_grad_check_names_input_index_and_both_values():
    x = minitorch.tensor([[1.0, 2.0]], dtype=minitorch.float64, requires_grad=True)
    y = minitorch.tensor([3.0], dtype=minitorch.float64, requires_grad=True)
    with pytest.raises(minitorch.GradcheckError) as error:
        minitorch.grad_check(lambda a, b: WrongSquare.apply(a) + b, x, y)
    message = str(error.value)
    assert "input 0 at index (0, 0)" in message, message
    assert "by backward" in message and "by central differences" in message, message


def test_grad_check_of_some_elements_perturbs_only_those():
    """`elements=k`: 2k evaluations besides the first, at k distinct indices drawn by the seed,
    and a wrong gradient at one of them is still found."""
    calls = []

    def square_recording_calls(t):
        calls.append(t.detach().cpu().tolist())
        return WrongSquare.apply(t)

    x = minitorch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=minitorch.float64)
    assert minitorch.grad_check(square_recording_calls, x.requires_grad_(), elements=3)
    assert len(calls) == 1 + 2 * 3  # the gradient at 0 is right (0), so nothing raised
    perturbed = {next(k for k, v in enumerate(c) if v != 0) for c in calls[1:]}
    assert len(perturbed) == 3
    ones = minitorch.ones(6, dtype=minitorch.float64, requires_grad=True)
    with pytest.raises(minitorch.GradcheckError):
        minitorch.grad_check(WrongSquare.apply, ones, elements=1)


def test_grad_check_passes_a_correct_function():
    x = minitorch.tensor([0.5, -1.5], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.grad_check(lambda t: (t * t.exp()).sum(), x) is True


def test_a_backward_returning_a_wrongly_shaped_gradient_is_refused_with_torchs_message():
    class Transposed(minitorch.Function):
        """A deliberately wrong backward: returns the gradient transposed."""

        @staticmethod
        def forward(ctx, a):
            return a * 2.0

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.t() * 2.0

    x = minitorch.ones(2, 4, requires_grad=True)
    doubled = Transposed.apply(x)
    # torch names the node of a user-defined Function without a number
    assert doubled.grad_fn.name() == "TransposedBackward"
    y = doubled.sum()
    # torch: "Function BBackward returned an invalid gradient at index 0 - got [4, 2] but
    # expected shape compatible with [2, 4]"
    with pytest.raises(
        RuntimeError,
        match=r"returned an invalid gradient at index 0 - got \[4, 2\] "
        r"but expected shape compatible with \[2, 4\]",
    ):
        y.backward()
