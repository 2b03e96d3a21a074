"""Reductions beyond sum, mean, prod and max (test_tensor.py checks those against NumPy), scans,
norms and sorting against PyTorch: values, dtypes, names, gradients.

Each case is a function of the library module (`lib`) and its NumPy inputs; what torch gave
for it is recorded in tests/data/test_tensor_reductions.json (scripts/record_torch_answers.py
from `torch_answers`), and minitorch must give the same, as `comparisons.compare` checks it live,
its gradients also passing central differences (except across ties, where they see one side).
"""

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch

NAN, INF = float("nan"), float("inf")

REDUCTIONS = {
    "cumsum": lambda lib, x: x.cumsum(1),
    "cumsum_neg_dim": lambda lib, x: lib.cumsum(x, -2),
    "cumprod": lambda lib, x: x.cumprod(0),
    "var": lambda lib, x: x.var(),
    "var_dim": lambda lib, x: x.var(1, keepdim=True),
    "var_biased": lambda lib, x: lib.var(x, 0, unbiased=False),
    "std": lambda lib, x: x.std(),
    "std_correction": lambda lib, x: lib.std(x, dim=(0, 1), correction=2),
    "norm": lambda lib, x: x.norm(),
    "norm_1": lambda lib, x: x.norm(p=1, dim=1),
    "norm_3": lambda lib, x: lib.norm(x, 3, dim=0, keepdim=True),
    "norm_inf": lambda lib, x: x.norm(p=INF, dim=1),
    "norm_neg_inf": lambda lib, x: x.norm(p=-INF),
    "norm_0": lambda lib, x: x.norm(p=0),
    "linalg_norm": lambda lib, x: lib.linalg.norm(x),
    "linalg_norm_dim": lambda lib, x: lib.linalg.norm(x, dim=1),
    "vector_norm": lambda lib, x: lib.linalg.vector_norm(x, ord=1.5, dim=(0,)),
    "logsumexp": lambda lib, x: lib.logsumexp(x, 1),
    "logsumexp_dims": lambda lib, x: x.logsumexp((0, 1), keepdim=True),
    "amax": lambda lib, x: x.amax(1),
    "amin": lambda lib, x: lib.amin(x),
    "median": lambda lib, x: x.median(),
    "median_dim": lambda lib, x: x.median(1),
    "median_keepdim": lambda lib, x: lib.median(x, 0, keepdim=True),
    "sort": lambda lib, x: x.sort(),
    "sort_desc": lambda lib, x: lib.sort(x, 0, descending=True),
    "sort_stable": lambda lib, x: x.sort(stable=True),
    "argsort": lambda lib, x: x.argsort(0, descending=True),
    "msort": lambda lib, x: lib.msort(x),
    "topk": lambda lib, x: x.topk(2),
    "topk_smallest": lambda lib, x: lib.topk(x, 1, dim=0, largest=False),
    "kthvalue": lambda lib, x: x.kthvalue(2),
    "kthvalue_keepdim": lambda lib, x: lib.kthvalue(x, 3, 0, keepdim=True),
    "count_nonzero": lambda lib, x: lib.count_nonzero(x.round(), 1),
    "prod": lambda lib, x: x.prod(1),
    "max_dim": lambda lib, x: x.max(1),
    "min_dim": lambda lib, x: lib.min(x, 0, keepdim=True),
    "any_all": lambda lib, x: ((x > 1).any(1), (x > -1).all(0)),
}


TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0]])
NANS = np.array([[3.0, NAN, 1.0, 2.0], [NAN, 0.0, NAN, -1.0], [4.0, 1.0, 2.0, 3.0]])
INTS = np.array([[3, 1, 2], [1, 1, 5]])
SCALAR = np.array(2.5)
ONE_SIDED = {"central": False}
INTEGER_REDUCTIONS = ("cumsum", "cumprod", "median_dim", "sort", "topk", "amax", "count_nonzero")

