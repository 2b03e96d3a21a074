"""Every differentiable tensor op: backward's gradients against central differences.

Inputs come from hypothesis: shapes that broadcast, layouts that are not
contiguous (permuted, sliced with steps, expanded), and both floating dtypes.
`minitorch.grad_check` compares backward's vector-Jacobian product with
central differences computed in float64, element by element.

Values stay away from the points where an op has a kink (relu and abs at 0,
ties of max), where a one-sided slope is as right as the other.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import FLOAT_DTYPES, broadcastable_shapes, examples, shapes

import minitorch
from minitorch.autograd.graph import sum_to

SETTINGS = settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SMALL = {"max_dims": 2}


def values(draw, shape: tuple, positive: bool) -> np.ndarray:
    """Distinct values with magnitude in [0.5, 2] on a grid of 1/128 (no ties for max/min)."""
    count = int(np.prod(shape, dtype=np.int64))
    picks = draw(st.lists(st.integers(0, 192), min_size=count, max_size=count, unique=True))
    magnitudes = 0.5 + np.array(picks, dtype=np.float64) / 128
    if not positive:
        signs = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=count, max_size=count))
        magnitudes = magnitudes * np.array(signs)
    return magnitudes.reshape(shape)


@st.composite
def leaves(draw, shape: tuple, dtype, positive: bool = False, expanded: bool = True):
    """A leaf tensor of `shape` requiring grad, in a contiguous or non-contiguous layout."""
    layouts = ["contiguous", "permuted", "sliced"] + (["expanded"] if expanded else [])
    layout = draw(st.sampled_from(layouts))
    if layout == "permuted" and len(shape) >= 2:
        base = values(draw, shape[::-1], positive)
        t = minitorch.tensor(base, dtype=dtype).permute(*range(len(shape) - 1, -1, -1))
    elif layout == "sliced" and shape:
        base = values(draw, (2 * shape[0],) + shape[1:], positive)
        t = minitorch.tensor(base, dtype=dtype)[::2]
    elif layout == "expanded" and shape:
        base = values(draw, (1,) + shape[1:], positive)
        t = minitorch.tensor(base, dtype=dtype).expand(*shape)
    else:
        t = minitorch.tensor(values(draw, shape, positive), dtype=dtype)
    return t.requires_grad_()


def check(fn, *inputs) -> None:
    assert minitorch.grad_check(fn, *inputs)


# ---------------------------------------------------------------------------
# Task 2.5: elementwise ops and broadcasting
# ---------------------------------------------------------------------------

UNARY = {
    "neg": (lambda x: -x, False),
    "abs": (lambda x: x.abs(), False),
    "exp": (lambda x: x.exp(), False),
    "log": (lambda x: x.log(), True),
    "sqrt": (lambda x: x.sqrt(), True),
    "sigmoid": (lambda x: x.sigmoid(), False),
    "tanh": (lambda x: x.tanh(), False),
    "relu": (lambda x: x.relu(), False),
    "pow_number": (lambda x: x**3, False),
    "number_pow": (lambda x: 2.0**x, False),
    "clamp": (lambda x: x.clamp(-0.9, 1.1), False),  # bounds off the value grid
    "number_minus": (lambda x: 1 - x, False),
    "number_over": (lambda x: 2 / x, False),
    "remainder": (lambda x: x % 0.7, True),
}

BINARY = {
    "add": (lambda x, y: x + y, False),
    "sub": (lambda x, y: x - y, False),
    "mul": (lambda x, y: x * y, False),
    "div": (lambda x, y: x / y, False),
    "pow": (lambda x, y: x**y, True),
    "maximum": (lambda x, y: minitorch.maximum(x, y), False),
    "minimum": (lambda x, y: minitorch.minimum(x, y), False),
    "where": (lambda x, y: minitorch.where(x > 0, x, y), False),
    "add_alpha": (lambda x, y: minitorch.add(x, y, alpha=2), False),
}


@pytest.mark.task2_5
def test_sum_to_sums_over_broadcast_dims():
    # (2, 3) ones summed to (3,): each column collects 2 rows; to (2, 1): each row 3 columns
    grad = minitorch.ones(2, 3)
    assert sum_to(grad, (3,)).tolist() == [2.0, 2.0, 2.0]
    assert sum_to(grad, (2, 1)).tolist() == [[3.0], [3.0]]
    assert sum_to(grad, ()).tolist() == 6.0
    assert sum_to(grad, (2, 3)).tolist() == grad.tolist()


@pytest.mark.task2_5
def test_broadcast_gradient_by_hand():
    # y = a + b with a (2, 3), b (3,): b[j] is used by both rows, so db[j] = 2 per unit weight
    a = minitorch.zeros(2, 3, requires_grad=True)
    b = minitorch.zeros(3, requires_grad=True)
    (a + b).sum().backward()
    assert a.grad.tolist() == [[1.0] * 3] * 2
    assert b.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.task2_5
@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(FLOAT_DTYPES))
def test_unary_gradient(name, data, dtype):
    fn, positive = UNARY[name]
    x = data.draw(leaves(data.draw(shapes(**SMALL)), dtype, positive))
    check(fn, x)


@pytest.mark.task2_5
@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(FLOAT_DTYPES))
def test_binary_gradient_with_broadcasting(name, data, dtype):
    fn, positive = BINARY[name]
    shape_x, shape_y = data.draw(broadcastable_shapes())
    x = data.draw(leaves(shape_x, dtype, positive, expanded=False))
    y = data.draw(leaves(shape_y, dtype, positive, expanded=False))
    check(fn, x, y)


@pytest.mark.task2_5
@SETTINGS
@given(data=st.data())
def test_mixed_dtypes_get_gradients_of_their_own_dtype(data):
    shape_x, shape_y = data.draw(broadcastable_shapes())
    x = data.draw(leaves(shape_x, minitorch.float32))
    y = data.draw(leaves(shape_y, minitorch.float64))
    check(lambda a, b: a * b, x, y)
    assert x.grad.dtype is minitorch.float32, f"x.grad is {x.grad.dtype}"
    assert y.grad.dtype is minitorch.float64, f"y.grad is {y.grad.dtype}"


# ---------------------------------------------------------------------------
# Task 2.6: reductions, views, matmul, indexing
# ---------------------------------------------------------------------------


def dims_of(data, shape: tuple):
    """None, or one dim, or a tuple of dims of `shape`."""
    if not shape:
        return None
    choice = data.draw(st.sampled_from(["none", "one", "many"]))
    if choice == "none":
        return None
    if choice == "one":
        return data.draw(st.integers(-len(shape), len(shape) - 1))
    return tuple(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))


REDUCTIONS = {
    "sum": lambda x, dim, keepdim: x.sum(dim, keepdim=keepdim),
    "mean": lambda x, dim, keepdim: x.mean(dim, keepdim=keepdim),
    "prod": lambda x, dim, keepdim: x.prod(dim, keepdim=keepdim),
}


@pytest.mark.task2_6
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(FLOAT_DTYPES), keepdim=st.booleans())
def test_reduction_gradient(name, data, dtype, keepdim):
    shape = data.draw(shapes(**SMALL))
    x = data.draw(leaves(shape, dtype))
    dim = dims_of(data, shape)
    check(lambda t: REDUCTIONS[name](t, dim, keepdim), x)


@pytest.mark.task2_6
@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(FLOAT_DTYPES), largest=st.booleans())
def test_max_and_min_gradients(data, dtype, largest):
    shape = data.draw(shapes(min_dims=1, **SMALL))
    x = data.draw(leaves(shape, dtype, expanded=False))  # expanded copies would tie
    dim = data.draw(st.integers(0, len(shape) - 1))
    keepdim = data.draw(st.booleans())
    extreme = minitorch.max if largest else minitorch.min
    check(lambda t: extreme(t), x)
    check(lambda t: extreme(t, dim, keepdim=keepdim)[0], x)


@pytest.mark.task2_6
@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(FLOAT_DTYPES))
def test_softmax_gradients(data, dtype):
    shape = data.draw(shapes(min_dims=1, **SMALL))
    x = data.draw(leaves(shape, dtype))
    dim = data.draw(st.integers(0, len(shape) - 1))
    check(lambda t: t.softmax(dim), x)
    check(lambda t: t.log_softmax(dim), x)


VIEWS = {
    "view": lambda x: x.contiguous().view(-1),
    "reshape": lambda x: x.reshape(-1),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "transpose": lambda x: x.transpose(0, -1),
    "permute": lambda x: x.permute(*range(x.ndim - 1, -1, -1)),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "squeeze": lambda x: x.unsqueeze(1).squeeze(1),
    "flatten": lambda x: x.flatten(),
    "expand": lambda x: x.unsqueeze(0).expand(2, *x.shape),
    "select": lambda x: x[-1],
    "slice": lambda x: x[::2, ...],
    "index_rows": lambda x: x[[0, 0, x.shape[0] - 1]],
    "mask": lambda x: x[x > 0],
    "clone": lambda x: x.clone(),
    "to_double": lambda x: x.to(minitorch.float64),
}


@pytest.mark.task2_6
@pytest.mark.parametrize("name", sorted(VIEWS))
@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(FLOAT_DTYPES))
def test_view_and_index_gradient(name, data, dtype):
    x = data.draw(leaves(data.draw(shapes(min_dims=1, **SMALL)), dtype))
    check(VIEWS[name], x)


@st.composite
def matmul_shapes(draw) -> tuple[tuple, tuple]:
    """Shapes for `a @ b`: vectors, matrices, and batches whose batch dims broadcast."""
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    kind = draw(st.sampled_from(["vv", "mv", "vm", "mm", "batched"]))
    if kind == "vv":
        return (k,), (k,)
    if kind == "mv":
        return (n, k), (k,)
    if kind == "vm":
        return (k,), (k, m)
    if kind == "mm":
        return (n, k), (k, m)
    batch = draw(st.integers(1, 2))
    return (batch, n, k), draw(st.sampled_from([(k, m), (1, k, m), (batch, k, m)]))


@pytest.mark.task2_6
@SETTINGS
@given(data=st.data(), dtype=st.sampled_from(FLOAT_DTYPES), pair=matmul_shapes())
def test_matmul_gradient(data, dtype, pair):
    a = data.draw(leaves(pair[0], dtype))
    b = data.draw(leaves(pair[1], dtype))
    check(lambda x, y: x @ y, a, b)


@pytest.mark.task2_6
def test_sum_gradient_by_hand():
    # d/dx sum(x**2) = 2x, the first example of autograd primers
    x = minitorch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (x**2).sum().backward()
    assert x.grad.tolist() == [2.0, -4.0, 6.0]


@pytest.mark.task2_6
def test_setitem_gradient_splits_between_old_values_and_new():
    # z = x * 1 with row 0 replaced by 2y: dz/dx is 0 on row 0, dz/dy = 2 per row-0 element
    x = minitorch.ones(2, 3, requires_grad=True)
    y = minitorch.ones(3, requires_grad=True)
    z = x * 1
    z[0] = y * 2
    z.sum().backward()
    assert x.grad.tolist() == [[0.0] * 3, [1.0] * 3]
    assert y.grad.tolist() == [2.0] * 3


NAN, INF = float("nan"), float("inf")
STD_VAR_EDGES = [  # (op, values, keywords, (value, gradient of its sum, warned)), from torch 2.13
    ("std", [1.0, 1.0], {}, (0.0, [0.0, 0.0], False)),
    ("var", [1.0, 1.0], {}, (0.0, [0.0, 0.0], False)),
    (
        "std",
        [[1.0, 2.0], [1.0, 3.0]],
        {"dim": 0},
        ([0.0, 0.707107], [[0.0, -0.707107], [0.0, 0.707107]], False),
    ),
    (
        "std",
        [[1.0, 2.0], [1.0, 3.0]],
        {"dim": 1, "keepdim": True},
        ([[0.707107], [1.414214]], [[-0.707107, 0.707107], [-0.707107, 0.707107]], False),
    ),
    ("std", [1.0, 1.0], {"correction": 0}, (0.0, [0.0, 0.0], False)),
    ("std", [1.0], {}, (NAN, [NAN], True)),
    ("std", [1.0, 1.0], {"correction": 2}, (NAN, [NAN, NAN], True)),
    ("var", [1.0, 2.0], {"correction": 3}, (INF, [INF, INF], True)),
    ("std", [1.0, 2.0], {"correction": 3}, (INF, [NAN, NAN], True)),
    (
        "var",
        [[1.0, 2.0], [1.0, 3.0]],
        {"dim": 0, "correction": 2},
        ([NAN, INF], [[NAN, -INF], [NAN, INF]], True),
    ),
    (
        "var",
        [[1.0, 2.0], [1.0, 3.0]],
        {"dim": 0, "correction": 3},
        ([NAN, INF], [[0.0, 1.0], [0.0, -1.0]], True),
    ),
    (
        "std",
        [[1.0, 2.0], [1.0, 3.0]],
        {"dim": 0, "correction": 3},
        ([NAN, INF], [[NAN, 0.0], [NAN, 0.0]], True),
    ),
    (
        "std",
        [[1.0, 2.0], [1.0, 3.0]],
        {"correction": 0},
        (0.829156, [[-0.226134, 0.075378], [-0.226134, 0.376889]], False),
    ),
]


def std_var_and_gradient(lib, op: str, values, keywords: dict):
    """`op`'s value, the gradient of its sum, and whether it warned about the degrees of freedom."""
    x = lib.tensor(values, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = getattr(x, op)(**keywords)
    out.sum().backward()
    # torch's warning is a UserWarning; NumPy's RuntimeWarnings of 0/0 come from the CUDA
    # simulator's scalar arithmetic, not from minitorch
    texts = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert all(t.startswith(f"{op}(): degrees of freedom is <= 0.") for t in texts), texts
    return out.tolist(), x.grad.tolist(), bool(texts)


def assert_values_equal(ours, expected, what: str) -> None:
    assert np.allclose(ours, expected, rtol=1e-5, atol=1e-6, equal_nan=True), (
        f"{what}: minitorch {ours}, expected {expected}"
    )


@pytest.mark.parametrize("op, values, keywords, expected", STD_VAR_EDGES, ids=repr)
def test_std_and_var_gradients_where_the_spread_is_zero_or_dof_is_not_positive(
    op, values, keywords, expected
):
    """PyTorch's var_backward and std_backward: std's gradient is 0 where std is 0 (no NaN);
    $n \\le c$ divides by zero as torch does."""
    value, gradient, warned = std_var_and_gradient(minitorch, op, values, keywords)
    assert_values_equal(value, expected[0], "value")
    assert_values_equal(gradient, expected[1], "gradient")
    assert warned == expected[2]


@pytest.mark.parametrize("op, values, keywords", [case[:3] for case in STD_VAR_EDGES], ids=repr)
def test_std_and_var_edge_gradients_like_torch_live(torch, op, values, keywords):
    ours = std_var_and_gradient(minitorch, op, values, keywords)
    theirs = std_var_and_gradient(torch, op, values, keywords)
    assert_values_equal(ours[0], theirs[0], "value")
    assert_values_equal(ours[1], theirs[1], "gradient")
    assert ours[2] == theirs[2]
