"""`put`/`put_`, `index_reduce`/`index_reduce_` and `mode` against PyTorch and NumPy.

The compare cases' torch answers are recorded in tests/data/test_tensor_index_writes_and_mode.json
(scripts/record_torch_answers.py); values are also checked against NumPy loops and gradients
against central differences. The three are compositions of `index_put`, `scatter_reduce` and
`gather`, so their gradient nodes carry those operations' names, not torch's (`PutBackward0`,
`IndexReduceBackward0`, `ModeBackward0`): the compare cases leave names out and
`test_node_names_are_the_compositions` asserts ours.
"""

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats

import minitorch

SOURCE = floats((4, 3), 1, 0.5, 2.0)
INDEX = np.array([0, 4, 2, 0])
BASE = floats((5, 3), 2, 0.5, 2.0)
NAMES = {"names": False}
TIES = {"names": False, "central": False}  # a tie moves under central differences' steps
CASES = {
    "put": (
        lambda lib, a, s: a.put(lib.tensor([1, -1, 0]), s), [floats((2, 3), 3), floats(3, 4)],
        NAMES),
    "put accumulate": (
        lambda lib, a, s: lib.put(a, lib.tensor([1, -1, 1]), s, accumulate=True),
        [floats((2, 3), 5), floats(3, 6)], NAMES),
    "put_ of a transpose": (
        lambda lib, a, s: a.t().clone().put_(lib.tensor([[0, 5]]), s),
        [floats((2, 3), 7), floats((2, 1), 8)], NAMES),
    "mode": (
        lambda lib, x: lib.mode(x.long()),
        [np.array([[1, 2, 2, 3, 3, 1], [5, 5, 4, 4, 4, 0]])], {"grad": False}),
    "mode of floats along dim 0 keepdim": (
        lambda lib, x: lib.mode(x, 0, keepdim=True),
        [np.array([[1.0, 2.0], [1.0, 3.0], [2.0, 3.0]])], TIES),
    "mode method of ties": (
        lambda lib, x: x.mode(), [np.array([3.0, 1.0, 3.0, 1.0, 2.0, 1.0, 3.0])], TIES),
    "mode 0-dim": (lambda lib, x: x.sum().mode(), [floats(3, 9)], NAMES),
}  # fmt: skip
for reduce in ("prod", "mean", "amax", "amin"):
    for include_self in (True, False):
        CASES[f"index_reduce {reduce} include_self={include_self}"] = (
            lambda lib, a, s, reduce=reduce, include_self=include_self: a.index_reduce(
                0, lib.tensor(INDEX), s, reduce, include_self=include_self
            ),
            [BASE, SOURCE],
            NAMES,
        )
CASES["index_reduce_ along dim 1"] = (
    lambda lib, a, s: a.clone().index_reduce_(1, lib.tensor([2, 0]), s, "mean"),
    [floats((3, 4), 10), floats((3, 2), 11)],
    NAMES,
)
CASES["torch.index_reduce int32 index"] = (
    lambda lib, a, s: lib.index_reduce(a, 0, lib.tensor([1, 1], dtype=lib.int32), s, "amax"),
    [floats((3, 2), 12), floats((2, 2), 13)],
    NAMES,
)
ERRORS = {
    "put out of range": lambda lib: lib.zeros(2, 3).put_(lib.tensor([6]), lib.tensor([9.0])),
    "put negative out of range": (
        lambda lib: lib.zeros(2, 3).put_(lib.tensor([-7]), lib.tensor([9.0]))),
    "put numels differ": lambda lib: lib.zeros(2, 3).put_(lib.tensor([1, 2]), lib.tensor([9.0])),
    "put float index": lambda lib: lib.zeros(2, 3).put_(lib.tensor([1.0]), lib.tensor([9.0])),
    "put dtypes differ": lambda lib: lib.zeros(2, 3).put_(lib.tensor([1]), lib.tensor([9])),
    "index_reduce sum": (
        lambda lib: lib.ones(5, 3).index_reduce(0, lib.tensor([0]), lib.ones(1, 3), "sum")),
    "index_reduce float index": (
        lambda lib: lib.ones(5, 3).index_reduce(0, lib.tensor([0.0]), lib.ones(1, 3), "prod")),
    "index_reduce out of range": (
        lambda lib: lib.ones(5, 3).index_reduce(0, lib.tensor([5]), lib.ones(1, 3), "prod")),
    "index_reduce lengths differ": (
        lambda lib: lib.ones(5, 3).index_reduce(0, lib.tensor([0, 1]), lib.ones(1, 3), "prod")),
    "mode of an empty dim": lambda lib: lib.mode(lib.tensor([])),
}  # fmt: skip
RECORDED = ComparedCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers


