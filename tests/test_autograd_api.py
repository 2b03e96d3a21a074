"""minitorch.autograd.grad and minitorch.autograd.backward against torch.autograd's.

Skipped when torch is not installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(3)


def leaves(*shapes):
    """Leaves that require grad, the same float64 values in each library: (ours, theirs)."""
    arrays = [RNG.normal(size=shape) for shape in shapes]
    ours = [minitorch.tensor(a, dtype=minitorch.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    return ours, theirs


def assert_same(got, expected, what: str):
    assert len(got) == len(expected), f"{what}: {len(got)} results vs {len(expected)}"
    for k, (g, e) in enumerate(zip(got, expected, strict=True)):
        if e is None:
            assert g is None, f"{what}[{k}]: {g} instead of None"
            continue
        assert tuple(g.shape) == tuple(e.shape), f"{what}[{k}]: shape {g.shape} vs {e.shape}"
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, err_msg=f"{what}[{k}]")


def raised(function, library):
    """The exception `function(library)` raises (it must raise)."""
    with pytest.raises(Exception) as info:
        function(library)
    return info.value


def assert_same_error(function):
    expected = raised(function, torch)
    got = raised(function, minitorch)
    assert type(got) is type(expected)
    assert str(got) == str(expected).replace("torch.", "minitorch.")


# Functions of (library, *leaves) -> the outputs to differentiate, and the leaves' shapes.
GRAPHS = {
    "one_input": (lambda m, x: (x * x.exp()).sum(), [(3,)]),
    "several_inputs": (lambda m, x, w, b: ((x @ w + b).tanh() ** 2).mean(), [(4, 3), (3, 2), (2,)]),
    "shared_input": (lambda m, x, y: (x * y).sum() + (x / (y * y + 1)).sum(), [(2, 3), (3,)]),
    "broadcast": (lambda m, x, y: (x - y).abs().max(), [(2, 1), (1, 3)]),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_grad_matches_torch_and_leaves_grad_untouched(name):
    fn, shapes = GRAPHS[name]
    ours, theirs = leaves(*shapes)
    ours[0].grad = minitorch.ones(shapes[0], dtype=minitorch.float64)  # an earlier backward's
    got = minitorch.autograd.grad(fn(minitorch, *ours), ours)
    expected = torch.autograd.grad(fn(torch, *theirs), theirs)
    assert isinstance(got, tuple)
    assert_same(got, expected, "gradients")
    assert ours[0].grad.tolist() == np.ones(shapes[0]).tolist(), "grad() changed .grad"
    assert all(x.grad is None for x in ours[1:]), "grad() filled .grad"


def test_grad_with_respect_to_a_non_leaf():
    (x,), (tx,) = leaves((3,))

    def grads(m, x):
        hidden = x.tanh() * 2
        out = (hidden * hidden).sum()
        return m.autograd.grad(out, [hidden, x])

    assert_same(grads(minitorch, x), grads(torch, tx), "gradients")
    assert x.grad is None


def test_grad_of_several_outputs_with_grad_outputs():
    (x,), (tx,) = leaves((3,))
    weights = RNG.normal(size=3)

    def grads(m, x):
        outputs = [x * x, (x * 3).sum()]
        return m.autograd.grad(outputs, x, grad_outputs=[m.tensor(weights), m.tensor(2.0)])

    assert_same(grads(minitorch, x), grads(torch, tx), "gradients")


def test_grad_fills_retained_grad_of_a_non_leaf_as_torch():
    (x,), (tx,) = leaves((3,))

    def hidden_grad(m, x):
        hidden = x * 2
        hidden.retain_grad()
        m.autograd.grad((hidden * hidden).sum(), x)
        return hidden.grad, x.grad

    (ours, our_leaf), (theirs, their_leaf) = hidden_grad(minitorch, x), hidden_grad(torch, tx)
    assert our_leaf is None and their_leaf is None
    assert_same([ours], [theirs], "retained grad")


def test_allow_unused():
    ours, theirs = leaves((2,), (2,), (2,))

    def unused(m, x, y, z, **kwargs):
        return m.autograd.grad((x * z).sum(), [x, y, z], **kwargs)

    got = unused(minitorch, *ours, allow_unused=True)
    assert_same(got, unused(torch, *theirs, allow_unused=True), "gradients")
    assert_same_error(lambda m: unused(m, *(ours if m is minitorch else theirs)))


GRAD_ERRORS = {
    "input_without_grad": lambda m: m.autograd.grad(
        (m.ones(2, requires_grad=True) * m.ones(2)).sum(), m.ones(2)
    ),
    "output_without_grad": lambda m: m.autograd.grad(
        m.ones(2).sum(), m.ones(2, requires_grad=True)
    ),
    "second_output_without_grad": lambda m: m.autograd.grad(
        [m.ones(2, requires_grad=True).sum(), m.ones(2).sum()], m.ones(2, requires_grad=True)
    ),
    "nothing_requires_grad": lambda m: m.autograd.grad(m.ones(2).sum(), m.ones(2)),
    "no_inputs": lambda m: m.autograd.grad((m.ones(2, requires_grad=True) * 2).sum(), []),
    "non_scalar_output": lambda m: (
        lambda x: m.autograd.grad(x * 2, x)
    )(m.ones(2, requires_grad=True)),
    "second_time": lambda m: (
        lambda x: [m.autograd.grad(y, x) for y in [(x.exp()).sum()] * 2]
    )(m.ones(2, requires_grad=True)),
}


@pytest.mark.parametrize("case", sorted(GRAD_ERRORS))
def test_grad_errors_are_torchs(case):
    assert_same_error(GRAD_ERRORS[case])


def test_grad_retain_graph_allows_a_second_call():
    (x,), _ = leaves((3,))
    out = x.exp().sum()
    first = minitorch.autograd.grad(out, x, retain_graph=True)
    second = minitorch.autograd.grad(out, x)
    assert_same(second, first, "second call")


def test_backward_of_several_tensors_matches_torch():
    ours, theirs = leaves((3,), (3,))
    weights = RNG.normal(size=3)

    def run(m, x, y):
        x.grad = m.ones(3, dtype=m.float64)  # backward adds to what is there
        m.autograd.backward([x * y, (x.exp() * y).sum()], [m.tensor(weights), None])
        return x.grad, y.grad

    assert_same(run(minitorch, *ours), run(torch, *theirs), "grads")


def test_backward_of_one_tensor_is_tensor_backward():
    (x,), (tx,) = leaves((2, 3))
    minitorch.autograd.backward((x.tanh() ** 2).sum())
    torch.autograd.backward((tx.tanh() ** 2).sum())
    assert_same([x.grad], [tx.grad], "grad")


@pytest.mark.parametrize("retained", [False, True])
def test_backward_with_inputs_fills_only_those(retained):
    ours, theirs = leaves((3,), (3,))

    def run(m, x, w):
        hidden = x * w
        if retained:
            hidden.retain_grad()
        m.autograd.backward((hidden * hidden).sum(), inputs=[hidden, x])
        with warnings.catch_warnings():  # torch warns on reading a non-leaf's .grad
            warnings.simplefilter("ignore")
            return x.grad, w.grad, hidden.grad

    assert_same(run(minitorch, *ours), run(torch, *theirs), "grads")


BACKWARD_ERRORS = {
    "empty_inputs": lambda m: m.autograd.backward(
        (m.ones(2, requires_grad=True) * 2).sum(), inputs=[]
    ),
    "output_without_grad": lambda m: m.autograd.backward(m.ones(2).sum()),
    "second_output_without_grad": lambda m: m.autograd.backward(
        [m.ones(2, requires_grad=True).sum(), m.ones(2).sum()]
    ),
    "wrong_grad_shape": lambda m: m.autograd.backward(
        m.ones(2, requires_grad=True) * 2, m.ones(3)
    ),
}


@pytest.mark.parametrize("case", sorted(BACKWARD_ERRORS))
def test_backward_errors_are_torchs(case):
    assert_same_error(BACKWARD_ERRORS[case])