# key -> (function of lib and the inputs, the inputs as NumPy arrays, `compare`'s options)
CASES = {
    f"{name} permuted={permuted}": (fn, [floats((4, 3), 7, -3, 3)], {"permuted": permuted})
    for name, fn in REDUCTIONS.items()
    for permuted in (False, True)
}
CASES.update({f"{name} of integers": (REDUCTIONS[name], [INTS], {}) for name in INTEGER_REDUCTIONS})
CASES.update({
    # central differences see one side of a tie: not the shared gradient
    "ties amax": (lambda lib, t: t.amax(1), [TIES], ONE_SIDED),
    "ties amin": (lambda lib, t: lib.amin(t, 0), [TIES], ONE_SIDED),
    "ties norm_inf": (lambda lib, t: lib.norm(t, INF), [TIES], ONE_SIDED),
    "ties sort stable": (lambda lib, t: t.sort(dim=1, stable=True), [TIES], ONE_SIDED),
    "ties sort descending stable": (
        lambda lib, t: t.sort(dim=1, descending=True, stable=True), [TIES], ONE_SIDED),
    "ties argsort stable": (lambda lib, t: t.argsort(dim=1, stable=True), [TIES], {}),
    "ties median": (lambda lib, t: t.median(1), [TIES], ONE_SIDED),
    "nan sort": (lambda lib, t: t.sort(1), [NANS], ONE_SIDED),
    "nan sort descending": (lambda lib, t: t.sort(1, descending=True), [NANS], ONE_SIDED),
    "nan median_dim": (lambda lib, t: t.median(1), [NANS], ONE_SIDED),
    "nan median": (lambda lib, t: t.median(), [NANS], ONE_SIDED),
    "nan topk": (lambda lib, t: t.topk(2, 1), [NANS], ONE_SIDED),
    "nan amax logsumexp": (lambda lib, t: (t.amax(1), t.logsumexp(1)), [NANS], ONE_SIDED),
    "cumprod through zeros": (
        lambda lib, t: t.cumprod(1),
        [np.array([[2.0, 0.0, 3.0, 4.0], [0.0, 1.5, 0.0, 2.0], [0.0, 2.0, 3.0, -1.0]])], {}),
    "logsumexp of extremes": (
        lambda lib, t: lib.logsumexp(t, 1),
        [np.array([[1000.0, 1000.0], [-INF, -INF], [INF, 1.0], [-1000.0, -1001.0]])], ONE_SIDED),
    "logsumexp of integers": (lambda lib, t: lib.logsumexp(t, 0), [INTS], {}),
    "cumsum of booleans": (
        lambda lib, t: (t.cumsum(0), t.cumsum(1, dtype=lib.float64)), [INTS > 1], {}),
    "zero-dim sort argsort cumsum cumprod": (
        lambda lib, t: (t.sort(), t.argsort(), t.cumsum(0), t.cumprod(-1)), [SCALAR], {}),
    "zero-dim topk kthvalue median": (
        lambda lib, t: (t.topk(1), t.kthvalue(1), t.median(0)), [SCALAR], ONE_SIDED),
    "empty median sort": (
        lambda lib, t: (t.median(), t.sort(0)), [np.zeros((0,))], {"grad": False}),
    "empty amax": (lambda lib: lib.zeros(0, 3).amax(1), [], {"grad": False}),
})  # fmt: skip
ERRORS = {
    "topk_k": lambda lib: lib.ones(2, 3).topk(4),
    "kthvalue_k": lambda lib: lib.ones(2, 3).kthvalue(0, 1),
    "kthvalue_big": lambda lib: lib.ones(2, 3).kthvalue(4),
    "amax_empty": lambda lib: lib.ones(0).amax(),
    "amax_empty_dim": lambda lib: lib.ones(0, 2).amax(0),
    "median_empty_dim": lambda lib: lib.ones(0, 2).median(0),
    "cumsum_dim": lambda lib: lib.ones(2).cumsum(2),
    "sort_dim": lambda lib: lib.ones(2).sort(1),
    "std_of_integers": lambda lib: lib.tensor([1, 2]).std(),
    "var_of_integers": lambda lib: lib.tensor([1, 2]).var(),
    "norm_of_integers": lambda lib: lib.tensor([1, 2]).norm(),
}
RECORDED = ComparedCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers
check, check_error = RECORDED.check, RECORDED.check_error


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("permuted", [False, True])
def test_like_torch(name, permuted):
    check(f"{name} permuted={permuted}")


def test_ties_share_or_keep_order_like_torch():
    """amax/amin share the gradient among ties; sort keeps equal elements in order."""
    for key in CASES:
        if key.startswith("ties "):
            check(key)


def test_nan_sorts_last_and_median_propagates_it():
    for key in CASES:
        if key.startswith("nan "):
            check(key)


def test_cumprod_gradient_through_zeros():
    """No division by zero: one zero, two zeros, and a zero first, against torch."""
    check("cumprod through zeros")


def test_logsumexp_is_stable():
    check("logsumexp of extremes")


def test_integer_inputs_like_torch():
    for name in INTEGER_REDUCTIONS:
        check(f"{name} of integers")
    check("logsumexp of integers")
    check("cumsum of booleans")
    for case in ("std_of_integers", "var_of_integers", "norm_of_integers"):
        check_error(case)


def test_zero_dim_and_empty_like_torch():
    for key in ("zero-dim sort argsort cumsum cumprod", "zero-dim topk kthvalue median"):
        check(key)
    check("empty median sort")
    check("empty amax")


@pytest.mark.parametrize("name", [name for name in ERRORS if "integers" not in name])
def test_errors_like_torch(name):
    check_error(name)


@pytest.mark.cpu_only  # the recorded texts are of CPU tensors (a cuda one names its device)
def test_return_types_print_like_torch():
    ours = repr(minitorch.tensor([[3.0, 1.0]]).sort())
    assert ours == (
        "minitorch.return_types.sort(\nvalues=tensor([[1., 3.]]),\nindices=tensor([[1, 0]]))"
    )
    assert minitorch.tensor([4, 1, 3]).topk(2).indices.tolist() == [0, 2]


@settings(max_examples=6, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=1, max_size=7),
    st.booleans(),
)
def test_sort_is_stable_on_any_line(values, descending):
    """Many ties: the order of equal elements is their order in the input (NumPy's stable
    argsort, of -x when descending), as torch's stable sort; the cumulative sum is NumPy's, the
    median the lower middle value (at the index it gives)."""
    x = np.array(values, dtype=np.float64)
    t = minitorch.tensor(x)
    order = np.argsort(-x if descending else x, kind="stable")
    result = t.sort(descending=descending, stable=True)
    assert result.indices.tolist() == order.tolist()
    assert result.values.tolist() == x[order].tolist()
    np.testing.assert_allclose(t.cumsum(0).numpy(), np.cumsum(x), rtol=1e-15)
    median = t.median(0)
    assert median.values.item() == np.sort(x)[(len(x) - 1) // 2]
    assert x[median.indices.item()] == median.values.item()
