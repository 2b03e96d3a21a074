"""The `minitorch.*` forms of activations (`torch.selu`, `torch.threshold_`, `torch.prelu`,
`Tensor.hardshrink`, ...) and the in-place functional ones (`F.relu_`, `F.elu_`,
`F.leaky_relu_`, `F.hardtanh_`, `F.rrelu_`, `F.threshold_`), against PyTorch.

Values, dtypes, node names and gradients (float64 and float32, non-contiguous inputs) and the
errors are torch's, recorded in tests/data/test_nn_activation_forms.json
(scripts/record_torch_answers.py); gradients pass central differences. Where the node differs
the case leaves names out and `test_node_names_where_they_differ` asserts ours: PReLU is a
composition here (`WhereBackward0`, torch's `PreluKernelBackward0`), and an in-place
activation records the node of the out-of-place one (torch numbers its in-place nodes
`...Backward1`).
"""

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats

import minitorch
import minitorch.nn.functional as F

FORMS = {
    "torch.selu": (lambda lib, x: lib.selu(x), {}),
    "torch.selu_": (lambda lib, x: lib.selu_(x * 1), {"names": False}),
    "torch.celu": (lambda lib, x: lib.celu(x, 0.7), {}),
    "torch.celu_": (lambda lib, x: lib.celu_(x * 1), {"names": False}),
    "torch.threshold": (lambda lib, x: lib.threshold(x, 0.3, -2.0), {}),
    "torch.threshold_": (lambda lib, x: lib.threshold_(x * 1, -0.2, 5.0), {"names": False}),
    "torch.rrelu eval": (lambda lib, x: lib.rrelu(x, 0.1, 0.3), {}),
    "torch.rrelu_ eval": (lambda lib, x: lib.rrelu_(x * 1), {"names": False}),
    "torch.hardshrink": (lambda lib, x: lib.hardshrink(x, 0.4), {}),
    "Tensor.hardshrink": (lambda lib, x: x.hardshrink(), {}),
    "torch.prelu one slope": (
        lambda lib, x: lib.prelu(x, lib.tensor([0.25], dtype=x.dtype)), {"names": False}),
    "Tensor.prelu per channel": (
        lambda lib, x: x.prelu(lib.tensor([0.1, -0.2, 0.3], dtype=x.dtype)), {"names": False}),
    "F.relu_": (lambda lib, x: lib.nn.functional.relu_(x * 1), {"names": False}),
    "F.elu_": (lambda lib, x: lib.nn.functional.elu_(x * 1, 1.5), {"names": False}),
    "F.leaky_relu_": (lambda lib, x: lib.nn.functional.leaky_relu_(x * 1, 0.2), {"names": False}),
    "F.hardtanh_": (lambda lib, x: lib.nn.functional.hardtanh_(x * 1, -0.5, 0.5), {"names": False}),
    "F.rrelu_ eval": (lambda lib, x: lib.nn.functional.rrelu_(x * 1), {"names": False}),
    "F.threshold_": (
        lambda lib, x: lib.nn.functional.threshold_(x * 1, 0.1, 0.0), {"names": False}),
}  # fmt: skip
CASES = {}
for name, (fn, options) in FORMS.items():
    for dtype in ("float64", "float32"):
        settings = {**options, "permuted": True, "central": dtype == "float64"}
        CASES[f"{name} {dtype}"] = (fn, [floats((2, 3, 4), len(CASES)).astype(dtype)], settings)
CASES["torch.relu_ returns its input"] = (
    lambda lib, x: (lambda y: lib.nn.functional.relu_(y) is y)(x.clone()),
    [floats(3, 1)],
    {},
)
ERRORS = {
    "hardshrink negative lambda": lambda lib: lib.hardshrink(lib.ones(3), -1.0),
    "prelu channels differ": lambda lib: lib.prelu(lib.ones(2, 3), lib.ones(2)),
    "celu alpha 0": lambda lib: lib.celu(lib.ones(3), 0.0),
    "selu_ of a leaf": lambda lib: lib.selu_(lib.ones(3, requires_grad=True)),
    "F.elu_ of a leaf": lambda lib: lib.nn.functional.elu_(lib.ones(3, requires_grad=True)),
}
RECORDED = ComparedCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers


@pytest.mark.parametrize("key", sorted(CASES) + sorted(ERRORS))
def test_activation_forms_like_torch(key):
    """Values, dtypes, node names and gradients (or the error) as torch gave them."""
    (RECORDED.check if key in CASES else RECORDED.check_error)(key)


def test_the_forms_are_one_function():
    assert minitorch.selu is F.selu and minitorch.hardshrink is F.hardshrink
    assert minitorch.Tensor.prelu is minitorch.prelu


def test_node_names_where_they_differ():
    x = minitorch.tensor(floats((2, 3), 2), requires_grad=True)
    assert minitorch.prelu(x, minitorch.tensor([0.1, 0.2, 0.3])).grad_fn.name() == "WhereBackward0"
    assert F.elu_(x * 1).grad_fn.name() == "EluBackward0"
    assert minitorch.threshold_(x * 1, 0.0, 1.0).grad_fn.name() == "ThresholdBackward0"


def test_rrelu_training_draws_slopes_between_its_bounds():
    x = minitorch.tensor(floats((100, 100), 3), requires_grad=True)
    minitorch.manual_seed(5)
    y = minitorch.rrelu(x, 0.1, 0.3, training=True)
    values, inputs = y.detach().numpy(), x.detach().numpy()
    slopes = values / inputs
    assert (slopes[inputs > 0] == 1).all()
    negative = slopes[inputs < 0]
    assert negative.min() >= 0.1 and negative.max() <= 0.3 and negative.std() > 0.03
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-6)
    minitorch.manual_seed(5)
    assert minitorch.rrelu(x, 0.1, 0.3, training=True).tolist() == y.tolist()
