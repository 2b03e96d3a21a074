"""Searching and selecting against PyTorch: searchsorted with `sorter=`/`side=`,
bucketize, scatter's reductions, nonzero/unique on the backend's kernels, and second
derivatives through gather, index_select and take: values, dtypes, errors, gradients.

Runs on every CPU backend. Each case is a function of the library module (`lib`), run
with minitorch and with torch (`assert_same`).
"""

import warnings

import numpy as np
import pytest
from helpers import assert_same, x23

import minitorch

torch = pytest.importorskip("torch")


def t(lib, values, **kwargs):
    return lib.tensor(values, **kwargs)


NAN = float("nan")

SEARCHSORTED = {
    "batched": lambda lib: lib.searchsorted(t(lib, [1, 3, 5, 7]), t(lib, [[3, 6], [0, 9]])),
    "sorter": lambda lib: lib.searchsorted(
        t(lib, [5, 1, 7, 3]), t(lib, [[3, 6], [0, 9]]), sorter=t(lib, [1, 3, 0, 2])
    ),
    "sorter_right": lambda lib: lib.searchsorted(
        t(lib, [5, 1, 7, 3]), t(lib, [3, 5, 6]), sorter=t(lib, [1, 3, 0, 2]), right=True
    ),
    "sorter_2d_side": lambda lib: lib.searchsorted(
        t(lib, [[3, 1], [4, 2]]),
        t(lib, [[2, 3, 0], [4, 4, 1]]),
        sorter=t(lib, [[1, 0], [1, 0]]),
        side="right",
    ),  # fmt: skip
    "side_right": lambda lib: lib.searchsorted(t(lib, [1, 3, 3, 7]), t(lib, [3]), side="right"),
    "transposed": lambda lib: lib.searchsorted(
        t(lib, [[1, 2], [3, 4]]).t(), t(lib, [[2, 3], [3, 5]])
    ),
    "nan_left": lambda lib: lib.searchsorted(
        t(lib, [1.0, 3.0, NAN]), t(lib, [2.0, NAN, float("inf"), 3.0])
    ),
    "nan_right": lambda lib: lib.searchsorted(
        t(lib, [1.0, 3.0, NAN, NAN]), t(lib, [2.0, NAN, float("inf"), 3.0]), right=True
    ),
    "duplicates": lambda lib: lib.searchsorted(lib.arange(40) // 3, lib.arange(-1, 15), right=True),
    "scalar": lambda lib: lib.searchsorted(t(lib, [1, 3, 5, 7]), 4.5),
    "zero_dim_value": lambda lib: lib.searchsorted(t(lib, [1, 3, 5, 7]), t(lib, 5)),
    "mixed_dtypes": lambda lib: lib.searchsorted(t(lib, [1.0, 3.0]), t(lib, [2, 3])),
    "empty_sequence": lambda lib: lib.searchsorted(t(lib, []), t(lib, [2.0])),
    "empty_values": lambda lib: lib.searchsorted(t(lib, [1, 3]), t(lib, [], dtype=lib.int64)),
    "bucketize": lambda lib: lib.bucketize(t(lib, [[0.5, 3.0], [1.0, 9.0]]), t(lib, [1.0, 3.0])),
    "bucketize_right": lambda lib: lib.bucketize(
        t(lib, [[0.5, 3.0], [1.0, 9.0]]), t(lib, [1.0, 3.0]), right=True
    ),
    "bucketize_scalar": lambda lib: lib.bucketize(2, t(lib, [1, 3])),
    "out_int32": lambda lib: lib.searchsorted(t(lib, [1, 3, 5]), t(lib, [4, 0]), out_int32=True),
    "bucketize_int32": lambda lib: lib.bucketize(t(lib, [4, 0]), t(lib, [1, 3]), out_int32=True),
    # errors
    "bad_side": lambda lib: lib.searchsorted(t(lib, [1, 3]), t(lib, [3]), side="middle"),
    "opposite_sides": lambda lib: lib.searchsorted(
        t(lib, [1, 3]), t(lib, [3]), side="left", right=True
    ),
    "sorter_size": lambda lib: lib.searchsorted(t(lib, [5, 1]), t(lib, [3]), sorter=t(lib, [1])),
    "sorter_dtype": lambda lib: lib.searchsorted(
        t(lib, [5, 1]), t(lib, [3]), sorter=t(lib, [1.0, 0.0])
    ),
    "sorter_range": lambda lib: lib.searchsorted(
        t(lib, [5, 1]), t(lib, [3]), sorter=t(lib, [1, 2])
    ),
    "sorter_negative": lambda lib: lib.searchsorted(
        t(lib, [5, 1]), t(lib, [3]), sorter=t(lib, [1, -1])
    ),
    "leading_dims": lambda lib: lib.searchsorted(t(lib, [[1, 3], [2, 4]]), t(lib, [[1], [2], [3]])),
    "ndim": lambda lib: lib.searchsorted(t(lib, [[1, 3], [2, 4]]), t(lib, [1, 2])),
    "scalar_2d": lambda lib: lib.searchsorted(t(lib, [[1, 3], [2, 4]]), 4),
    "zero_dim_sequence": lambda lib: lib.searchsorted(t(lib, 1), t(lib, [1])),
    "bool": lambda lib: lib.searchsorted(t(lib, [False, True]), t(lib, [True])),
    "bucketize_2d": lambda lib: lib.bucketize(t(lib, [1.0]), t(lib, [[1.0, 3.0]])),
}


@pytest.mark.parametrize("case", sorted(SEARCHSORTED))
def test_searchsorted_like_torch(case):
    assert_same(SEARCHSORTED[case], quiet=True)


def test_searchsorted_random_against_torch():
    """Sorted lines with repeats and trailing NaNs, values with NaN: torch's binary search."""
    rng = np.random.default_rng(0)
    for _ in range(12):
        lead = tuple(rng.integers(1, 3, size=rng.integers(0, 3)))
        sequence = np.sort(rng.integers(0, 6, size=(*lead, rng.integers(0, 9))), axis=-1)
        sequence = sequence.astype(float)
        if sequence.shape[-1] and rng.random() < 0.5:
            sequence[..., -1] = np.nan
        values = rng.integers(-1, 7, size=(*lead, 4)).astype(float)
        values[..., 0] = np.nan
        right = bool(rng.random() < 0.5)
        found = [
            lib.searchsorted(lib.tensor(sequence), lib.tensor(values), right=right).tolist()
            for lib in (minitorch, torch)
        ]
        assert found[0] == found[1], (sequence, values, right)


# ---------------------------------------------------------------------------
# scatter's reductions: scatter(reduce=...) and scatter_reduce
# ---------------------------------------------------------------------------


def nan_aware(result):
    """Where `result` is NaN, and its other values (NaN compares unequal to itself)."""
    return result.isnan(), result.nan_to_num(-9.0)


def spread(lib):
    """An index that sends several elements to one position, and one position none."""
    return t(lib, [[1, 1, 0], [1, 0, 0]])


def src23(lib):
    return t(lib, [[2.0, 3.0, 4.0], [5.0, -1.0, 7.0]])


SCATTER = {
    "scatter_add": lambda lib: x23(lib).scatter(0, spread(lib), src23(lib), reduce="add"),
    "scatter_multiply": lambda lib: x23(lib).scatter(0, spread(lib), src23(lib), reduce="multiply"),
    "scatter_multiply_value": lambda lib: x23(lib).scatter(0, spread(lib), 2.0, reduce="multiply"),
    "scatter_multiply_int": lambda lib: lib.ones(2, 3, dtype=lib.int64).scatter_(
        0, t(lib, [[1, 1, 0]]), t(lib, [[2, 3, 4]]), reduce="multiply"
    ),
    "scatter_bad_reduce": lambda lib: x23(lib).scatter(0, spread(lib), src23(lib), reduce="sum"),
    "scatter_src_dtype": lambda lib: x23(lib).scatter(0, t(lib, [[1, 0, 1]]), t(lib, [[1, 2, 3]])),
    "scatter_add_src_dtype": lambda lib: x23(lib).scatter_add(
        0, t(lib, [[1, 0, 1]]), t(lib, [[1, 2, 3]])
    ),
    "reduce_nan_amax": lambda lib: nan_aware(
        t(lib, [1.0, 2.0]).scatter_reduce(0, t(lib, [0, 0, 1]), t(lib, [NAN, 3.0, 1.0]), "amax")
    ),
    "reduce_self_nan_amin": lambda lib: nan_aware(
        t(lib, [NAN, 2.0]).scatter_reduce(0, t(lib, [0, 0, 1]), t(lib, [3.0, 5.0, 1.0]), "amin")
    ),
    "reduce_alias_max": lambda lib: x23(lib).scatter_reduce(0, spread(lib), src23(lib), "max"),
    "reduce_in_place": lambda lib: t(lib, [1.0, 2.0]).scatter_reduce_(
        0, t(lib, [0, 0, 1]), t(lib, [1.0, 2.0, 3.0]), "prod", include_self=False
    ),
    "reduce_function": lambda lib: lib.scatter_reduce(
        t(lib, [1.0, 2.0]), 0, t(lib, [0, 0, 1]), t(lib, [1.0, 2.0, 3.0]), reduce="mean"
    ),
    "reduce_zero_dim": lambda lib: t(lib, 2.0).scatter_reduce(0, t(lib, 0), t(lib, 3.0), "prod"),
    "reduce_transposed": lambda lib: (
        x23(lib).t().scatter_reduce(1, t(lib, [[1, 1], [0, 0], [1, 0]]), src23(lib).t(), "mean")
    ),
    "reduce_larger_src": lambda lib: x23(lib).scatter_reduce(
        0, t(lib, [[1, 0]]), src23(lib), "amin", include_self=False
    ),
    "reduce_bad_name": lambda lib: x23(lib).scatter_reduce(0, spread(lib), src23(lib), "add"),
    "reduce_number_src": lambda lib: x23(lib).scatter_reduce(0, spread(lib), 2.0, "sum"),
    "reduce_src_dtype": lambda lib: x23(lib).scatter_reduce(
        0, spread(lib), t(lib, [[1, 2, 3], [4, 5, 6]]), "sum"
    ),
    "reduce_small_src": lambda lib: x23(lib).scatter_reduce(
        0, spread(lib), t(lib, [[1.0, 2.0, 3.0]]), "sum"
    ),
    "reduce_out_of_bounds": lambda lib: x23(lib).scatter_reduce(
        0, t(lib, [[0, 2, 0]]), src23(lib), "sum"
    ),
    "reduce_float_index": lambda lib: x23(lib).scatter_reduce(
        0, t(lib, [[0.0, 1.0, 0.0]]), src23(lib), "sum"
    ),
}
for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    for _include in (True, False):
        SCATTER[f"reduce_{_reduce}_{_include}"] = (
            lambda reduce, include: (
                lambda lib: x23(lib).scatter_reduce(
                    0, spread(lib), src23(lib), reduce, include_self=include
                )
            )
        )(_reduce, _include)
        # int64: mean rounds down (floor), amax/amin start from the dtype's limits
        SCATTER[f"reduce_{_reduce}_{_include}_int"] = (
            lambda reduce, include: (
                lambda lib: t(lib, [[1, 2, 3]]).scatter_reduce(
                    1, t(lib, [[0, 0, 2]]), t(lib, [[-4, -3, -5]]), reduce, include_self=include
                )
            )
        )(_reduce, _include)


@pytest.mark.parametrize("case", sorted(SCATTER))
def test_scatter_reductions_like_torch(case):
    assert_same(SCATTER[case], quiet=True)


# ---------------------------------------------------------------------------
# Gradients: first and second derivatives against torch, and central differences
# ---------------------------------------------------------------------------


def derivatives(lib, fn, a_values, s_values):
    """The output, the gradients of $\\sum_i w_i out_i$ for (a, s) with `create_graph=True`,
    then the gradients of the sum of their squares (the error's text where that raises)."""
    a = lib.tensor(a_values, requires_grad=True)
    s = lib.tensor(s_values, requires_grad=True)
    out = fn(lib, a, s)
    weights = lib.tensor(np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)))
    first = lib.autograd.grad((out * weights).sum(), (a, s), create_graph=True)
    found = [out.detach().numpy(), *[g.detach().numpy() for g in first]]
    squares = [(g * g).sum() for g in first if g.requires_grad]
    if squares:
        try:
            found += [g.numpy() for g in lib.autograd.grad(sum(squares), (a, s))]
        except RuntimeError as error:
            found.append(str(error))
    return found


