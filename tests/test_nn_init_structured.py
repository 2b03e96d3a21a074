"""minitorch.nn.init's structured fills (eye_, dirac_, orthogonal_, sparse_), the
`generator=` argument and the deprecated names: against NumPy references (identity,
Dirac delta, QR with a positive diagonal) and live against torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.nn import init

DEPRECATED = [
    "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
    "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse",
]  # fmt: skip


def seeded(seed: int = 0) -> minitorch.Generator:
    return minitorch.Generator().manual_seed(seed)


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (4, 1)])
def test_eye(shape):
    w = minitorch.full(shape, 7.0, requires_grad=True)
    assert init.eye_(w) is w and w.requires_grad
    np.testing.assert_array_equal(w.detach().numpy(), np.eye(*shape))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(minitorch.empty(2, 2, 2))


def numpy_dirac(shape, groups):
    expected = np.zeros(shape)
    per_group = shape[0] // groups
    centre = tuple(size // 2 for size in shape[2:])
    for g in range(groups):
        for d in range(min(per_group, shape[1])):
            expected[(g * per_group + d, d, *centre)] = 1
    return expected


@pytest.mark.parametrize(
    ("shape", "groups"), [((4, 4, 3), 1), ((6, 2, 3, 5), 3), ((2, 3, 3, 3, 3), 1), ((4, 1, 2), 2)]
)
def test_dirac(shape, groups):
    w = minitorch.full(shape, 3.0)
    assert init.dirac_(w, groups) is w
    np.testing.assert_array_equal(w.numpy(), numpy_dirac(shape, groups))


def test_dirac_is_an_identity_convolution_and_checks_its_input():
    x = minitorch.randn(2, 3, 8)
    w = init.dirac_(minitorch.empty(3, 3, 5))
    np.testing.assert_allclose(F.conv1d(x, w, padding=2).numpy(), x.numpy(), atol=1e-7)
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions"):
        init.dirac_(minitorch.empty(2, 2))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(minitorch.empty(3, 3, 3), groups=2)


def numpy_orthogonal(draw: np.ndarray, gain: float) -> np.ndarray:
    """$Q$ of the draw's QR (of its transpose when wide) with $R$'s diagonal made positive."""
    wide = draw.shape[0] < draw.shape[1]
    q, r = np.linalg.qr(draw.T if wide else draw)
    q = q * np.sign(np.diag(r))
    return gain * (q.T if wide else q)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (6, 2, 3), (2, 3, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal_is_the_qr_of_the_normal_draw(shape, dtype):
    dtype = getattr(minitorch, dtype)
    rows, cols = shape[0], math.prod(shape[1:])
    draw = minitorch.empty(rows, cols, dtype=dtype).normal_(0, 1, generator=seeded(3))
    w = minitorch.empty(*shape, dtype=dtype)
    assert init.orthogonal_(w, gain=1.5, generator=seeded(3)) is w
    flat = w.numpy().reshape(rows, cols)
    tol = 1e-5 if dtype is minitorch.float32 else 1e-12
    np.testing.assert_allclose(flat, numpy_orthogonal(draw.numpy().astype(float), 1.5), atol=tol)
    small = min(rows, cols)
    gram = flat @ flat.T if rows <= cols else flat.T @ flat
    np.testing.assert_allclose(gram, 2.25 * np.eye(small), atol=10 * tol)


def test_orthogonal_edge_cases():
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions"):
        init.orthogonal_(minitorch.empty(3))
    assert init.orthogonal_(minitorch.empty(0, 3)).shape == (0, 3)


@pytest.mark.parametrize(("sparsity", "shape"), [(0.5, (6, 4)), (0.1, (5, 3)), (1.0, (3, 2))])
def test_sparse_zeros_ceil_of_sparsity_rows_in_each_column(sparsity, shape):
    draw = minitorch.empty(*shape).normal_(0, 0.5, generator=seeded(1)).numpy()
    w = init.sparse_(minitorch.empty(*shape), sparsity, std=0.5, generator=seeded(1)).numpy()
    zeros = w == 0
    assert (zeros.sum(axis=0) == math.ceil(sparsity * shape[0])).all()
    np.testing.assert_array_equal(w[~zeros], draw[~zeros])
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.sparse_(minitorch.empty(2, 2, 2), 0.5)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [("uniform_", {"a": -1.0, "b": 2.0}), ("normal_", {"std": 3.0}), ("trunc_normal_", {}),
     ("xavier_uniform_", {}), ("xavier_normal_", {}), ("kaiming_uniform_", {}),
     ("kaiming_normal_", {}), ("orthogonal_", {}), ("sparse_", {"sparsity": 0.0})],
)  # fmt: skip
def test_a_generator_makes_fills_repeatable(name, kwargs):
    fill = getattr(init, name)
    first = fill(minitorch.empty(4, 5), generator=seeded(9), **kwargs).numpy()
    again = fill(minitorch.empty(4, 5), generator=seeded(9), **kwargs).numpy()
    other = fill(minitorch.empty(4, 5), generator=seeded(10), **kwargs).numpy()
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


@pytest.mark.parametrize("old", DEPRECATED)
def test_deprecated_names_warn_and_fill(old):
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(old, ())
    shape = (2, 2, 3) if old == "dirac" else (3, 4)
    with pytest.warns(FutureWarning, match=f"`nn.init.{old}` is now deprecated in favor of"):
        w = getattr(init, old)(minitorch.zeros(*shape), *args)
    assert w.shape == shape and getattr(init, old).__name__ == old
    if old in ("constant", "eye", "dirac"):
        expected = getattr(init, old + "_")(minitorch.zeros(*shape), *args)
        np.testing.assert_array_equal(w.numpy(), expected.numpy())


@pytest.mark.torch
def test_names_are_torchs(torch):
    theirs = {n for n in dir(torch.nn.init) if not n.startswith("_") and n[0].islower()}
    theirs -= {"math", "torch", "warnings"}
    assert set(init.__all__) == theirs


@pytest.mark.torch
@pytest.mark.parametrize(("shape", "groups"), [((6, 2, 3, 5), 3), ((2, 3, 3, 3, 3), 1)])
def test_eye_and_dirac_against_torch(torch, shape, groups):
    theirs = torch.nn.init.dirac_(torch.empty(*shape), groups)
    np.testing.assert_array_equal(init.dirac_(minitorch.empty(*shape), groups).numpy(), theirs)
    np.testing.assert_array_equal(
        init.eye_(minitorch.empty(3, 5)).numpy(), torch.nn.init.eye_(torch.empty(3, 5))
    )


@pytest.mark.torch
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (6, 2, 3)])
def test_orthogonal_against_torchs_factorisation(torch, shape):
    """torch's steps (its QR and sign fix) on the draw our generator makes."""
    rows, cols = shape[0], math.prod(shape[1:])
    draw = minitorch.empty(rows, cols, dtype=minitorch.float64).normal_(0, 1, generator=seeded())
    flattened = torch.tensor(draw.numpy())
    wide = rows < cols
    q, r = torch.linalg.qr(flattened.T if wide else flattened)
    q = q * torch.diag(r).sign()
    expected = (q.T if wide else q).reshape(shape) * 0.5
    ours = init.orthogonal_(minitorch.empty(*shape, dtype=minitorch.float64), 0.5, seeded())
    np.testing.assert_allclose(ours.numpy(), expected.numpy(), atol=1e-12)
