"""Factories (`ops/factories.py`) against NumPy (its windows are the symmetric ones; a
periodic window of N points is the symmetric one of N + 1 without its last) and torch."""

import itertools

import numpy as np
import pytest
from surface_cases import Case, table_tests

import minitorch

NUMPY_WINDOWS = {
    "hann_window": np.hanning,
    "hamming_window": np.hamming,
    "blackman_window": np.blackman,
    "bartlett_window": np.bartlett,
    "kaiser_window": lambda n: np.kaiser(n, 12.0),
}


def numpy_window(name: str, n: int, periodic: bool) -> np.ndarray:
    if n == 0:
        return np.zeros(0)
    if n == 1:
        return np.ones(1)
    return NUMPY_WINDOWS[name](n + 1)[:-1] if periodic else NUMPY_WINDOWS[name](n)


CASES = [
    Case(
        "as_tensor",
        lambda L: L.as_tensor([1, 2], dtype=L.float64),
        lambda: np.array([1.0, 2.0]),
        "float64",
    ),
    Case("asarray", lambda L: L.asarray([[1.0, 2.0]]), lambda: np.array([[1.0, 2.0]]), "float32"),
    Case("scalar_tensor", lambda L: L.scalar_tensor(3), lambda: np.float32(3.0), "float32"),
    Case("range", lambda L: L.range(1, 4), lambda: np.arange(1.0, 5.0), "float32"),
    Case("range step", lambda L: L.range(0, 1, 0.25, dtype=L.float64), lambda: np.arange(5) * 0.25),
    Case("empty_strided", lambda L: L.empty_strided((2, 3), (1, 2)).stride(), lambda: (1, 2)),
    *[
        Case(
            f"{w} {n} {'periodic' if p else 'symmetric'}",
            lambda L, w=w, n=n, p=p: getattr(L, w)(n, p, dtype=L.float64),
            lambda w=w, n=n, p=p: numpy_window(w, n, p),
            "float64",
        )
        for w in NUMPY_WINDOWS
        for n in (0, 1, 5, 8)
        for p in (True, False)
    ],
    Case(
        "kaiser beta",
        lambda L: L.kaiser_window(7, False, 5.0, dtype=L.float64),
        lambda: np.kaiser(7, 5.0),
    ),
    Case(
        "hamming coefficients",
        lambda L: L.hamming_window(6, False, 0.5, 0.3, dtype=L.float64),
        lambda: 0.5 - 0.3 * np.cos(2 * np.pi * np.arange(6) / 5),
    ),
    Case("vander", lambda L: L.vander(L.tensor([1, 2, 3])), lambda: np.vander([1, 2, 3]), "int64"),
    Case(
        "vander increasing",
        lambda L: L.vander(L.tensor([1.0, 2.0, 3.0]), 4, True),
        lambda: np.vander([1.0, 2.0, 3.0], 4, True),
    ),
    Case(
        "combinations",
        lambda L: L.combinations(L.tensor([1, 2, 3, 4])),
        lambda: np.array(list(itertools.combinations([1, 2, 3, 4], 2))),
    ),
    Case(
        "combinations r=3",
        lambda L: L.combinations(L.tensor([1.0, 2.0, 3.0]), 3),
        lambda: np.array([[1.0, 2.0, 3.0]]),
        None,
        lambda L, x: L.combinations(x),
        [np.array([0.5, -1.0, 2.0])],
    ),
    Case(
        "combinations with replacement",
        lambda L: L.combinations(L.tensor([1, 2, 3]), 2, True),
        lambda: np.array(list(itertools.combinations_with_replacement([1, 2, 3], 2))),
    ),
    Case(
        "unravel_index",
        lambda L: L.unravel_index(L.tensor([4, 1, 11]), (3, 4)),
        lambda: np.unravel_index([4, 1, 11], (3, 4)),
    ),
    Case(
        "unravel_index 0-dim",
        lambda L: L.unravel_index(L.tensor(5), (2, 3)),
        lambda: tuple(np.array(i) for i in np.unravel_index(5, (2, 3))),
    ),
    Case("randint_like", lambda L: tuple(L.randint_like(L.ones(2, 3), 5).shape), lambda: (2, 3)),
]


test_matches_reference, test_like_torch, _, _ = table_tests(CASES, [])


def test_as_tensor_shares_what_it_can():
    array = np.arange(3.0)
    shared = minitorch.as_tensor(array)
    shared[0] = 9.0
    assert array[0] == 9.0
    t = minitorch.ones(2)
    assert minitorch.as_tensor(t) is t and minitorch.asarray(t) is t
    assert minitorch.asarray(t, copy=True) is not t
    assert minitorch.as_tensor(t, dtype=minitorch.float64).dtype is minitorch.float64


def test_randint_like_draws_in_range():
    draws = minitorch.randint_like(minitorch.zeros(1000, dtype=minitorch.int64), 2, 5)
    assert draws.dtype is minitorch.int64 and set(draws.tolist()) == {2, 3, 4}


def test_bad_input():
    with pytest.raises(RuntimeError, match="mismatch in length"):
        minitorch.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match="1D vector"):
        minitorch.combinations(minitorch.ones(2, 2))
    with pytest.raises(TypeError, match="integer"):
        minitorch.unravel_index(minitorch.tensor([1.0]), (2,))


def test_vander_gradient():
    """Against central differences only: torch 2.13's own vander backward raises (it
    modifies a tensor its graph saved)."""
    x = minitorch.tensor([0.5, -1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    minitorch.grad_check(lambda v: minitorch.vander(v, 3), x)
