"""The errors of minitorch.nn.functional's losses: PyTorch's types and texts, compared with
torch live (skipped without it), and the shape the binary losses ask for.
The inputs are tests/loss_cases.py's.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import pair
from loss_cases import RNG, logits

import minitorch
import minitorch.nn.functional as F

X = logits(3, 5)
ERRORS = {
    "target out of range": (lambda f, m: f.nll_loss(m(X), m(np.array([0, 5, 1])))),
    "negative target": (lambda f, m: f.cross_entropy(m(X), m(np.array([0, -1, 1])))),
    "float target": (lambda f, m: f.nll_loss(m(X), m(np.array([0.0, 1.0, 1.0], "float32")))),
    "int32 target": (lambda f, m: f.cross_entropy(m(X), m(np.array([0, 1, 1], "int32")))),
    "batch mismatch": (lambda f, m: f.cross_entropy(m(X), m(np.array([0, 1])))),
    "2-D target": (lambda f, m: f.nll_loss(m(X), m(np.zeros((3, 1), "int64")))),
    "spatial target": (lambda f, m: f.nll_loss(m(logits(2, 3, 4)), m(np.zeros((2, 5), "int64")))),
    "4-D target dims": (
        lambda f, m: f.nll_loss(m(logits(2, 3, 2, 2)), m(np.zeros((2, 2), "int64")))
    ),
    "1-D input, two targets": (lambda f, m: f.nll_loss(m(X[0]), m(np.array([1, 2])))),
    "0-D input": (lambda f, m: f.nll_loss(m(np.float32(1.0)), m(np.array(0)))),
    "weight size": (lambda f, m: f.nll_loss(m(X), m(np.array([0, 1, 1])), m(np.ones(4, "f4")))),
    "weight dtype": (lambda f, m: f.nll_loss(m(X), m(np.array([0, 1, 1])), m(np.ones(5)))),
    "reduction": (lambda f, m: f.cross_entropy(m(X), m(np.array([0, 1, 1])), reduction="avg")),
    "label smoothing": (
        lambda f, m: f.cross_entropy(m(X), m(np.array([0, 1, 1])), label_smoothing=1.5)
    ),
    "probabilities, weight size": (lambda f, m: f.cross_entropy(m(X), m(X), m(np.ones(4, "f4")))),
    "probabilities, ignore_index": (lambda f, m: f.cross_entropy(m(X), m(X), ignore_index=1)),
    "probabilities, label smoothing": (
        lambda f, m: f.cross_entropy(m(X), m(X), label_smoothing=1.5)
    ),
    "probabilities of ints": (lambda f, m: f.cross_entropy(m(X), m(np.ones((3, 5), "int64")))),
    "integer logits": (
        lambda f, m: f.cross_entropy(m(np.ones((3, 5), "int64")), m(np.zeros(3, "int64")))
    ),
    "mse of ints": (lambda f, m: f.mse_loss(m(np.ones(3, "int64")), m(np.ones(3, "int64")))),
    "mse shapes": (lambda f, m: f.mse_loss(m(X), m(X[:, :4]))),
    "smooth_l1 beta": (lambda f, m: f.smooth_l1_loss(m(X), m(X), beta=-1.0)),
    "huber delta": (lambda f, m: f.huber_loss(m(X), m(X), delta=0.0)),
    "bce range": (lambda f, m: f.binary_cross_entropy(m(X), m(X))),
    "bce dtype": (lambda f, m: f.binary_cross_entropy(m(X * 0), m(X.astype("float64")))),
    "bce logits pos_weight": (
        lambda f, m: f.binary_cross_entropy_with_logits(m(X), m(X), pos_weight=m(X[0, :4]))
    ),
    "bce logits weight": (lambda f, m: f.binary_cross_entropy_with_logits(m(X), m(X), m(X[0, :4]))),
}


@pytest.mark.filterwarnings("ignore:Using a target size")  # "mse shapes" warns, then fails
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(torch, case):
    def ours(a):
        return pair(a)[0]

    def theirs(a):
        return pair(a)[1]

    with pytest.raises(Exception) as expected:
        ERRORS[case](torch.nn.functional, theirs)
    with pytest.raises(type(expected.value)) as raised:
        ERRORS[case](F, ours)
    assert str(raised.value) == str(expected.value)


@pytest.mark.parametrize("name", ["binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_binary_losses_need_the_shape_of_the_input(name):
    x, y = minitorch.tensor(RNG.random((3, 1)).astype("float32")), minitorch.zeros(3)
    with pytest.raises(ValueError, match=r"\(minitorch.Size\(\[3\]\)\)"):
        getattr(F, name)(x, y)
