"""Tensor autograd against PyTorch: node names, gradients, messages, and introductory programs.

The introductory programs are the autograd examples that primers on PyTorch show (the gradient
of a sum of squares, the autograd tutorial's mean of $3 (x + 2)^2$, a linear regression trained
by hand): both libraries must print the same text. Skipped when torch is not installed.
"""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest
from helpers import types_named_for_the_test_device

import minitorch

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)


def inputs_for(shapes):
    """Values away from 0 and from each other, with random signs."""
    arrays = []
    for shape in shapes:
        size = int(np.prod(shape, dtype=np.int64))
        magnitudes = RNG.permutation(np.linspace(0.5, 2.0, max(size, 1)))[:size]
        arrays.append((magnitudes * RNG.choice([-1.0, 1.0], size=size)).reshape(shape))
    return arrays


# (function of (library, *tensors), input shapes); the node names come from torch itself
CASES = {
    "add": (lambda m, x, y: x + y, [(2, 3), (3,)]),
    "add_number": (lambda m, x: x + 1, [(3,)]),
    "sub": (lambda m, x, y: x - y, [(2, 1), (1, 3)]),
    "mul": (lambda m, x, y: x * y, [(2, 3), (2, 1)]),
    "div": (lambda m, x, y: x / y, [(2, 3), (3,)]),
    "pow": (lambda m, x: x**2, [(3,)]),
    "pow_tensor": (lambda m, x, y: x.abs() ** y, [(3,), (3,)]),
    "neg": (lambda m, x: -x, [(3,)]),
    "exp": (lambda m, x: x.exp(), [(2, 3)]),
    "log": (lambda m, x: x.abs().log(), [(3,)]),
    "sqrt": (lambda m, x: x.abs().sqrt(), [(3,)]),
    "sigmoid": (lambda m, x: x.sigmoid(), [(3,)]),
    "tanh": (lambda m, x: x.tanh(), [(3,)]),
    "relu": (lambda m, x: x.relu(), [(4,)]),
    "maximum": (lambda m, x, y: m.maximum(x, y), [(3,), (2, 3)]),
    "clamp": (lambda m, x: x.clamp(-1, 1), [(4,)]),
    "where": (lambda m, x, y: m.where(x > 0, x, y), [(2, 3), (3,)]),
    "sum": (lambda m, x: x.sum(), [(2, 3)]),
    "sum_dim": (lambda m, x: x.sum(0), [(2, 3)]),
    "mean": (lambda m, x: x.mean(), [(2, 3)]),
    "mean_dim": (lambda m, x: x.mean(1, keepdim=True), [(2, 3)]),
    "prod_dim": (lambda m, x: x.prod(1), [(2, 3)]),
    "max": (lambda m, x: x.max(), [(2, 3)]),
    "max_dim": (lambda m, x: x.max(1)[0], [(2, 3)]),
    "min_dim": (lambda m, x: x.min(0).values, [(2, 3)]),
    "softmax": (lambda m, x: x.softmax(1), [(2, 3)]),
    "log_softmax": (lambda m, x: x.log_softmax(0), [(2, 3)]),
    "mm": (lambda m, x, y: x @ y, [(2, 3), (3, 4)]),
    "mv": (lambda m, x, y: x @ y, [(2, 3), (3,)]),
    "dot": (lambda m, x, y: x @ y, [(3,), (3,)]),
    "t": (lambda m, x: x.t(), [(2, 3)]),
    "T": (lambda m, x: x.T, [(2, 3)]),
    "view": (lambda m, x: x.view(6), [(2, 3)]),
    "reshape_copy": (lambda m, x: x.t().reshape(6), [(2, 3)]),
    "permute": (lambda m, x: x.permute(2, 0, 1), [(2, 3, 2)]),
    "transpose": (lambda m, x: x.transpose(0, 1), [(2, 3)]),
    "expand": (lambda m, x: x.expand(2, 3), [(3,)]),
    "squeeze": (lambda m, x: x.squeeze(), [(1, 3)]),
    "squeeze_dim": (lambda m, x: x.squeeze(0), [(1, 3)]),
    "unsqueeze": (lambda m, x: x.unsqueeze(1), [(3,)]),
    "select": (lambda m, x: x[1], [(2, 3)]),
    "slice": (lambda m, x: x[:, 1:], [(2, 3)]),
    "index_list": (lambda m, x: x[[0, 1, 0]], [(2, 3)]),
    "mask": (lambda m, x: x[x > 0], [(2, 3)]),
    "clone": (lambda m, x: x.clone(), [(3,)]),
    "to_double": (lambda m, x: x.to(m.float64), [(3,)]),
    "remainder": (lambda m, x: x % 0.7, [(3,)]),
    "network": (lambda m, x, w: ((x @ w).relu().sum(1) ** 2).mean(), [(2, 3), (3, 4)]),
    "in_place": (lambda m, x: (x * 2).add_(1).mul_(x), [(3,)]),
    "in_place_view": (lambda m, x: written_row(x), [(2, 3)]),
    "where_method": (lambda m, x, y: x.where(x > 0, y), [(2, 3), (3,)]),
    # a Python number on the left: recorded with the tensor first (2 * x), as a setting
    # of the node (1 - x, 2 ** x, x % 2: no edge for the number), or as 2 * (1 / x)
    "number_times": (lambda m, x: 2 * x, [(3,)]),
    "number_plus": (lambda m, x: 2 + x, [(3,)]),
    "number_minus": (lambda m, x: 1 - x, [(3,)]),
    "number_minus_alpha": (lambda m, x: m.sub(x, 1, alpha=2) - (1 - x * 2), [(3,)]),
    "number_power": (lambda m, x: 2**x, [(3,)]),
    "number_over": (lambda m, x: 2 / x, [(3,)]),
    "reciprocal": (lambda m, x: x.reciprocal(), [(3,)]),
    "remainder_tensor": (lambda m, x, y: x % y.abs(), [(3,), (3,)]),
    # keys of several parts: one view node per part
    "select_select": (lambda m, x: x[0, 1], [(2, 3)]),
    "select_slice": (lambda m, x: x[1:, 0], [(3, 2)]),
    "unsqueeze_select": (lambda m, x: x[None, 0], [(2, 3)]),
    "select_unsqueeze": (lambda m, x: x[:, None, 1], [(2, 3)]),
    "full_slices": (lambda m, x: x[:, :], [(2, 3)]),
    "ellipsis_select": (lambda m, x: x[..., 1, :], [(2, 3, 2)]),
    # vector @ matrix and batch @ matrix (or vector), as torch.matmul decomposes them
    "vector_matrix": (lambda m, x, w: x @ w, [(3,), (3, 4)]),
    "batch_matrix": (lambda m, x, w: x @ w, [(2, 2, 3), (3, 4)]),
    "batch_vector": (lambda m, x, v: x @ v, [(2, 2, 3), (3,)]),
    "strided_batch_matrix": (lambda m, x, w: x.transpose(1, 2) @ w, [(2, 3, 2), (3, 4)]),
}