def assert_same_derivatives(fn, a_values, s_values):
    ours = derivatives(minitorch, fn, a_values, s_values)
    theirs = derivatives(torch, fn, a_values, s_values)
    assert len(ours) == len(theirs), (ours, theirs)
    for k, (mine, expected) in enumerate(zip(ours, theirs, strict=True)):
        if isinstance(expected, str):
            assert mine == expected
        else:
            np.testing.assert_allclose(mine, expected, rtol=1e-9, atol=1e-12, err_msg=f"item {k}")


A34 = np.array([[1.0, 5.0, 2.0, 0.5], [3.0, 5.0, 0.0, -1.0], [2.0, -2.0, 1.0, 1.0]])
S24 = np.array([[5.0, 1.0, 2.0, 3.0], [5.0, 5.0, 0.0, 2.0]])  # ties with A34 for amax/amin
INDEX24 = [[0, 1, 0, 2], [0, 0, 1, 2]]


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_derivatives_like_torch(reduce, include_self):
    """Ties share the gradient as torch's, zero factors of a product are handled apart,
    and the second derivatives (`create_graph=True`) agree too."""

    def fn(lib, a, s):
        return a.scatter_reduce(0, lib.tensor(INDEX24), s, reduce, include_self=include_self)

    assert_same_derivatives(fn, A34, S24)
    assert fn(minitorch, minitorch.tensor(A34), minitorch.tensor(S24)).grad_fn is None
    a = minitorch.tensor(A34, requires_grad=True)
    assert fn(minitorch, a, minitorch.tensor(S24)).grad_fn.name() == "ScatterReduceBackward0"


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_central_differences(reduce):
    """grad_check on distinct values (no ties: amax and amin are differentiable there)."""
    rng = np.random.default_rng(3)
    a = minitorch.tensor(rng.permutation(12).reshape(3, 4) / 4.0 + 0.5, requires_grad=True)
    s = minitorch.tensor(rng.permutation(12)[:8].reshape(2, 4) / 4.0 + 0.6, requires_grad=True)
    for include_self in (True, False):
        assert minitorch.grad_check(
            lambda a, s, include=include_self: a.scatter_reduce(
                0, minitorch.tensor(INDEX24), s, reduce, include_self=include
            ),
            a,
            s,
        )


