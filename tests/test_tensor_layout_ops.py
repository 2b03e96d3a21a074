"""Creation and layout names (`ops/layouts.py`) against NumPy, central differences and torch."""

import itertools
import warnings

import numpy as np
from surface_cases import Case, table_tests

import minitorch

A24 = np.arange(24.0).reshape(2, 3, 4)
M23 = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -4.0]])
V3 = np.array([1.5, -2.0, 0.5])


def x24(lib):
    return lib.arange(24.0).reshape(2, 3, 4)


def diag_embed_reference(a: np.ndarray, offset: int) -> np.ndarray:
    n = a.shape[-1] + abs(offset)
    out = np.zeros((*a.shape[:-1], n, n))
    for i in range(a.shape[-1]):
        r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
        out[..., r, c] = a[..., i]
    return out


def block_diag_reference(*blocks) -> np.ndarray:
    blocks = [np.atleast_2d(b) for b in blocks]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)))
    r = c = 0
    for b in blocks:
        out[r : r + b.shape[0], c : c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


CASES = [
    Case(
        "meshgrid ij",
        lambda L: L.meshgrid(L.arange(3), L.arange(4), indexing="ij"),
        lambda: tuple(np.meshgrid(np.arange(3), np.arange(4), indexing="ij")),
        None,
        lambda L, a, b: L.stack(L.meshgrid(a, b, indexing="ij")),
        [V3, V3[:2]],
    ),
    Case(
        "meshgrid xy, three",
        lambda L: L.meshgrid([L.arange(3), L.arange(4), L.arange(2)], indexing="xy"),
        lambda: tuple(np.meshgrid(np.arange(3), np.arange(4), np.arange(2), indexing="xy")),
    ),
    Case(
        "logspace",
        lambda L: L.logspace(-2, 3, 7, dtype=L.float64),
        lambda: np.logspace(-2, 3, 7),
        "float64",
    ),
    Case(
        "logspace base 2",
        lambda L: L.logspace(0, 3, 4, base=2),
        lambda: 2.0 ** np.arange(4),
        "float32",
    ),
    Case(
        "column_stack",
        lambda L: L.column_stack(
            [L.arange(3), L.arange(6).reshape(3, 2), L.tensor([[7], [8], [9]])]
        ),
        lambda: np.column_stack([np.arange(3), np.arange(6).reshape(3, 2), [[7], [8], [9]]]),
        "int64",
        lambda L, a, b: L.column_stack([a, b.t()]),
        [V3, M23],
    ),
    Case(
        "unflatten",
        lambda L: x24(L).unflatten(2, (2, -1)),
        lambda: A24.reshape(2, 3, 2, 2),
        None,
        lambda L, a: L.unflatten(a, 1, (3, 1)),
        [M23],
    ),
    Case(
        "movedim",
        lambda L: L.movedim(x24(L), (0, 1), (2, 0)),
        lambda: np.moveaxis(A24, (0, 1), (2, 0)),
        None,
        lambda L, a: L.movedim(a, 0, 1),
        [M23],
    ),
    Case("moveaxis", lambda L: x24(L).moveaxis(-1, 0), lambda: np.moveaxis(A24, -1, 0)),
    Case("atleast_1d", lambda L: L.atleast_1d(L.tensor(3.0)), lambda: np.atleast_1d(3.0)),
    Case(
        "atleast_2d, two",
        lambda L: L.atleast_2d(L.tensor(3.0), L.arange(3.0)),
        lambda: tuple(np.atleast_2d(3.0, np.arange(3.0))),
    ),
    Case(
        "atleast_3d, list",
        lambda L: L.atleast_3d([L.arange(3.0), L.ones(2, 2)]),
        lambda: tuple(np.atleast_3d(np.arange(3.0), np.ones((2, 2)))),
    ),
    Case(
        "fliplr",
        lambda L: L.fliplr(x24(L)),
        lambda: np.fliplr(A24),
        None,
        lambda L, a: a.fliplr(),
        [M23],
    ),
    Case(
        "flipud",
        lambda L: L.flipud(x24(L)),
        lambda: np.flipud(A24),
        None,
        lambda L, a: a.flipud(),
        [M23],
    ),
    *[
        Case(
            f"rot90 k={k}",
            lambda L, k=k: L.rot90(x24(L), k, (0, 2)),
            lambda k=k: np.rot90(A24, k, (0, 2)),
            None,
            lambda L, a, k=k: L.rot90(a, k),
            [M23],
        )
        for k in (-1, 0, 1, 2, 3, 5)
    ],
    Case("hsplit", lambda L: L.hsplit(x24(L), 3), lambda: tuple(np.hsplit(A24, 3))),
    Case(
        "hsplit vector",
        lambda L: L.hsplit(L.arange(6.0), [2, 5]),
        lambda: tuple(np.hsplit(np.arange(6.0), [2, 5])),
    ),
    Case("vsplit", lambda L: L.vsplit(x24(L), [1]), lambda: tuple(np.vsplit(A24, [1]))),
    Case(
        "dsplit",
        lambda L: L.dsplit(x24(L), 2),
        lambda: tuple(np.dsplit(A24, 2)),
        None,
        lambda L, a: L.dsplit(a.reshape(1, 2, 3), [1])[1],
        [M23],
    ),
    Case(
        "broadcast_shapes",
        lambda L: L.broadcast_shapes((2, 1), (3, 1, 4), 4),
        lambda: np.broadcast_shapes((2, 1), (3, 1, 4), (4,)),
    ),
    Case(
        "broadcast_tensors",
        lambda L: L.broadcast_tensors(L.arange(3.0), L.ones(2, 1)),
        lambda: tuple(np.broadcast_arrays(np.arange(3.0), np.ones((2, 1)))),
        None,
        lambda L, a, b: L.broadcast_tensors(a, b)[0] * L.broadcast_tensors(a, b)[1],
        [V3, M23[:, :1]],
    ),
    Case(
        "tril_indices",
        lambda L: L.tril_indices(4, 3, 1),
        lambda: np.array(np.tril_indices(4, 1, 3)),
        "int64",
    ),
    Case(
        "triu_indices",
        lambda L: L.triu_indices(3, 5, -1),
        lambda: np.array(np.triu_indices(3, -1, 5)),
        "int64",
    ),
    Case(
        "block_diag",
        lambda L: L.block_diag(L.ones(2, 2), L.tensor(5.0), L.arange(3.0)),
        lambda: block_diag_reference(np.ones((2, 2)), 5.0, np.arange(3.0)),
        "float32",
        lambda L, a, b: L.block_diag(a, b),
        [M23, V3],
    ),
    Case(
        "cartesian_prod",
        lambda L: L.cartesian_prod(L.arange(3), L.arange(2)),
        lambda: np.array(list(itertools.product(range(3), range(2)))),
        "int64",
        lambda L, a, b: L.cartesian_prod(a, b),
        [V3, V3[:2]],
    ),
    Case(
        "diag_embed",
        lambda L: L.diag_embed(L.arange(6.0).reshape(2, 3), 1),
        lambda: diag_embed_reference(np.arange(6.0).reshape(2, 3), 1),
        None,
        lambda L, a: L.diag_embed(a, -1),
        [M23],
    ),
    Case(
        "diag_embed dims",
        lambda L: L.diag_embed(L.arange(6.0).reshape(2, 3), -1, 0, 2),
        lambda: np.moveaxis(
            diag_embed_reference(np.arange(6.0).reshape(2, 3), -1), (-2, -1), (0, 2)
        ),
    ),
    Case(
        "diag_embed dims reversed",
        lambda L: L.diag_embed(L.arange(6.0).reshape(2, 3), 0, 2, 0),
        lambda: np.moveaxis(
            diag_embed_reference(np.arange(6.0).reshape(2, 3), 0), (-2, -1), (2, 0)
        ),
    ),
    Case(
        "diagflat",
        lambda L: L.diagflat(L.arange(4.0).reshape(2, 2), -1),
        lambda: np.diagflat(np.arange(4.0), -1),
        None,
        lambda L, a: a.diagflat(1),
        [M23],
    ),
]

ERRORS = [
    ("meshgrid dtypes", lambda L: L.meshgrid(L.arange(3), L.arange(2.0), indexing="ij")),
    ("meshgrid indexing", lambda L: L.meshgrid(L.arange(3), indexing="yx")),
    ("meshgrid 2-d", lambda L: L.meshgrid(L.ones(2, 2), indexing="ij")),
    ("unflatten sizes", lambda L: L.ones(6).unflatten(0, (4, 2))),
    ("movedim counts", lambda L: L.ones(2, 3).movedim((0, 1), 0)),
    ("fliplr vector", lambda L: L.fliplr(L.ones(3))),
    ("rot90 dims", lambda L: L.rot90(L.ones(2, 2), 1, (0, 0))),
    ("rot90 vector", lambda L: L.rot90(L.ones(2))),
    ("hsplit indivisible", lambda L: L.hsplit(L.ones(2, 5), 2)),
    ("vsplit vector", lambda L: L.vsplit(L.ones(4), 2)),
    ("block_diag 3-d", lambda L: L.block_diag(L.ones(1, 1, 1))),
    ("broadcast mismatch", lambda L: L.broadcast_shapes((2,), (3,))),
]


(
    test_matches_reference,
    test_like_torch,
    test_refuses_bad_input,
    test_errors_like_torch,
) = table_tests(CASES, ERRORS, (RuntimeError, ValueError, TypeError))


def test_meshgrid_without_indexing_warns_and_is_ij():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grid_x, _ = minitorch.meshgrid(minitorch.arange(2), minitorch.arange(3))
    assert "indexing" in str(caught[0].message)
    assert grid_x.tolist() == [[0, 0, 0], [1, 1, 1]]


def test_movedim_and_split_results_are_views():
    x = minitorch.zeros(2, 3, 4)
    x.movedim(0, -1)[0, 0, 1] = 5.0
    minitorch.hsplit(x, 3)[2][0, 0, 0] = 7.0
    assert x[1, 0, 0].item() == 5.0 and x[0, 2, 0].item() == 7.0
