"""Products, elementwise compositions and running ops (`ops/products.py`,
`ops/elementwise_compositions.py`, `ops/running.py`) against NumPy, central differences
and torch."""

import math

import numpy as np
import pytest
from surface_cases import Case, table_tests

import minitorch

NAN, INF = float("nan"), float("inf")
M = np.arange(6.0).reshape(2, 3) - 2
V = np.array([0.3, -1.5, 2.0])
W = np.array([1.0, 2.0, -0.5])
Y = np.array([[1.0, 3.0, 2.0, 3.0], [0.0, -1.0, 5.0, 5.0]])
XS = np.array([0.0, 1.0, 3.0, 6.0])
B1 = np.arange(12.0).reshape(2, 2, 3) / 4 - 1
B2 = np.arange(12.0).reshape(2, 3, 2) / 3 - 2
POSITIVE = np.array([0.2, 0.5, 0.7])


def f64(lib, values):
    return lib.tensor(np.asarray(values).tolist(), dtype=lib.float64)


def running(values: np.ndarray, better) -> tuple:
    """(values, indices) of a running extreme along the last dim: the latest of ties, NaN wins."""
    out, idx = np.empty_like(values), np.zeros(values.shape, dtype=np.int64)
    for row in np.ndindex(values.shape[:-1]):
        best, at = None, 0
        for i, x in enumerate(values[row]):
            if best is None or math.isnan(x) or (not math.isnan(best) and better(x, best)):
                best, at = x, i
            out[row + (i,)], idx[row + (i,)] = best, at
    return out, idx


def logcumsumexp_reference(values):
    return np.log(np.cumsum(np.exp(values), axis=-1))


def histogram_reference(values, bins, low, high, weights=None, density=False):
    return np.histogram(values, bins, (low, high), weights=weights, density=density)