def test_scatter_reduce_product_with_two_zeros_has_no_second_derivative():
    """Two zeros sent to one position: torch's first derivative, then its error."""

    def fn(lib, a, s):
        return a.scatter_reduce(0, lib.tensor([[0, 1, 0, 2], [0, 1, 0, 2]]), s, "prod")

    zeros = np.array([[0.0, 0.0, 2.0, 3.0], [5.0, 0.0, 0.0, 2.0]])
    assert_same_derivatives(fn, A34, zeros)
    found = derivatives(minitorch, fn, A34, zeros)
    assert found[-1].startswith("scatter_reduce(): Double backward is unsupported")


def test_scatter_reduce_alias_and_scatter_reduce_argument_have_no_derivative():
    """`scatter(..., reduce=)` and scatter_reduce's "max" alias: torch's names and errors."""
    with pytest.warns(UserWarning, match="^The reduce argument of torch.scatter with Tensor src"):
        minitorch.zeros(2).scatter(0, minitorch.tensor([1]), minitorch.ones(1), reduce="add")
    for lib in (minitorch, torch):
        a = lib.tensor(A34, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns once per process
            out = a.scatter(0, lib.tensor(INDEX24), lib.tensor(S24), reduce="multiply")
        assert out.grad_fn.name() == f"{lib.__name__}::autograd::NotImplemented"
        assert repr(out).endswith("grad_fn=<NotImplemented>)")
        with pytest.raises(RuntimeError, match="^derivative for aten::scatter is not implemented"):
            out.sum().backward()
        out = a.scatter_reduce(0, lib.tensor(INDEX24), lib.tensor(S24), "max")
        with pytest.raises(RuntimeError, match="^Expected 'reduce' to be one of 'sum', 'prod',"):
            out.sum().backward()


SECOND_DERIVATIVES = {
    "gather": lambda lib, a, s: (
        (a * a).gather(1, lib.tensor([[0, 0], [3, 1], [2, 2]])) * s[:, :2].sum()
    ),
    "gather_cubed": lambda lib, a, s: a.gather(0, lib.tensor([[0, 2, 1, 0]])) ** 3 + s.sum(),
    "index_select": lambda lib, a, s: (a.index_select(0, lib.tensor([2, 0, 2])) ** 3).sum(0) * s[0],
    "index_select_columns": lambda lib, a, s: (
        a.index_select(1, lib.tensor([3, 3, 0])) ** 2 + s.sum()
    ),
    "take": lambda lib, a, s: (
        a.take(lib.tensor([[0, 5], [5, -1]])) ** 3 + (s.take(lib.tensor([1, 1, 0])) ** 2).sum()
    ),
    "scatter": lambda lib, a, s: a.scatter(0, lib.tensor([[2, 0, 1, 0], [1, 1, 2, 2]]), s * s) ** 2,
    "scatter_add": lambda lib, a, s: (a * a).scatter_add(
        0, lib.tensor([[2, 0, 2, 0], [2, 2, 1, 1]]), s * s * s
    ),
    "advanced_index": lambda lib, a, s: a[[0, 2, 2], [1, 1, 3]] ** 3 + (s[:, [0, 0]] ** 2).sum(),
    "masked_select": lambda lib, a, s: a.masked_select(a > 1) ** 3 + s.sum(),
}


@pytest.mark.parametrize("case", sorted(SECOND_DERIVATIVES))
def test_second_derivatives_like_torch(case):
    """Gather, index_select and take have backwards made of differentiable operations
    (a scatter_add, an index_put), so `create_graph=True` gives second derivatives."""
    assert_same_derivatives(SECOND_DERIVATIVES[case], A34, S24)


def test_third_derivative_of_gather():
    """The backwards of gather and scatter_add are each other: any order works."""
    found = []
    for lib in (minitorch, torch):
        a = lib.tensor([1.5, -2.0, 3.0], requires_grad=True)
        y = (a.gather(0, lib.tensor([2, 0, 2])) ** 4).sum()
        (g,) = lib.autograd.grad(y, a, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), a, create_graph=True)
        (ggg,) = lib.autograd.grad(gg.sum(), a)
        found.append([g.tolist(), gg.tolist(), ggg.tolist()])
    assert found[0] == found[1]


