"""Writes into copies and in-place layout changes (`ops/copy_writes.py`), and the in-place
forms of the matrix updates, against NumPy, central differences and torch."""

import numpy as np
from surface_cases import Case, table_tests

import minitorch

M = np.arange(12.0).reshape(3, 4) - 5
S = np.array([[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.5, 3.0], [-2.0, 1.0, 0.5, -1.5]])


def m(lib):
    return lib.tensor(M.tolist(), dtype=lib.float64)


def written(base, key, values, add=False):
    out = base.copy()
    if add:
        np.add.at(out, key, values)
    else:
        out[key] = values
    return out


def masked(base, mask, source):
    out = base.copy()
    full = np.broadcast_to(mask, base.shape)
    out[full] = np.asarray(source).ravel()[: full.sum()]
    return out


def diagonal_filled(shape, value, wrap=False):
    out = np.zeros(shape)
    np.fill_diagonal(out, value, wrap=wrap)
    return out


CASES = [
    Case(
        "index_copy",
        lambda L: L.index_copy(m(L), 1, L.tensor([3, 0]), L.ones(3, 2, dtype=L.float64)),
        lambda: written(M, (slice(None), [3, 0]), 1.0),
        None,
        lambda L, a, b: L.index_copy(a, 1, L.tensor([3, 0]), b),
        [S, S[:, :2] * 3],
    ),
    Case(
        "index_copy_",
        lambda L: m(L).index_copy_(0, L.tensor([2]), L.zeros(1, 4, dtype=L.float64)),
        lambda: written(M, [2], 0.0),
    ),
    Case(
        "index_put",
        lambda L: L.index_put(
            m(L), (L.tensor([0, 2]), L.tensor([1, 1])), L.tensor([7.0, 8.0], dtype=L.float64)
        ),
        lambda: written(M, ([0, 2], [1, 1]), [7.0, 8.0]),
        None,
        lambda L, a, v: L.index_put(a, (L.tensor([0, 2]),), v),
        [S, S[:2]],
    ),
    Case(
        "index_put accumulate",
        lambda L: m(L).index_put((L.tensor([0, 0]),), L.ones(4, dtype=L.float64), accumulate=True),
        lambda: written(M, ([0, 0],), np.ones(4), add=True),
    ),
    Case(
        "masked_scatter",
        lambda L: L.masked_scatter(m(L), m(L) > 0, L.arange(20.0, dtype=L.float64)),
        lambda: masked(M, M > 0, np.arange(20.0)),
        None,
        lambda L, a, s: L.masked_scatter(a, L.tensor([True, False, True, False]), s),
        [S, S * 2],
    ),
    Case(
        "masked_scatter_ broadcast",
        lambda L: m(L).masked_scatter_(
            L.tensor([True, False, True, False]), L.arange(20.0, dtype=L.float64)
        ),
        lambda: masked(M, np.array([True, False, True, False]), np.arange(20.0)),
    ),
    Case(
        "fill_diagonal_",
        lambda L: L.zeros(3, 3).fill_diagonal_(2),
        lambda: diagonal_filled((3, 3), 2),
    ),
    Case(
        "fill_diagonal_ wrap",
        lambda L: L.zeros(7, 3).fill_diagonal_(2, wrap=True),
        lambda: diagonal_filled((7, 3), 2, True),
    ),
    Case(
        "fill_diagonal_ tall",
        lambda L: L.zeros(7, 3).fill_diagonal_(2),
        lambda: diagonal_filled((7, 3), 2),
    ),
    Case(
        "fill_diagonal_ wide",
        lambda L: L.zeros(2, 5).fill_diagonal_(2, True),
        lambda: diagonal_filled((2, 5), 2, True),
    ),
    Case(
        "fill_diagonal_ cube",
        lambda L: L.zeros(3, 3, 3).fill_diagonal_(4),
        lambda: diagonal_filled((3, 3, 3), 4),
    ),
    Case(
        "sum_to_size row",
        lambda L: m(L).sum_to_size(1, 4),
        lambda: M.sum(0, keepdims=True),
        None,
        lambda L, a: a.sum_to_size(3, 1),
        [S],
    ),
    Case("sum_to_size column", lambda L: m(L).sum_to_size(3, 1), lambda: M.sum(1, keepdims=True)),
    Case("sum_to_size fewer dims", lambda L: m(L).sum_to_size(4), lambda: M.sum(0)),
    Case("squeeze_", lambda L: tuple(m(L).unsqueeze(0).squeeze_().shape), lambda: (3, 4)),
    Case("unsqueeze_", lambda L: m(L).unsqueeze_(1).stride(), lambda: (4, 4, 1)),
    Case("transpose_", lambda L: m(L).transpose_(0, 1).stride(), lambda: (1, 4)),
    Case("swapaxes_", lambda L: m(L).swapaxes_(0, 1), lambda: M.T),
    Case("swapdims_", lambda L: m(L).swapdims_(1, 0), lambda: M.T),
    Case(
        "addmm_",
        lambda L: m(L).addmm_(m(L), L.eye(4, dtype=L.float64) * 2, beta=2),
        lambda: 2 * M + M @ (2 * np.eye(4)),
    ),
    Case(
        "addmv_",
        lambda L: L.ones(3, dtype=L.float64).addmv_(m(L), L.ones(4, dtype=L.float64)),
        lambda: 1 + M.sum(1),
    ),
    Case(
        "addr_",
        lambda L: m(L).addr_(L.ones(3, dtype=L.float64), L.arange(4.0, dtype=L.float64), alpha=2),
        lambda: M + 2 * np.outer(np.ones(3), np.arange(4.0)),
    ),
    Case(
        "baddbmm_",
        lambda L: L.ones(2, 3, 3, dtype=L.float64).baddbmm_(
            m(L).expand(2, 3, 4), m(L).t().expand(2, 4, 3)
        ),
        lambda: 1 + M @ M.T + np.zeros((2, 3, 3)),
    ),
    Case(
        "addbmm_",
        lambda L: L.ones(3, 3, dtype=L.float64).addbmm_(
            m(L).expand(2, 3, 4), m(L).t().expand(2, 4, 3), alpha=0.5
        ),
        lambda: 1 + (M @ M.T),
    ),
]

ERRORS = [
    (
        "masked_scatter short source",
        lambda L: L.zeros(3).masked_scatter(L.ones(3, dtype=L.bool), L.ones(2)),
    ),
    ("fill_diagonal_ vector", lambda L: L.zeros(3).fill_diagonal_(1)),
    ("fill_diagonal_ uneven", lambda L: L.zeros(2, 2, 3).fill_diagonal_(1)),
    ("sum_to_size", lambda L: L.zeros(2, 3).sum_to_size(2, 2)),
]


(
    test_matches_reference,
    test_like_torch,
    test_refuses_bad_input,
    test_errors_like_torch,
) = table_tests(CASES, ERRORS)


def test_copies_leave_the_input_and_in_place_views_keep_the_storage():
    a = minitorch.zeros(2, 3)
    minitorch.index_copy(a, 0, minitorch.tensor([1]), minitorch.ones(1, 3))
    minitorch.masked_scatter(a, a == 0, minitorch.ones(6))
    assert a.sum().item() == 0.0
    storage = a.storage().data_ptr()
    assert a.transpose_(0, 1) is a and a.shape == (3, 2) and a.storage().data_ptr() == storage
    assert a.unsqueeze_(0).shape == (1, 3, 2) and a.squeeze_(0).shape == (3, 2)