CASES = [
    Case(
        "mv",
        lambda L: L.mv(f64(L, M), f64(L, V)),
        lambda: M @ V,
        "float64",
        lambda L, m, v: L.mv(m, v),
        [M, V],
    ),
    Case(
        "addmv",
        lambda L: L.addmv(f64(L, V[:2]), f64(L, M), f64(L, W), beta=0.5, alpha=2),
        lambda: 0.5 * V[:2] + 2 * (M @ W),
        None,
        lambda L, c, m, v: L.addmv(c, m, v, beta=0.5, alpha=2),
        [V[:2], M, W],
    ),
    Case(
        "addmv beta=0 ignores NaN",
        lambda L: L.addmv(f64(L, [NAN, 1.0]), f64(L, M), f64(L, W), beta=0),
        lambda: M @ W,
    ),
    Case(
        "addr",
        lambda L: L.addr(f64(L, M), f64(L, V[:2]), f64(L, W), alpha=3),
        lambda: M + 3 * np.outer(V[:2], W),
        None,
        lambda L, c, u, v: L.addr(c, u, v),
        [M, V[:2], W],
    ),
    Case(
        "baddbmm",
        lambda L: L.baddbmm(L.ones(2, 2, 2, dtype=L.float64), f64(L, B1), f64(L, B2), beta=2),
        lambda: 2 + B1 @ B2,
        None,
        lambda L, c, a, b: L.baddbmm(c, a, b, alpha=0.5),
        [np.ones((2, 2, 2)), B1, B2],
    ),
    Case(
        "addbmm",
        lambda L: L.addbmm(L.ones(2, 2, dtype=L.float64), f64(L, B1), f64(L, B2)),
        lambda: 1 + (B1 @ B2).sum(0),
        None,
        lambda L, c, a, b: L.addbmm(c, a, b),
        [np.ones((2, 2)), B1, B2],
    ),
    Case(
        "inner matrices",
        lambda L: L.inner(f64(L, M), f64(L, M)),
        lambda: np.inner(M, M),
        None,
        lambda L, a, b: L.inner(a, b),
        [M, M[::-1]],
    ),
    Case("inner vectors", lambda L: L.inner(f64(L, V), f64(L, W)), lambda: np.inner(V, W)),
    Case(
        "kron",
        lambda L: L.kron(f64(L, M), f64(L, [[1.0, 2.0], [3.0, 4.0]])),
        lambda: np.kron(M, [[1.0, 2.0], [3.0, 4.0]]),
        None,
        lambda L, a, b: L.kron(a, b),
        [M, V[:2]],
    ),
    Case("kron mixed dims", lambda L: L.kron(f64(L, V[:2]), f64(L, M)), lambda: np.kron(V[:2], M)),
    Case(
        "cross dim",
        lambda L: L.cross(f64(L, M), f64(L, M[:, ::-1]), dim=1),
        lambda: np.cross(M, M[:, ::-1]),
        None,
        lambda L, a, b: L.cross(a, b, dim=1),
        [M, M[::-1]],
    ),
    Case(
        "cross default dim",
        lambda L: L.cross(f64(L, M.T), f64(L, M.T * 2 + 1)),
        lambda: np.cross(M.T, M.T * 2 + 1, axis=0),
    ),
    *[
        Case(
            f"dist p={p}",
            lambda L, p=p: L.dist(f64(L, M), f64(L, W), p),
            lambda p=p: np.linalg.norm((M - W).ravel(), p),
            None,
            lambda L, a, b, p=p: L.dist(a, b, p),
            [M, W],
        )
        for p in (2, 1, 3, INF)
    ],
    Case(
        "addcmul",
        lambda L: L.addcmul(f64(L, V), f64(L, V), f64(L, W), value=0.5),
        lambda: V + 0.5 * V * W,
        None,
        lambda L, a, b, c: a.addcmul(b, c, value=2),
        [V, W, V],
    ),
    Case(
        "addcdiv",
        lambda L: L.addcdiv(f64(L, V), f64(L, V), f64(L, W), value=2),
        lambda: V + 2 * V / W,
        None,
        lambda L, a, b, c: L.addcdiv(a, b, c),
        [V, V, W],
    ),
    Case(
        "logit",
        lambda L: L.logit(L.tensor([0.1, 0.5, 0.9, 0.0, 1.0])),
        lambda: np.log(
            np.array([0.1, 0.5, 0.9, 0.0, 1.0]) / (1 - np.array([0.1, 0.5, 0.9, 0.0, 1.0]))
        ),
        "float32",
        lambda L, a: L.logit(a),
        [POSITIVE],
    ),
    Case(
        "logit eps",
        lambda L: L.logit(L.tensor([0.1, 0.0, 1.0]), eps=0.01),
        lambda: np.log(np.array([0.1, 0.01, 0.99]) / (1 - np.array([0.1, 0.01, 0.99]))),
    ),
    Case(
        "xlogy",
        lambda L: L.xlogy(L.tensor([0.0, 1.0, 2.0, 0.0, 0.0]), L.tensor([0.0, 3.0, NAN, NAN, 2.0])),
        lambda: np.array([0.0, math.log(3.0), NAN, NAN, 0.0]),
        None,
        lambda L, a, b: L.xlogy(a, b),
        [V, POSITIVE],
    ),
    Case(
        "xlogy number", lambda L: L.xlogy(2, L.tensor([1.0, 3.0])), lambda: 2 * np.log([1.0, 3.0])
    ),
    Case(
        "sinc",
        lambda L: L.sinc(L.tensor([0.0, 0.5, -1.5, 3.0])),
        lambda: np.sinc([0.0, 0.5, -1.5, 3.0]),
        None,
        lambda L, a: L.sinc(a),
        [np.array([0.0, 0.3, -1.2])],
    ),
    Case(
        "heaviside",
        lambda L: L.heaviside(L.tensor([-1.0, 0.0, 2.0]), L.tensor([0.5])),
        lambda: np.heaviside([-1.0, 0.0, 2.0], 0.5),
    ),
    Case(
        "signbit",
        lambda L: L.signbit(L.tensor([-1.0, 0.0, -0.0, 2.0, -INF])),
        lambda: np.signbit([-1.0, 0.0, -0.0, 2.0, -INF]),
    ),
    Case("signbit ints", lambda L: L.signbit(L.tensor([-1, 0, 2])), lambda: np.signbit([-1, 0, 2])),
    Case(
        "copysign",
        lambda L: L.copysign(L.tensor([-1.0, 0.0, 2.0, 3.0]), L.tensor([1.0, -0.0, -2.0, 0.0])),
        lambda: np.copysign([-1.0, 0.0, 2.0, 3.0], [1.0, -0.0, -2.0, 0.0]),
        None,
        lambda L, a: L.copysign(a, L.tensor([1.0, -2.0, -0.0], dtype=L.float64)),
        [V],
    ),
    Case(
        "copysign ints",
        lambda L: L.copysign(L.tensor([-1, 2]), -1.0),
        lambda: np.array([-1.0, -2.0]),
        "float32",
    ),
    Case(
        "float_power",
        lambda L: L.float_power(L.tensor([1, 2, 3]), 2),
        lambda: np.array([1.0, 4.0, 9.0]),
        "float64",
    ),
    Case(
        "float_power tensors",
        lambda L: L.float_power(L.tensor([1.0, 2.0]), L.tensor([0.5, -1.0])),
        lambda: np.array([1.0, 0.5]),
        "float64",
        lambda L, a, b: L.float_power(a, b),
        [POSITIVE, V],
    ),
    Case(
        "isin",
        lambda L: L.isin(L.tensor([[1, 2], [3, 4]]), L.tensor([2, 3])),
        lambda: np.isin([[1, 2], [3, 4]], [2, 3]),
    ),
    Case(
        "isin invert",
        lambda L: L.isin(L.tensor([[1, 2], [3, 4]]), 2, invert=True),
        lambda: np.isin([[1, 2], [3, 4]], [2], invert=True),
    ),
    Case(
        "isneginf",
        lambda L: L.isneginf(L.tensor([-INF, 1.0, INF, NAN])),
        lambda: np.isneginf([-INF, 1.0, INF, NAN]),
    ),
    Case(
        "isposinf",
        lambda L: L.isposinf(L.tensor([-INF, 1.0, INF, NAN])),
        lambda: np.isposinf([-INF, 1.0, INF, NAN]),
    ),
    Case("isposinf ints", lambda L: L.isposinf(L.tensor([1, 2])), lambda: np.array([False, False])),
    Case(
        "logaddexp",
        lambda L: L.logaddexp(
            f64(L, [1.0, -1000.0, INF, -INF, 3.0]), f64(L, [2.0, -1000.0, INF, -INF, -INF])
        ),
        lambda: np.logaddexp([1.0, -1000.0, INF, -INF, 3.0], [2.0, -1000.0, INF, -INF, -INF]),
        None,
        lambda L, a, b: L.logaddexp(a, b),
        [V, np.array([0.3, 1.0, -3.0])],
    ),
    Case(
        "logaddexp2",
        lambda L: L.logaddexp2(f64(L, [1.0, -1000.0, 5.0]), f64(L, [2.0, -1000.0, 5.0])),
        lambda: np.logaddexp2([1.0, -1000.0, 5.0], [2.0, -1000.0, 5.0]),
        None,
        lambda L, a, b: L.logaddexp2(a, b),
        [V, W],
    ),
    Case(
        "nansum",
        lambda L: L.nansum(L.tensor([[1.0, NAN], [2.0, 3.0]])),
        lambda: np.float32(6.0),
        None,
        lambda L, a: L.nansum(a * L.tensor([1.0, NAN, 1.0], dtype=L.float64).nan_to_num(0) + a),
        [V],
    ),
    Case(
        "nansum dim",
        lambda L: L.nansum(L.tensor([[1.0, NAN], [2.0, 3.0]]), 1, keepdim=True),
        lambda: np.nansum([[1.0, NAN], [2.0, 3.0]], 1, keepdims=True),
    ),
    Case(
        "nansum ints", lambda L: L.nansum(L.tensor([[1, 2], [2, 3]])), lambda: np.int64(8), "int64"
    ),
    Case(
        "nanmean", lambda L: L.nanmean(L.tensor([[1.0, NAN], [2.0, 3.0]])), lambda: np.float32(2.0)
    ),
    Case(
        "nanmean dim",
        lambda L: L.nanmean(L.tensor([[1.0, NAN], [2.0, 3.0]]), dim=0),
        lambda: np.nanmean([[1.0, NAN], [2.0, 3.0]], 0),
        None,
        lambda L, a: L.nanmean(a, 1),
        [M],
    ),
    Case(
        "diff", lambda L: L.diff(f64(L, Y)), lambda: np.diff(Y), None, lambda L, a: a.diff(2), [Y]
    ),
    Case(
        "diff n=2 dim=0 prepend",
        lambda L: L.diff(f64(L, Y), 2, 0, prepend=L.zeros(1, 4, dtype=L.float64)),
        lambda: np.diff(Y, 2, 0, prepend=np.zeros((1, 4))),
    ),
    Case(
        "diff append",
        lambda L: L.diff(f64(L, Y), 3, append=f64(L, Y)),
        lambda: np.diff(Y, 3, append=Y),
    ),
    Case(
        "diff bools",
        lambda L: L.diff(L.tensor([True, False, False])),
        lambda: np.diff([True, False, False]),
    ),
    Case(
        "trapezoid",
        lambda L: L.trapezoid(f64(L, Y)),
        lambda: np.trapezoid(Y),
        None,
        lambda L, y: L.trapezoid(y),
        [Y],
    ),
    Case(
        "trapezoid dx",
        lambda L: L.trapezoid(f64(L, Y), dx=0.5, dim=0),
        lambda: np.trapezoid(Y, dx=0.5, axis=0),
    ),
    Case(
        "trapezoid x",
        lambda L: L.trapezoid(f64(L, Y), f64(L, XS)),
        lambda: np.trapezoid(Y, XS),
        None,
        lambda L, y, x: L.trapezoid(y, x),
        [Y, XS],
    ),
    Case("trapz", lambda L: L.trapz(f64(L, Y), f64(L, XS)), lambda: np.trapezoid(Y, XS)),
    Case(
        "cumulative_trapezoid",
        lambda L: L.cumulative_trapezoid(f64(L, Y), f64(L, XS)),
        lambda: np.cumsum((Y[:, 1:] + Y[:, :-1]) / 2 * np.diff(XS), -1),
        None,
        lambda L, y: L.cumulative_trapezoid(y, dim=0),
        [Y],
    ),
    Case(
        "cummax",
        lambda L: tuple(L.cummax(f64(L, Y), 1)),
        lambda: running(Y, lambda x, b: x >= b),
        None,
        lambda L, a: L.cummax(a, 1).values,
        [np.array([[0.5, 0.1, 2.0, 1.0]])],
    ),
    Case(
        "cummin",
        lambda L: tuple(L.cummin(f64(L, Y), 1)),
        lambda: running(Y, lambda x, b: x <= b),
        None,
        lambda L, a: L.cummin(a, 0)[0],
        [M],
    ),
    Case(
        "cummax NaN",
        lambda L: tuple(L.cummax(L.tensor([1.0, NAN, 2.0, NAN, 3.0]), 0)),
        lambda: running(np.array([1.0, NAN, 2.0, NAN, 3.0]), lambda x, b: x >= b),
    ),
    Case(
        "cummin ints",
        lambda L: tuple(L.cummin(L.tensor([3, 1, 3, 0, 2]), 0)),
        lambda: running(np.array([3, 1, 3, 0, 2]), lambda x, b: x <= b),
    ),
    Case(
        "logcumsumexp",
        lambda L: L.logcumsumexp(f64(L, Y), 1),
        lambda: logcumsumexp_reference(Y),
        None,
        lambda L, a: L.logcumsumexp(a, 1),
        [Y],
    ),
    Case(
        "logcumsumexp large",
        lambda L: L.logcumsumexp(f64(L, [1000.0, 1000.0, -1000.0]), 0),
        lambda: np.array([1000.0, 1000.0 + math.log(2), 1000.0 + math.log(2)]),
    ),
    Case(
        "aminmax",
        lambda L: tuple(L.aminmax(f64(L, Y))),
        lambda: (np.float64(-1.0), np.float64(5.0)),
    ),
    Case(
        "aminmax dim",
        lambda L: tuple(L.aminmax(f64(L, Y), dim=1, keepdim=True)),
        lambda: (Y.min(1, keepdims=True), Y.max(1, keepdims=True)),
    ),
    Case(
        "histogram",
        lambda L: tuple(L.histogram(f64(L, Y), 4)),
        lambda: histogram_reference(Y.ravel(), 4, -1, 5),
    ),
    Case(
        "histogram range",
        lambda L: tuple(L.histogram(f64(L, Y), 3, range=(0.0, 3.0))),
        lambda: histogram_reference(Y.ravel(), 3, 0, 3),
    ),
    Case(
        "histogram edges and weights",
        lambda L: tuple(
            L.histogram(f64(L, Y), f64(L, [-1.0, 0.0, 2.5, 5.0]), weight=f64(L, Y + 1))
        ),
        lambda: np.histogram(Y.ravel(), [-1.0, 0.0, 2.5, 5.0], weights=(Y + 1).ravel()),
    ),
    Case(
        "histogram density",
        lambda L: tuple(L.histogram(f64(L, Y), 5, density=True)),
        lambda: histogram_reference(Y.ravel(), 5, -1, 5, density=True),
    ),
]