# ---------------------------------------------------------------------------
# nonzero on the backend's kernels (a scan and a put): order, shapes, 0-dim and empty inputs
# ---------------------------------------------------------------------------

NONZERO = {
    "matrix": lambda lib: lib.nonzero(lib.arange(6.0).reshape(2, 3)),
    "as_tuple": lambda lib: lib.nonzero(lib.arange(6.0).reshape(2, 3), as_tuple=True),
    "zero_dim": lambda lib: lib.nonzero(t(lib, 3.0)),
    "zero_dim_zero": lambda lib: lib.nonzero(t(lib, 0.0)),
    "zero_dim_as_tuple": lambda lib: lib.nonzero(t(lib, 3.0), as_tuple=True),
    "zero_dim_zero_as_tuple": lambda lib: lib.nonzero(t(lib, 0.0), as_tuple=True),
    "empty": lambda lib: lib.nonzero(lib.zeros(2, 0, 3)),
    "empty_as_tuple": lambda lib: lib.nonzero(lib.zeros(2, 0, 3), as_tuple=True),
    "all_zero": lambda lib: lib.nonzero(lib.zeros(2, 3)),
    "transposed": lambda lib: lib.nonzero((lib.arange(12).reshape(3, 4) % 3).t()),
    "argwhere_bool": lambda lib: lib.argwhere(lib.arange(6).reshape(1, 2, 3) > 2),
    "nan_and_negative_zero": lambda lib: lib.nonzero(t(lib, [0.0, NAN, -0.0, 2.0])),
    "where_condition_only": lambda lib: lib.where(lib.arange(6.0).reshape(2, 3) > 2),
    "mask_index": lambda lib: lib.arange(12.0).reshape(3, 4)[lib.arange(12).reshape(3, 4) % 5 == 1],
}


