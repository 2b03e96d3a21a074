"""Module 1: `Scalar` and its differentiable functions.

Every scalar function is checked forward against the `math` module and
backward against a central difference of that same math (not of the
library's own forward), on domains where the function is smooth. A random
expression is also run in PyTorch (float64) when it is installed, and values
and leaf gradients compared, as micrograd's tests do.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from minitorch import Scalar, central_difference, derivative_check
from minitorch.autodiff import Context
from minitorch.scalar import scalar_functions as sf

FEW = settings(max_examples=25, deadline=None)

real = st.floats(min_value=-10.0, max_value=10.0)
small = st.floats(min_value=-5.0, max_value=5.0)
positive = st.floats(min_value=0.1, max_value=10.0)
away_from_zero = st.one_of(
    st.floats(min_value=-10.0, max_value=-0.1), st.floats(min_value=0.1, max_value=10.0)
)


def anything(*values: float) -> bool:
    return True


def apart(a: float, b: float) -> bool:
    """Far enough apart that a central difference does not cross the step of a comparison."""
    return abs(a - b) > 1e-3


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


@dataclass(frozen=True)
class Case:
    """A scalar function: as Scalar code, as plain math, and where to test it."""

    name: str
    on_scalars: Callable[..., Scalar]
    on_floats: Callable[..., float]
    domains: tuple[st.SearchStrategy[float], ...]
    valid: Callable[..., bool] = anything


CASES = [
    # one argument
    Case("neg", lambda a: -a, lambda a: -a, (real,)),
    Case("log", lambda a: a.log(), math.log, (positive,)),
    Case("exp", lambda a: a.exp(), math.exp, (real,)),
    Case("sigmoid", lambda a: a.sigmoid(), sigmoid, (real,)),
    Case("relu", lambda a: a.relu(), lambda a: max(a, 0.0), (away_from_zero,)),
    Case("tanh", lambda a: a.tanh(), math.tanh, (small,)),
    Case("pow_number_2", lambda a: a**2, lambda a: a * a, (real,)),
    Case("pow_number_3", lambda a: a**3.0, lambda a: a * a * a, (real,)),
    Case("pow_number_half", lambda a: a**0.5, math.sqrt, (positive,)),
    Case("pow_number_negative", lambda a: a**-1.5, lambda a: 1.0 / a**1.5, (positive,)),
    # Python numbers on the right
    Case("add_number", lambda a: a + 3.0, lambda a: a + 3.0, (real,)),
    Case("sub_number", lambda a: a - 3.0, lambda a: a - 3.0, (real,)),
    Case("mul_number", lambda a: a * 3.0, lambda a: a * 3.0, (real,)),
    Case("div_number", lambda a: a / 4.0, lambda a: a / 4.0, (real,)),
    Case(
        "lt_number", lambda a: a < 0.5, lambda a: float(a < 0.5), (real,), lambda a: apart(a, 0.5)
    ),
    Case(
        "gt_number", lambda a: a > 0.5, lambda a: float(a > 0.5), (real,), lambda a: apart(a, 0.5)
    ),
    # Python numbers on the left
    Case("radd", lambda a: 3.0 + a, lambda a: 3.0 + a, (real,)),
    Case("rsub", lambda a: 3.0 - a, lambda a: 3.0 - a, (real,)),
    Case("rmul", lambda a: 3.0 * a, lambda a: 3.0 * a, (real,)),
    Case("rtruediv", lambda a: 3.0 / a, lambda a: 3.0 / a, (away_from_zero,)),
    Case("rpow", lambda a: 2.0**a, lambda a: 2.0**a, (small,)),
    # two arguments
    Case("add", lambda a, b: a + b, lambda a, b: a + b, (real, real)),
    Case("sub", lambda a, b: a - b, lambda a, b: a - b, (real, real)),
    Case("mul", lambda a, b: a * b, lambda a, b: a * b, (real, real)),
    Case("div", lambda a, b: a / b, lambda a, b: a / b, (real, away_from_zero)),
    Case(
        "pow",
        lambda a, b: a**b,
        lambda a, b: a**b,
        (st.floats(min_value=0.5, max_value=3.0), st.floats(min_value=-2.0, max_value=2.0)),
    ),
    Case("lt", lambda a, b: a < b, lambda a, b: float(a < b), (real, real), apart),
    Case("gt", lambda a, b: a > b, lambda a, b: float(a > b), (real, real), apart),
    Case("eq", lambda a, b: a == b, lambda a, b: float(a == b), (real, real), apart),
]


def draw_values(data: st.DataObject, case: Case) -> list[float]:
    values = [data.draw(domain, label=f"x{i}") for i, domain in enumerate(case.domains)]
    assume(case.valid(*values))
    return values


# ---------------------------------------------------------------------------
# Task 1.2: forward
# ---------------------------------------------------------------------------


@pytest.mark.task1_2
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
@FEW
@given(data=st.data())
def test_forward_matches_math(case: Case, data: st.DataObject) -> None:
    values = draw_values(data, case)
    out = case.on_scalars(*[Scalar(v) for v in values])
    expected = case.on_floats(*values)
    assert isinstance(out, Scalar), f"{case.name} returned {type(out).__name__}, not Scalar"
    assert math.isclose(out.data, expected, rel_tol=1e-12, abs_tol=1e-12), (
        f"{case.name}{tuple(values)} = {out.data}, expected {expected}"
    )


@pytest.mark.task1_2
def test_comparisons_by_hand() -> None:
    two, three = Scalar(2.0), Scalar(3.0)
    results = {
        "2 < 3": (two < three).data,
        "3 < 2": (three < two).data,
        "2 > 3": (two > three).data,
        "3 > 2": (three > two).data,
        "2 == 2": (two == Scalar(2.0)).data,
        "2 == 3": (two == three).data,
        "2 == 2.0 (number)": (two == 2.0).data,
    }
    assert results == {
        "2 < 3": 1.0,
        "3 < 2": 0.0,
        "2 > 3": 0.0,
        "3 > 2": 1.0,
        "2 == 2": 1.0,
        "2 == 3": 0.0,
        "2 == 2.0 (number)": 1.0,
    }


@pytest.mark.task1_2
def test_forward_saves_what_backward_needs() -> None:
    ctx = Context()
    assert sf.Mul.forward(ctx, 2.0, 5.0) == 10.0
    assert ctx.saved_values, "Mul.forward must save its inputs for backward"


# ---------------------------------------------------------------------------
# Task 1.5: backward, against central differences
# ---------------------------------------------------------------------------


@pytest.mark.task1_5
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
@FEW
@given(data=st.data())
def test_backward_matches_central_difference(case: Case, data: st.DataObject) -> None:
    values = draw_values(data, case)
    inputs = [Scalar(v) for v in values]
    case.on_scalars(*inputs).backward()
    for i, x in enumerate(inputs):
        expected = central_difference(case.on_floats, *values, arg=i)
        assert x.grad is not None, f"{case.name}: argument {i} got no gradient"
        assert math.isclose(x.grad, expected, rel_tol=1e-4, abs_tol=1e-5), (
            f"{case.name}{tuple(values)}: d/d(arg {i}) = {x.grad}, central difference {expected}"
        )


@pytest.mark.task1_5
@pytest.mark.parametrize(
    ("name", "build", "at", "expected"),
    [
        ("x**2 at 0", lambda x: x**2.0, 0.0, 0.0),
        ("x**0.5 at 4", lambda x: x**0.5, 4.0, 0.25),  # 1 / (2 sqrt x)
        ("2**x at 3", lambda x: 2.0**x, 3.0, 8.0 * math.log(2.0)),  # 2^x ln 2
        ("relu at its kink", lambda x: x.relu(), 0.0, 0.0),  # 0, as PyTorch
        ("1/x at -2", lambda x: 1.0 / x, -2.0, -0.25),  # -1/x^2
        ("log at 0.5", lambda x: x.log(), 0.5, 2.0),  # 1/x
        ("sigmoid at 0", lambda x: x.sigmoid(), 0.0, 0.25),  # s (1 - s)
        ("tanh at 0", lambda x: x.tanh(), 0.0, 1.0),  # 1 - tanh^2
    ],
)
def test_backward_by_hand(name: str, build, at: float, expected: float) -> None:
    x = Scalar(at)
    build(x).backward()
    assert math.isclose(x.grad, expected, rel_tol=1e-12, abs_tol=1e-15), (
        f"{name}: {x.grad}, expected {expected}"
    )


@pytest.mark.task1_5
def test_backward_of_functions_directly() -> None:
    # each backward returns one derivative per input, scaled by d_output = 2
    ctx = Context()
    sf.Div.forward(ctx, 3.0, 4.0)
    assert sf.Div.backward(ctx, 2.0) == (0.5, -0.375)  # 2/b, -2a/b^2
    ctx = Context()
    sf.Pow.forward(ctx, 3.0, 2.0)
    d_a, d_b = sf.Pow.backward(ctx, 2.0)
    assert d_a == 12.0, f"d/da a^b = b a^(b-1): 2 * 2 * 3 = 12, got {d_a}"
    assert math.isclose(d_b, 18.0 * math.log(3.0)), f"d/db a^b = a^b ln a: got {d_b}"


# ---------------------------------------------------------------------------
# Task 1.3: the chain rule and gradient accumulation
# ---------------------------------------------------------------------------


@pytest.mark.task1_3
def test_chain_rule_pairs_each_input_with_its_derivative() -> None:
    x, w = Scalar(2.0), Scalar(5.0)
    y = x * w
    pairs = list(y.chain_rule(3.0))
    assert len(pairs) == 2, f"expected one pair per input, got {pairs}"
    assert pairs[0][0] is x and pairs[0][1] == 15.0, f"(x, 3 w) expected, got {pairs[0]}"
    assert pairs[1][0] is w and pairs[1][1] == 6.0, f"(w, 3 x) expected, got {pairs[1]}"


@pytest.mark.task1_3
def test_chain_rule_leaves_out_constants() -> None:
    x = Scalar(2.0)
    pairs = list((x * 3.0).chain_rule(1.0))
    assert len(pairs) == 1 and pairs[0][0] is x and pairs[0][1] == 3.0, f"got {pairs}"
    pairs = list((4.0 - x).chain_rule(2.0))
    assert len(pairs) == 1 and pairs[0][0] is x and pairs[0][1] == -2.0, f"got {pairs}"


@pytest.mark.task1_3
def test_accumulate_derivative_adds_up() -> None:
    leaf = Scalar(1.0)
    assert leaf.grad is None
    leaf.accumulate_derivative(2.0)
    leaf.accumulate_derivative(3.5)
    assert leaf.grad == 5.5


@pytest.mark.task1_3
def test_backward_of_a_polynomial() -> None:
    x = Scalar(2.0)
    y = x * x + 3.0 * x
    assert x.grad is None, "grad is None before any backward pass"
    y.backward()
    assert x.grad == 7.0, f"dy/dx = 2x + 3 = 7, got {x.grad}"


@pytest.mark.task1_3
def test_gradients_accumulate_over_backward_passes_until_reset() -> None:
    x = Scalar(3.0)
    (x * x).backward()
    (x * x).backward()
    assert x.grad == 12.0, f"two passes of d(x^2)/dx = 6 should add to 12, got {x.grad}"
    x.grad = None
    (x * 4.0).backward()
    assert x.grad == 4.0, f"after resetting grad to None, got {x.grad}"


@pytest.mark.task1_3
def test_backward_scales_by_d_output() -> None:
    x = Scalar(3.0)
    (x * x).backward(0.5)
    assert x.grad == 3.0, f"0.5 * d(x^2)/dx = 3, got {x.grad}"


@pytest.mark.task1_3
def test_only_leaves_collect_gradients() -> None:
    x, unused = Scalar(2.0), Scalar(7.0)
    hidden = x * 3.0
    y = hidden + 2.0
    y.backward()
    assert x.grad == 3.0, f"dy/dx = 3, got {x.grad}"
    assert unused.grad is None, "a leaf the output does not depend on keeps grad None"
    assert hidden.grad is None and y.grad is None, "intermediate results keep grad None"
    constants = [hidden.inputs[1], y.inputs[1]]
    assert [c.data for c in constants] == [3.0, 2.0]
    assert all(c.is_constant() and c.grad is None for c in constants), (
        "Python numbers become constants and get no gradient"
    )


# ---------------------------------------------------------------------------
# derivative_check and the Scalar type itself
# ---------------------------------------------------------------------------


def test_derivative_check_accepts_correct_derivatives() -> None:
    def f(a: Scalar, b: Scalar) -> Scalar:
        return (a * b + a.exp()).sigmoid() / (b * b + 1.0)

    derivative_check(f, Scalar(0.3), Scalar(-1.2))


@pytest.mark.parametrize(
    ("wrong_backward", "argument"),
    [
        # swapped: returns (d a, d b) instead of (d b, d a); a != b, so argument 0 is wrong first
        (lambda ctx, d: (d * ctx.saved_values[0], d * ctx.saved_values[1]), "argument 0"),
        # right for a, zero for b
        (lambda ctx, d: (d * ctx.saved_values[1], 0.0), "argument 1"),
    ],
)
def test_derivative_check_names_the_wrong_argument(monkeypatch, wrong_backward, argument) -> None:
    monkeypatch.setattr(sf.Mul, "backward", staticmethod(wrong_backward))
    with pytest.raises(AssertionError, match=argument):
        derivative_check(lambda a, b: a * b, Scalar(2.0), Scalar(5.0))


def test_scalar_holds_a_float() -> None:
    x = Scalar(3)
    assert type(x.data) is float and x.data == 3.0
    assert repr(x) == "Scalar(3.0)"
    assert float(Scalar(2.5)) == 2.5
    assert x.is_leaf() and not x.is_constant()
    assert not (x * 2.0).is_leaf()


def test_unsupported_operands_raise_type_error() -> None:
    with pytest.raises(TypeError, match="str"):
        _ = Scalar(1.0) + "a"
    with pytest.raises(TypeError, match="list"):
        _ = [1.0] * Scalar(1.0)


def test_bools_are_numbers_and_equality_with_other_types_is_false() -> None:
    # as torch.tensor(2.) + True == 3. and torch.tensor(1.) == None is False
    assert (Scalar(2.0) + True).data == 3.0
    assert (Scalar(1.0) == None) is False  # noqa: E711
    assert (Scalar(1.0) == "1") is False


# ---------------------------------------------------------------------------
# Against PyTorch, when it is installed
# ---------------------------------------------------------------------------

# Each builder maps inputs in [-3, 3] back into [-3, 3], so that a long random
# chain of them neither overflows nor underflows; all of them work on both
# minitorch Scalars and torch tensors.
BOUNDED_BUILDERS = [
    lambda a, b: (a + b) * 0.5,
    lambda a, b: (a - b) * 0.5,
    lambda a, b: a * b.sigmoid(),
    lambda a, b: a * b.tanh(),
    lambda a, b: a / (b * b + 1.0),
    lambda a, b: (a.sigmoid() + 0.5) ** (b * 0.5),
    lambda a, b: a.relu(),
    lambda a, b: -a,
    lambda a, b: (a * a + 1.0).log(),
    lambda a, b: a.tanh().exp(),
    lambda a, b: (1.0 - a) * 0.5,
    lambda a, b: 3.0 / (a * a + 1.0),
    lambda a, b: a.tanh() ** 2,
    lambda a, b: 2.0 ** a.tanh(),
    lambda a, b: a.sigmoid() ** 3,
]


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(8))
def test_random_expression_matches_torch(seed: int) -> None:
    torch = pytest.importorskip("torch")
    rng = random.Random(seed)
    start = [rng.uniform(-2.0, 2.0) for _ in range(3)]
    ours = [Scalar(v) for v in start]
    theirs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in start]
    ours_nodes, theirs_nodes = list(ours), list(theirs)
    for _ in range(30):
        build = rng.choice(BOUNDED_BUILDERS)
        i, j = rng.randrange(len(ours_nodes)), rng.randrange(len(ours_nodes))
        ours_nodes.append(build(ours_nodes[i], ours_nodes[j]))
        theirs_nodes.append(build(theirs_nodes[i], theirs_nodes[j]))
    # summing every node makes every leaf reach the output, some along many paths
    our_out, their_out = ours_nodes[0], theirs_nodes[0]
    for our_node, their_node in zip(ours_nodes[1:], theirs_nodes[1:], strict=True):
        our_out, their_out = our_out + our_node, their_out + their_node
    our_out.backward()
    their_out.backward()

    assert math.isclose(our_out.data, their_out.item(), rel_tol=1e-10), (
        f"seed {seed}: value {our_out.data} vs torch {their_out.item()}"
    )
    for k, (our_leaf, their_leaf) in enumerate(zip(ours, theirs, strict=True)):
        assert math.isclose(our_leaf.grad, their_leaf.grad.item(), rel_tol=1e-9, abs_tol=1e-12), (
            f"seed {seed}, leaf {k}: grad {our_leaf.grad} vs torch {their_leaf.grad.item()}"
        )
