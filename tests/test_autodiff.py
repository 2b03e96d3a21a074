"""Module 1: the graph engine of `minitorch.autodiff`.

`central_difference` is checked on functions whose derivatives are known in
closed form. `topological_sort` and `backpropagate` are checked twice: on a
minimal hand-written variable class (the engine must know nothing about
`Scalar`), and on random graphs of Scalars with shared sub-expressions.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minitorch import Context, Scalar, backpropagate, central_difference, topological_sort

FEW = settings(max_examples=40, deadline=None)


# ---------------------------------------------------------------------------
# Task 1.1: central difference
# ---------------------------------------------------------------------------


@pytest.mark.task1_1
@FEW
@given(st.floats(min_value=-10.0, max_value=10.0))
def test_central_difference_of_a_cube(x: float) -> None:
    got = central_difference(lambda v: v**3, x)
    expected = 3.0 * x**2  # d/dx x^3 = 3x^2
    assert math.isclose(got, expected, rel_tol=1e-5, abs_tol=1e-5), f"at x={x}: {got} != {expected}"


@pytest.mark.task1_1
@FEW
@given(
    st.floats(min_value=-3.0, max_value=3.0),
    st.floats(min_value=-3.0, max_value=3.0),
    st.floats(min_value=-3.0, max_value=3.0),
)
def test_central_difference_picks_the_argument(x: float, y: float, z: float) -> None:
    def f(a: float, b: float, c: float) -> float:
        return a * b**2 + math.sin(c)

    # df/da = b^2, df/db = 2ab, df/dc = cos c
    for arg, expected in enumerate([y**2, 2.0 * x * y, math.cos(z)]):
        got = central_difference(f, x, y, z, arg=arg)
        assert math.isclose(got, expected, rel_tol=1e-5, abs_tol=1e-6), (
            f"arg={arg} at {(x, y, z)}: {got} != {expected}"
        )


@pytest.mark.task1_1
def test_central_difference_is_central_and_uses_epsilon() -> None:
    # For x^3 the central difference is exactly 3x^2 + eps^2; a one-sided
    # difference would give 3x^2 + 3x eps + eps^2.
    got = central_difference(lambda v: v**3, 2.0, epsilon=0.1)
    assert math.isclose(got, 12.01, rel_tol=1e-12), f"{got} != 12.01"
    # For x^2 it is exact: ((x + e)^2 - (x - e)^2) / 2e = 2x
    got = central_difference(lambda v: v * v, 1.0, epsilon=0.25)
    assert math.isclose(got, 2.0, rel_tol=1e-12), f"{got} != 2.0"


@pytest.mark.task1_1
def test_central_difference_leaves_other_arguments_alone() -> None:
    seen = []

    def f(a: float, b: float) -> float:
        seen.append(b)
        return a * b

    assert math.isclose(central_difference(f, 4.0, 5.0, arg=0), 5.0, rel_tol=1e-8)
    assert seen == [5.0, 5.0], f"the other argument was changed: {seen}"


def test_central_difference_rejects_an_out_of_range_argument() -> None:
    with pytest.raises(IndexError, match="arg=2"):
        central_difference(lambda a, b: a + b, 1.0, 2.0, arg=2)


# ---------------------------------------------------------------------------
# Task 1.4: topological sort and backpropagation on a minimal variable class
# ---------------------------------------------------------------------------

_node_ids = itertools.count()


class LinearNode:
    """A graph node whose value is $\\sum_i w_i \\cdot parent_i$ (a leaf if no parents).

    It implements only the `Variable` protocol of `autodiff.py` and counts
    how often the engine asks it for its chain rule.
    """

    def __init__(self, parents=(), weights=(), constant: bool = False) -> None:
        self.unique_id = next(_node_ids)
        self.parents = tuple(parents)
        self.weights = tuple(weights)
        self.constant = constant
        self.derivative = None
        self.chain_rule_calls = 0

    def is_leaf(self) -> bool:
        return not self.parents

    def is_constant(self) -> bool:
        return self.constant

    def chain_rule(self, d_output: float):
        self.chain_rule_calls += 1
        return [
            (parent, d_output * weight)
            for parent, weight in zip(self.parents, self.weights, strict=True)
            if not parent.is_constant()
        ]

    def accumulate_derivative(self, d: float) -> None:
        self.derivative = d if self.derivative is None else self.derivative + d


def diamond():
    """x, y leaves; k a constant; a = 2x + 3y + 7k; b = -a + 4x; c = 5a + 6b.

    c = 5a - 6a + 24x = -(2x + 3y + 7k) + 24x, so dc/dx = 22 and dc/dy = -3.
    """
    x, y, k = LinearNode(), LinearNode(), LinearNode(constant=True)
    a = LinearNode((x, y, k), (2.0, 3.0, 7.0))
    b = LinearNode((a, x), (-1.0, 4.0))
    c = LinearNode((a, b), (5.0, 6.0))
    return x, y, k, a, b, c


@pytest.mark.task1_4
def test_backpropagate_on_a_diamond_of_plain_variables() -> None:
    x, y, k, a, b, c = diamond()
    backpropagate(c, 2.0)
    assert x.derivative == 44.0, f"dc/dx * 2 = {x.derivative}, expected 44"
    assert y.derivative == -6.0, f"dc/dy * 2 = {y.derivative}, expected -6"
    assert k.derivative is None, "a constant must not receive a derivative"
    calls = {"a": a.chain_rule_calls, "b": b.chain_rule_calls, "c": c.chain_rule_calls}
    # a is used twice, but its derivative must be summed before it is passed on
    assert calls == {"a": 1, "b": 1, "c": 1}, f"chain_rule calls: {calls}"


@pytest.mark.task1_4
def test_topological_sort_of_plain_variables() -> None:
    x, y, k, a, b, c = diamond()
    order = topological_sort(c)
    ids = [node.unique_id for node in order]
    # c needs a and b; b needs a; a needs x and y; k is a constant
    assert ids[:3] == [c.unique_id, b.unique_id, a.unique_id], f"order {ids}"
    assert sorted(ids[3:]) == sorted([x.unique_id, y.unique_id]), f"order {ids}"


@pytest.mark.task1_4
def test_backpropagate_from_a_leaf_and_from_a_constant() -> None:
    leaf = LinearNode()
    backpropagate(leaf, 3.0)
    assert leaf.derivative == 3.0
    assert topological_sort(LinearNode(constant=True)) == []


# ---------------------------------------------------------------------------
# Task 1.4 on graphs of Scalars
# ---------------------------------------------------------------------------

BUILDERS = [
    lambda a, b: a + b,
    lambda a, b: a * b,
    lambda a, b: a - b,
    lambda a, b: a * 0.5,  # a Python number becomes a constant
    lambda a, b: 2.0 - b,
    lambda a, b: -a,
]


def reachable_non_constants(root: Scalar) -> dict[int, Scalar]:
    """Every non-constant Scalar that `root` depends on, by its own walk of `.inputs`."""
    found: dict[int, Scalar] = {}
    todo = [root]
    while todo:
        node = todo.pop()
        if node.is_constant() or node.unique_id in found:
            continue
        found[node.unique_id] = node
        todo.extend(node.inputs or ())
    return found


@pytest.mark.task1_4
@FEW
@given(st.data())
def test_topological_sort_order_on_random_graphs(data: st.DataObject) -> None:
    nodes = [Scalar(0.5 + i) for i in range(data.draw(st.integers(1, 4), label="leaves"))]
    for _ in range(data.draw(st.integers(0, 25), label="operations")):
        build = data.draw(st.sampled_from(BUILDERS))
        # indices may repeat and nodes may be reused: shared sub-expressions
        a = nodes[data.draw(st.integers(0, len(nodes) - 1))]
        b = nodes[data.draw(st.integers(0, len(nodes) - 1))]
        nodes.append(build(a, b))
    root = nodes[data.draw(st.integers(0, len(nodes) - 1), label="root")]

    order = topological_sort(root)
    position = {node.unique_id: i for i, node in enumerate(order)}
    assert order[0] is root, "the variable itself comes first"
    assert len(position) == len(order), "a node appears more than once"
    assert all(not node.is_constant() for node in order), "constants must be left out"
    assert set(position) == set(reachable_non_constants(root)), "not every dependency is listed"
    for node in order:
        for parent in node.inputs or ():
            if not parent.is_constant():
                assert position[parent.unique_id] > position[node.unique_id], (
                    f"{parent} (input) sorted before {node}, which was computed from it"
                )


@pytest.mark.task1_4
@FEW
@given(st.floats(min_value=-10.0, max_value=10.0))
def test_shared_subexpression_gets_the_summed_gradient(a_value: float) -> None:
    a = Scalar(a_value)
    b = a + a
    c = b * b
    c.backward()
    # c = (2a)^2 = 4a^2, so dc/da = 8a
    assert math.isclose(a.grad, 8.0 * a_value, rel_tol=1e-12, abs_tol=1e-12), (
        f"dc/da = {a.grad}, expected {8.0 * a_value}"
    )


@pytest.mark.task1_4
def test_reused_node_several_levels_down() -> None:
    x = Scalar(3.0)
    y = x * x  # y = x^2
    z = y * x + y  # z = x^3 + x^2
    w = z * y  # w = x^5 + x^4, dw/dx = 5x^4 + 4x^3 = 405 + 108 at x = 3
    w.backward()
    assert x.grad == 513.0, f"dw/dx = {x.grad}, expected 513"


@pytest.mark.task1_4
@pytest.mark.slow
def test_a_million_node_chain_backpropagates_without_recursion() -> None:
    x = Scalar(0.5)
    y = x
    for _ in range(1_000_000):
        y = -y  # an even number of negations: y = x, dy/dx = 1
    assert len(topological_sort(y)) == 1_000_001
    y.backward()
    assert x.grad == 1.0, f"dy/dx = {x.grad}, expected 1.0"


# ---------------------------------------------------------------------------
# Context
# ---------------------------------------------------------------------------


def test_context_saves_values_for_backward() -> None:
    ctx = Context()
    assert ctx.saved_values == ()
    ctx.save_for_backward(1.0, 2.0)
    assert ctx.saved_values == (1.0, 2.0)
    assert ctx.saved_tensors == (1.0, 2.0)
    assert Context().saved_values == (), "contexts must not share saved values"


def test_context_under_no_grad_saves_nothing() -> None:
    ctx = Context()
    ctx.no_grad = True
    ctx.save_for_backward(1.0, 2.0)
    assert ctx.saved_values == ()