@pytest.mark.parametrize("case", sorted(NONZERO))
def test_nonzero_like_torch(case):
    assert_same(NONZERO[case])


# ---------------------------------------------------------------------------
# unique and unique_consecutive: sort, flag the starts of runs, scan, put
# ---------------------------------------------------------------------------

UNIQUE = {
    "inverse_counts": lambda lib: lib.unique(
        t(lib, [3, 1, 3, 2, 5, 1]), return_inverse=True, return_counts=True
    ),
    "matrix_inverse": lambda lib: lib.unique(
        t(lib, [[3.0, 1.0], [3.0, -2.0]]), return_inverse=True
    ),
    "nan_each_distinct": lambda lib: nan_aware(lib.unique(t(lib, [NAN, 1.0, NAN, 1.0]))),
    "nan_inverse_counts": lambda lib: lib.unique(
        t(lib, [NAN, 1.0, NAN, 1.0]), return_inverse=True, return_counts=True
    )[1:],
    "zero_dim": lambda lib: lib.unique(t(lib, 3), return_inverse=True, return_counts=True),
    "bool": lambda lib: lib.unique(t(lib, [True, False, True]), return_counts=True),
    "empty": lambda lib: lib.unique(lib.zeros(0, 2), return_inverse=True, return_counts=True),
    "transposed": lambda lib: lib.unique(
        (lib.arange(12).reshape(3, 4) % 5).t(), return_inverse=True, return_counts=True
    ),
    "sorted_false": lambda lib: lib.unique(t(lib, [3, 1, 3, 2]), sorted=False),
    "dim1": lambda lib: lib.unique(
        t(lib, [[1, 2, 1], [1, 2, 1]]), dim=1, return_inverse=True, return_counts=True
    ),
    "consecutive": lambda lib: lib.unique_consecutive(
        t(lib, [1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True
    ),
    "consecutive_matrix": lambda lib: lib.unique_consecutive(
        t(lib, [[1, 1], [2, 2]]), return_inverse=True
    ),
    "consecutive_zero_dim": lambda lib: lib.unique_consecutive(
        t(lib, 3), return_inverse=True, return_counts=True
    ),
    "consecutive_empty": lambda lib: lib.unique_consecutive(
        t(lib, []), return_inverse=True, return_counts=True
    ),
    "consecutive_method": lambda lib: t(lib, [1, 1, 2]).unique_consecutive(),
    "consecutive_dim0": lambda lib: lib.unique_consecutive(
        t(lib, [[1, 2], [1, 2], [0, 5], [1, 2]]), dim=0, return_inverse=True, return_counts=True
    ),
    "consecutive_dim1": lambda lib: lib.unique_consecutive(
        t(lib, [[1, 1, 2], [3, 3, 2]]), dim=1, return_inverse=True, return_counts=True
    ),
}


@pytest.mark.parametrize("case", sorted(UNIQUE))
def test_unique_like_torch(case):
    assert_same(UNIQUE[case])


@pytest.mark.parametrize("op", ["conv2d", "max_pool2d", "avg_pool2d", "unfold", "pad"])
def test_convolution_and_pooling_second_derivatives_raise(op):
    """Their backwards call kernels: differentiating them again raises, never a wrong number."""
    functional = minitorch.nn.functional
    run = {
        "conv2d": lambda x, w: functional.conv2d(x, w),
        "max_pool2d": lambda x, w: functional.max_pool2d(x * w.sum(), 2),
        "avg_pool2d": lambda x, w: functional.avg_pool2d(x * w.sum(), 2),
        "unfold": lambda x, w: functional.unfold(x * w.sum(), 2),
        "pad": lambda x, w: functional.pad(x * w.sum(), (1, 1)),
    }[op]
    x = minitorch.tensor(A34.reshape(1, 1, 3, 4), requires_grad=True)
    w = minitorch.tensor([[[[0.5, -1.0], [2.0, 1.5]]]], dtype=minitorch.float64, requires_grad=True)
    y = run(x, w)
    grad_x, _ = minitorch.autograd.grad((y * y).sum(), (x, w), create_graph=True)
    with pytest.raises(RuntimeError, match="^trying to differentiate twice the backward of"):
        minitorch.autograd.grad((grad_x * grad_x).sum(), (x, w))