# Graphs that differ from torch's below the top node: alpha (torch scales inside the Sub
# node, minitorch records a Mul) and CopySlices (torch's edges are the base's old history and
# the in-place op's other inputs, minitorch's the old history and the written values).
GRAPH_DIFFERS = {"number_minus_alpha", "in_place_view"}


def written_row(x):
    """Row 0 of `x * 1`, doubled in place: AsStrided over CopySlices over Mul."""
    y = x * 1
    row = y[0]
    row.mul_(2)
    return row


def name_chain(node) -> list[str]:
    """Names along the first input of every node, down to the leaf."""
    names = []
    while node is not None:
        names.append(node.name().split("::")[-1])
        node = node.next_functions[0][0] if node.next_functions else None
    return names


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_and_node_names_match_torch(name):
    fn, shapes = CASES[name]
    arrays = inputs_for(shapes)
    ours = [minitorch.tensor(a, dtype=minitorch.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, expected = fn(minitorch, *ours), fn(torch, *theirs)
    assert name_chain(out.grad_fn) == name_chain(expected.grad_fn)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    weights = RNG.uniform(0.5, 1.5, size=tuple(expected.shape))
    (out * minitorch.tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    for k, (mine, reference) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(
            mine.grad.numpy(), reference.grad.numpy(), rtol=1e-10, err_msg=f"gradient of input {k}"
        )


def graph_of(node):
    """`node`'s name and the graphs of its next functions (None where no gradient flows)."""
    if node is None:
        return None
    return (node.name().split("::")[-1], [graph_of(child) for child, _ in node.next_functions])


@pytest.mark.parametrize("name", sorted(set(CASES) - GRAPH_DIFFERS))
def test_whole_graph_matches_torch(name):
    fn, shapes = CASES[name]
    arrays = inputs_for(shapes)
    ours = fn(minitorch, *[minitorch.tensor(a, requires_grad=True) for a in arrays])
    theirs = fn(torch, *[torch.tensor(a, requires_grad=True) for a in arrays])
    assert graph_of(ours.grad_fn) == graph_of(theirs.grad_fn)


def message_of(action) -> str:
    with pytest.raises(Exception) as error:
        action()
    return str(error.value)


def torch_text(text: str) -> str:
    """Torch's message as minitorch writes it: our names, no pointer to anomaly mode."""
    text = text.replace("torch.", "minitorch.")
    return re.sub(r" Hint: enable anomaly detection.*$", "", text)


ERRORS = {
    "implicit": lambda m, x: (x * 2).backward(),
    "no_grad_fn": lambda m, x: m.ones(3).sum().backward(),
    "second_backward": lambda m, x: [y := (x**2).sum(), y.backward(), y.backward()],
    "leaf_in_place": lambda m, x: x.add_(1),
    "view_of_leaf": lambda m, x: x.__setitem__(0, 1.0),
    "numpy": lambda m, x: x.numpy(),
    "int_requires_grad": lambda m, x: m.tensor([1, 2]).requires_grad_(),
    "shape": lambda m, x: (x * 2).backward(m.ones(2)),
    "modified_output": lambda m, x: [y := x.exp(), z := y.sum(), y.add_(1), z.backward()],
    "modified_input": lambda m, x: [
        d := m.ones(3),
        z := (x * d).sum(),
        d.mul_(2),
        z.backward(),
    ],
    "non_leaf_flag": lambda m, x: (x * 2).requires_grad_(False),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_messages_match_torch(name):
    action = ERRORS[name]
    ours = message_of(lambda: action(minitorch, minitorch.ones(3, requires_grad=True)))
    expected = message_of(lambda: action(torch, torch.ones(3, requires_grad=True)))
    assert ours == types_named_for_the_test_device(torch_text(expected))


def test_non_leaf_grad_warning_matches_torch():
    with pytest.warns(UserWarning) as ours:
        _ = (minitorch.ones(1, requires_grad=True) * 2).grad
    with pytest.warns(UserWarning) as theirs:
        _ = (torch.ones(1, requires_grad=True) * 2).grad
    expected = re.sub(r" \(Triggered internally at .*\)$", "", str(theirs[0].message))
    assert str(ours[0].message) == expected


# ---------------------------------------------------------------------------
# Introductory autograd programs, run with both libraries from the same starting values
# ---------------------------------------------------------------------------


def run_printing(program, library) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        program(library)
    return re.sub(r"0x[0-9a-f]+", "0x", out.getvalue())


def intro_autograd(torch):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x**2).sum()
    y.backward()
    print(x.grad)  # dy/dx = 2x
    print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    print(f"y grad function: {type(y.grad_fn).__name__}")
    z = y * y * 3
    out = z.mean()
    out.backward()
    print(f"Gradient at x:\n{x.grad}")
    x = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
    print(f"Before: {x.requires_grad}")
    with torch.no_grad():
        y = x * 2
        print(f"Inside: {y.requires_grad}")


def intro_linear_regression(torch):
    X = torch.tensor([[1.0], [2.0], [3.0], [4.0]])  # noqa: N806 -- the example's names
    Y = torch.tensor([[3.0], [5.0], [7.0], [9.0]])  # noqa: N806
    # the example draws w and b with randn; both libraries start from the same values here
    w = torch.tensor([[0.3367]], requires_grad=True)
    b = torch.tensor([[0.1288]], requires_grad=True)
    learning_rate = 0.01
    for epoch in range(100):
        pred = X @ w + b
        loss = ((pred - Y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= learning_rate * w.grad
            b -= learning_rate * b.grad
            w.grad.zero_()
            b.grad.zero_()
        if (epoch + 1) % 20 == 0:
            print(f"Epoch {epoch + 1}: Loss = {loss.item():.4f}")
    print(f"\nLearned Weight: {w.item():.2f}")
    print(f"Learned Bias: {b.item():.2f}")
    print(repr(w.item()), repr(b.item()), w, b)


@pytest.mark.parametrize("program", [intro_autograd, intro_linear_regression])
def test_intro_program_prints_what_torch_prints(program):
    ours = run_printing(program, minitorch).replace(", device='cuda:0'", "")  # torch: on the cpu
    assert ours == run_printing(program, torch)