@pytest.mark.parametrize("key", sorted(CASES) + sorted(ERRORS))
def test_index_writes_and_mode_like_torch(key):
    """Values, dtypes and gradients (or the error) as torch gave them."""
    (RECORDED.check if key in CASES else RECORDED.check_error)(key)


def test_put_matches_numpy():
    a = floats((3, 4), 14)
    index, source = np.array([[11, -2], [0, 5]]), floats((2, 2), 15)
    expected = a.copy().reshape(-1)
    np.put(expected, index, source)
    ours = minitorch.tensor(a).put(minitorch.tensor(index), minitorch.tensor(source))
    np.testing.assert_array_equal(ours.numpy(), expected.reshape(3, 4))
    written = minitorch.tensor(a)
    written.put_(minitorch.tensor([1, 1]), minitorch.tensor([2.0, 3.0]).double(), accumulate=True)
    assert written[0, 1].item() == a[0, 1] + 5.0


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_matches_a_loop(reduce, include_self):
    folds = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}
    expected = BASE.copy()
    for row in set(INDEX.tolist()):
        gathered = [SOURCE[i] for i in range(len(INDEX)) if INDEX[i] == row]
        gathered = ([BASE[row]] if include_self else []) + gathered
        expected[row] = folds[reduce](np.stack(gathered), axis=0)
    ours = minitorch.tensor(BASE).index_reduce(
        0, minitorch.tensor(INDEX), minitorch.tensor(SOURCE), reduce, include_self=include_self
    )
    np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-12)
    a = minitorch.tensor(BASE, requires_grad=True)
    s = minitorch.tensor(SOURCE, requires_grad=True)
    minitorch.grad_check(
        lambda x, y: x.index_reduce(0, minitorch.tensor(INDEX), y, reduce, include_self=True), a, s
    )


def test_mode_matches_a_count_and_takes_the_last_index():
    rng = np.random.default_rng(16)
    values = rng.integers(0, 4, size=(6, 9))
    result = minitorch.tensor(values).mode(1)
    for row in range(6):
        counts = np.bincount(values[row])
        value = int(np.argmax(counts))  # the smallest of the most frequent
        assert result.values[row].item() == value
        assert result.indices[row].item() == int(np.flatnonzero(values[row] == value)[-1])
    x = minitorch.tensor(floats((3, 4), 17), requires_grad=True)  # distinct: the smallest
    assert minitorch.equal(x.mode(0).values, x.amin(0))
    minitorch.grad_check(lambda t: t.mode(0).values * 2.0, x)


def test_node_names_are_the_compositions():
    a = minitorch.ones(5, 3, requires_grad=True)
    reduced = a.index_reduce(0, minitorch.tensor([0]), minitorch.ones(1, 3), "prod")
    assert reduced.grad_fn.name() == "ScatterReduceBackward0"
    assert a.put(minitorch.tensor([0]), minitorch.ones(1)).grad_fn.name() == "ViewBackward0"
    assert minitorch.mode(a, 0).values.grad_fn.name() == "SqueezeBackward1"
