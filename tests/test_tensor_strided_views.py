"""Strided views (`as_strided`, `Tensor.unfold`) and `frombuffer` against PyTorch and NumPy.

The compare cases' torch answers are recorded in tests/data/test_tensor_strided_views.json
(scripts/record_torch_answers.py); the values are also checked against NumPy's
`as_strided`/`sliding_window_view` and the gradients against central differences.
"""

import warnings

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats

import minitorch

CASES = {
    "as_strided windows": (lambda lib, x: lib.as_strided(x, (3, 2), (1, 1)), [floats(6, 1)], {}),
    "as_strided method with offset": (
        lambda lib, x: x.as_strided((2, 2), (1, 3), 1), [floats(6, 2)], {}),
    "as_strided of a slice keeps its offset": (
        lambda lib, x: lib.as_strided(x[2:], (2,), (2,)), [floats(6, 3)], {}),
    "as_strided of an expanded tensor": (
        lambda lib, x: lib.as_strided(x.expand(2, 6), (3,), (2,), 1), [floats(6, 4)], {}),
    "as_strided empty": (
        lambda lib, x: lib.as_strided(x, (0, 3), (1, 1)), [floats(4, 5)], {"grad": False}),
    "unfold": (lambda lib, x: x.unfold(1, 2, 1), [floats((3, 4), 6)], {}),
    "unfold step": (lambda lib, x: x.unfold(0, 2, 3), [floats((7, 2), 7)], {}),
    "unfold negative dim": (lambda lib, x: x.unfold(-1, 3, 2), [floats((2, 6), 8)], {}),
    "unfold of a transpose": (lambda lib, x: x.t().unfold(0, 2, 1), [floats((3, 4), 9)], {}),
    "unfold 0-dim": (lambda lib, x: x.sum().unfold(0, 1, 1), [floats(3, 10)], {}),
    "unfold size 0": (lambda lib, x: x.unfold(0, 0, 2), [floats(5, 11)], {"grad": False}),
}  # fmt: skip
ERRORS = {
    "as_strided out of bounds": lambda lib: lib.as_strided(lib.arange(6.0), (10,), (1,)),
    "as_strided negative stride": lambda lib: lib.as_strided(lib.arange(6.0), (2,), (-1,)),
    "as_strided lengths differ": lambda lib: lib.as_strided(lib.arange(6.0), (2, 2), (1,)),
    "as_strided negative size": lambda lib: lib.as_strided(lib.arange(6.0), (-2,), (1,)),
    "as_strided negative offset": lambda lib: lib.as_strided(lib.arange(6.0), (2,), (1,), -1),
    "unfold too large": lambda lib: lib.arange(6.0).unfold(0, 7, 1),
    "unfold step 0": lambda lib: lib.arange(6.0).unfold(0, 2, 0),
    "unfold negative size": lambda lib: lib.arange(6.0).unfold(0, -1, 1),
    "unfold dim out of range": lambda lib: lib.arange(6.0).unfold(1, 2, 1),
    "unfold 0-dim too large": lambda lib: lib.tensor(3.0).unfold(0, 2, 1),
    "frombuffer empty": lambda lib: lib.frombuffer(bytearray(), dtype=lib.int32),
    "frombuffer count 0": lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, count=0),
    "frombuffer offset too large": (
        lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, offset=10)),
    "frombuffer negative offset": (
        lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, offset=-1)),
    "frombuffer not a multiple": lambda lib: lib.frombuffer(bytearray(7), dtype=lib.int32),
    "frombuffer not a multiple after offset": (
        lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, offset=2)),
    "frombuffer count too large": (
        lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, count=3)),
    "frombuffer of no buffer": lambda lib: lib.frombuffer(8, dtype=lib.int32),
}  # fmt: skip
RECORDED = ComparedCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers


@pytest.mark.parametrize("key", sorted(CASES) + sorted(ERRORS))
def test_strided_views_like_torch(key):
    """Values, dtypes, node names and gradients (or the error) as torch gave them."""
    (RECORDED.check if key in CASES else RECORDED.check_error)(key)


def test_as_strided_matches_numpy_and_shares_storage():
    base = np.arange(10.0)
    t = minitorch.tensor(base)
    view = minitorch.as_strided(t, (3, 4), (2, 1), 1)
    expected = np.lib.stride_tricks.as_strided(base[1:], (3, 4), (16, 8))
    np.testing.assert_array_equal(view.numpy(), expected)
    assert view.stride() == (2, 1) and view.storage_offset() == 1
    t[3] = 100.0
    assert view[1, 0].item() == 100.0


def test_as_strided_gradient_counts_repeated_elements():
    """$\\sum_j w_j x_{p_j}$ has gradient $\\sum_{p_j = i} w_j$ at element $i$."""
    x = minitorch.tensor(floats(5, 12), requires_grad=True)
    weights = minitorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    (x.as_strided((3, 2), (1, 1)) * weights).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 5.0, 9.0, 6.0, 0.0])
    minitorch.grad_check(
        lambda a: (a.as_strided((3, 2), (1, 2)) ** 2).sum(), x.detach().requires_grad_()
    )


def test_unfold_matches_numpy_and_is_a_view():
    base = floats((4, 7), 13)
    t = minitorch.tensor(base)
    ours = t.unfold(1, 3, 2)
    windows = np.lib.stride_tricks.sliding_window_view(base, 3, axis=1)[:, ::2]
    np.testing.assert_array_equal(ours.numpy(), windows)
    assert ours.shape == (4, 3, 3) and ours.stride() == (7, 2, 1)
    t[0, 2] = 50.0
    assert ours[0, 0, 2].item() == 50.0 and ours[0, 1, 0].item() == 50.0


def test_unfold_gradient_against_central_differences():
    x = minitorch.tensor(floats((2, 5), 14), requires_grad=True)
    (x.unfold(1, 2, 1) ** 2).sum().backward()
    counts = np.array([1.0, 2.0, 2.0, 2.0, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() * counts)
    minitorch.grad_check(lambda a: (a.unfold(0, 2, 1) ** 3).sum(), x.detach().requires_grad_())


def test_frombuffer_shares_memory_with_the_buffer():
    buffer = bytearray(np.array([1, 2, 3, 4], dtype=np.int16).tobytes())
    t = minitorch.frombuffer(buffer, dtype=minitorch.int16, count=2, offset=2)
    assert t.dtype is minitorch.int16 and t.tolist() == [2, 3]
    t[0] = 7
    assert np.frombuffer(buffer, dtype=np.int16).tolist() == [1, 7, 3, 4]
    floats_view = minitorch.frombuffer(
        bytearray(np.array([0.5, 1.5]).tobytes()), dtype=minitorch.float64, requires_grad=True
    )
    assert floats_view.requires_grad and floats_view.tolist() == [0.5, 1.5]


def test_frombuffer_warns_for_a_read_only_buffer():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = minitorch.frombuffer(bytes(8), dtype=minitorch.int32)
    assert t.tolist() == [0, 0]
    assert any("The given buffer is not writable" in str(w.message) for w in caught)