ERRORS = [
    ("mv shapes", lambda L: L.mv(L.ones(2, 3), L.ones(2))),
    ("inner shapes", lambda L: L.inner(L.ones(2, 3), L.ones(2))),
    ("cross size", lambda L: L.cross(L.ones(2, 4), L.ones(2, 4), dim=1)),
    ("heaviside dtypes", lambda L: L.heaviside(L.ones(2), L.ones(2, dtype=L.float64))),
    ("nanmean ints", lambda L: L.nanmean(L.ones(2, dtype=L.int64))),
    ("diff 0-dim", lambda L: L.diff(L.tensor(1.0))),
]


(
    test_matches_reference,
    test_like_torch,
    test_refuses_bad_input,
    test_errors_like_torch,
) = table_tests(CASES, ERRORS)


@pytest.mark.parametrize("name", ["logit", "sinc", "xlogy", "copysign", "float_power", "heaviside"])
def test_in_place_forms_write_into_the_tensor(name):
    x = minitorch.tensor([0.25, 0.5, 0.75], dtype=minitorch.float64)
    args = {"xlogy": (x.clone(),), "copysign": (-x,), "float_power": (2.0,),
            "heaviside": (x.clone(),)}.get(name, ())  # fmt: skip
    expected = getattr(minitorch, name)(x, *args)
    version = x._version
    assert getattr(x, name + "_")(*args) is x
    assert x._version > version
    np.testing.assert_allclose(x.numpy(), expected.numpy())


def test_named_results():
    y = minitorch.tensor([[1.0, 3.0, 2.0]])
    result = minitorch.aminmax(y)
    assert result.min is result[0] and result.max.item() == 3.0 and result[0].item() == 1.0
    assert minitorch.cummax(y, 1).indices.tolist() == [[0, 1, 1]]
    hist = minitorch.histogram(y, 2)
    assert hist.hist.tolist() == [1.0, 2.0] and hist.bin_edges.tolist() == [1.0, 2.0, 3.0]


def test_cross_without_dim_warns_and_takes_the_first_dim_of_size_3():
    a = minitorch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    with pytest.warns(UserWarning, match="without specifying the dim"):
        product = minitorch.cross(a, a.roll(1, 0))
    np.testing.assert_allclose(product.numpy(), np.cross(a.numpy(), a.roll(1, 0).numpy(), axis=0))
