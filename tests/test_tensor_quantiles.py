"""`quantile`, `nanquantile`, `nanmedian` and `renorm` (`ops/quantiles.py`) against NumPy,
central differences and torch."""

import numpy as np
import pytest
from surface_cases import Case, table_tests

import minitorch

NAN = float("nan")
Y = np.array([[1.0, 3.0, 2.0, 3.0, 7.0], [0.0, -1.0, 5.0, 5.0, 2.0]])
Z = np.array([[1.0, NAN, 2.0, 3.0, 7.0], [0.0, -1.0, NAN, NAN, 2.0], [NAN] * 5])
QS = [0.1, 0.5, 0.625]
S = np.array([[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.5, 3.0], [-2.0, 1.0, 0.7, -1.5]])


def f64(lib, values):
    return lib.tensor(np.asarray(values).tolist(), dtype=lib.float64)


def lower_nanmedian(values: np.ndarray, axis: int):
    """The lower median of the non-NaN values and its index (the middle index if none)."""
    moved = np.moveaxis(values, axis, -1)
    order = np.argsort(moved, -1, kind="stable")  # NaN last, as sort
    medians, indices = np.empty(moved.shape[:-1]), np.empty(moved.shape[:-1], dtype=np.int64)
    for row in np.ndindex(moved.shape[:-1]):
        count = int(np.sum(~np.isnan(moved[row]))) or moved.shape[-1]
        indices[row] = order[row][(count - 1) // 2]
        medians[row] = moved[row][indices[row]]
    return medians, indices


def renormed(values, p, dim, maxnorm):
    others = tuple(k for k in range(values.ndim) if k != dim)
    norms = np.sum(np.abs(values) ** p, axis=others, keepdims=True) ** (1 / p)
    return values * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


CASES = [
    *[
        Case(
            f"quantile {mode}",
            lambda L, mode=mode: L.quantile(f64(L, Y), 0.4, interpolation=mode),
            lambda mode=mode: np.quantile(Y, 0.4, method=mode),
            None,
            lambda L, a, mode=mode: L.quantile(a, 0.3, dim=1, interpolation=mode),
            [S],
        )
        for mode in ("linear", "lower", "higher", "midpoint", "nearest")
    ],
    *[
        Case(
            f"quantile {mode} several q",
            lambda L, mode=mode: L.quantile(f64(L, Y), f64(L, QS), dim=1, interpolation=mode),
            lambda mode=mode: np.quantile(Y, QS, axis=1, method=mode),
        )
        for mode in ("linear", "lower", "higher", "midpoint", "nearest")
    ],
    *[
        Case(
            f"nanquantile {mode}",
            lambda L, mode=mode: L.nanquantile(
                f64(L, Z), f64(L, QS), dim=1, keepdim=True, interpolation=mode
            ),
            lambda mode=mode: np.nanquantile(Z, QS, axis=1, keepdims=True, method=mode),
        )
        for mode in ("linear", "lower", "higher", "midpoint", "nearest")
    ],
    Case(
        "quantile with NaN",
        lambda L: L.quantile(f64(L, Z), 0.3, dim=0),
        lambda: np.quantile(Z, 0.3, axis=0),
    ),
    Case(
        "quantile keepdim",
        lambda L: f64(L, Y).quantile(0.5, 0, keepdim=True),
        lambda: np.quantile(Y, 0.5, 0, keepdims=True),
    ),
    Case(
        "quantile all keepdim",
        lambda L: f64(L, Y).quantile(f64(L, [0.5, 1.0]), keepdim=True),
        lambda: np.quantile(Y, [0.5, 1.0], keepdims=True),
    ),
    Case(
        "nanquantile all", lambda L: L.nanquantile(f64(L, Z), 0.5), lambda: np.nanquantile(Z, 0.5)
    ),
    Case("nanmedian all", lambda L: L.nanmedian(f64(L, Z)), lambda: np.float64(2.0)),
    Case(
        "nanmedian dim",
        lambda L: tuple(L.nanmedian(f64(L, Z), 1)),
        lambda: lower_nanmedian(Z, 1),
        None,
        lambda L, a: L.nanmedian(a, 1).values,
        [S],
    ),
    Case(
        "nanmedian keepdim",
        lambda L: tuple(L.nanmedian(f64(L, Z), 0, keepdim=True)),
        lambda: tuple(np.expand_dims(r, 0) for r in lower_nanmedian(Z, 0)),
    ),
    Case(
        "renorm",
        lambda L: L.renorm(f64(L, Y), 2, 0, 5),
        lambda: renormed(Y, 2, 0, 5),
        None,
        lambda L, a: L.renorm(a, 2, 1, 1.5),
        [S],
    ),
    Case("renorm p=1", lambda L: f64(L, Y).renorm(1, 1, 3), lambda: renormed(Y, 1, 1, 3)),
    Case(
        "quantile of a 0-d q tensor",
        lambda L: L.quantile(f64(L, Y), L.tensor(0.4, dtype=L.float64), dim=1),
        lambda: np.quantile(Y, 0.4, axis=1),
    ),
]

# PyTorch's checks of quantile and nanquantile, in its order, with its messages (torch 2.13),
# which name quantile() for both.
QUANTILE_ERRORS = [
    (
        "nanquantile q 1.5",
        lambda L: L.ones(0, dtype=L.int64).nanquantile(1.5, interpolation="cubic"),
        "quantile() q must be in the range [0, 1] but got 1.5",
    ),
    (
        "nanquantile interpolation",
        lambda L: L.ones(0, dtype=L.int64).nanquantile(0.5, interpolation="cubic"),
        "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
        "but got cubic",
    ),
    (
        "nanquantile empty",
        lambda L: L.ones(0, dtype=L.int64).nanquantile(L.ones(1, 1)),
        "quantile() input tensor must be non-empty",
    ),
    (
        "quantile q of two dims",
        lambda L: L.ones(3, dtype=L.int64).quantile(L.ones(1, 1)),
        "quantile() q must be a scalar or 1D tensor",
    ),
    (
        "nanquantile ints",
        lambda L: L.tensor([1, 2]).nanquantile(L.tensor([0.5], dtype=L.float64)),
        "quantile() input tensor must be either float or double dtype",
    ),
    (
        "quantile q of another dtype",
        lambda L: L.ones(3).quantile(L.tensor([1.5], dtype=L.float64)),
        "quantile() q tensor must be same dtype as the input tensor",
    ),
]

ERRORS = [
    ("quantile ints", lambda L: L.quantile(L.tensor([1, 2]), 0.5)),
    ("quantile q range", lambda L: L.quantile(L.tensor([1.0, 2.0]), 1.5)),
    (
        "quantile interpolation",
        lambda L: L.quantile(L.tensor([1.0, 2.0]), 0.5, interpolation="cubic"),
    ),
    ("nanmedian empty dim", lambda L: L.nanmedian(L.ones(2, 0), 1)),
    *[(label, call) for label, call, _ in QUANTILE_ERRORS],
]


(
    test_matches_reference,
    test_like_torch,
    test_refuses_bad_input,
    test_errors_like_torch,
) = table_tests(CASES, ERRORS, (RuntimeError, ValueError, IndexError))


def test_renorm_in_place():
    x = minitorch.tensor(Y)
    assert x.renorm_(2, 0, 5) is x
    np.testing.assert_allclose(x.numpy(), renormed(Y, 2, 0, 5))


@pytest.mark.parametrize(
    ("label", "call", "message"), QUANTILE_ERRORS, ids=[label for label, _, _ in QUANTILE_ERRORS]
)
def test_quantile_refuses_with_torchs_message(label, call, message):
    with pytest.raises(RuntimeError) as error:
        call(minitorch)
    assert str(error.value) == message


def test_quantile_checks_the_values_of_a_q_tensor_on_the_cpu():
    """As PyTorch, which checks them only there, sparing an accelerator the wait."""
    ones = minitorch.ones(3, device="cpu")
    with pytest.raises(RuntimeError) as error:
        ones.nanquantile(minitorch.tensor([0.5, 1.5], device="cpu"))
    assert str(error.value) == "quantile() q values must be in the range [0, 1]"
