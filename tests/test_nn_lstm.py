"""Task 5.1, the LSTM cell's forward (`lstm_step` in minitorch/nn/modules/rnn.py), through
`nn.LSTMCell` and `nn.LSTM`: outputs, final states and every gradient against torch's
recorded answers (tests/data/test_nn_lstm.json, from `torch_answers`) with the weights
copied, one step against NumPy, and the step's gradients against central differences."""

from __future__ import annotations

import numpy as np
import pytest
from comparisons import leaf_answers
from helpers import assert_as_recorded, case_rng, recorded_answers

import minitorch
from minitorch.nn.modules.rnn import lstm_step

pytestmark = pytest.mark.task5_1

# case -> (module, its options, input shape, whether (h0, c0) are given)
CASES = {
    "cell": ("LSTMCell", {}, (4, 3), True),
    "cell no bias": ("LSTMCell", {"bias": False}, (2, 3), True),
    "cell unbatched zero state": ("LSTMCell", {}, (3,), False),
    "layer": ("LSTM", {}, (6, 2, 3), False),
    "layer 2 layers bidirectional": ("LSTM", {"num_layers": 2, "bidirectional": True},
                                     (5, 3, 3), True),
    "layer batch_first": ("LSTM", {"batch_first": True}, (2, 4, 3), True),
}  # fmt: skip


def run(lib, key):
    """The case's outputs and leaves, its weights drawn uniform in $\\pm 0.7$."""
    name, options, shape, with_state = CASES[key]
    module = getattr(lib.nn, name)(3, 5, **options).double()
    rng = case_rng("lstm", key)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor(rng.uniform(-0.7, 0.7, size=tuple(p.shape))))
    x = lib.tensor(rng.normal(size=shape), requires_grad=True)
    leaves, state = [x], None
    if with_state:
        batch = shape[0] if name == "LSTMCell" else shape[0 if options.get("batch_first") else 1]
        layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
        size = (batch, 5) if name == "LSTMCell" else (layers, batch, 5)
        state = tuple(lib.tensor(rng.normal(size=size), requires_grad=True) for _ in range(2))
        leaves += list(state)
    result = module(x, state)
    outputs = list(result) if name == "LSTMCell" else [result[0], *result[1]]
    return outputs, leaves + list(module.parameters())


def torch_answers(torch) -> dict[str, dict]:
    """What torch gives for each case (scripts/record_torch_answers.py)."""
    return {key: leaf_answers(torch, *run(torch, key)) for key in CASES}


ANSWERS = recorded_answers(__file__)


@pytest.mark.parametrize("key", CASES)
def test_lstm_is_torchs(key):
    assert_as_recorded(leaf_answers(minitorch, *run(minitorch, key)), ANSWERS[key], key)


@pytest.mark.torch
@pytest.mark.parametrize("key", CASES)
def test_lstm_against_live_torch(torch, key):
    ours = leaf_answers(minitorch, *run(minitorch, key))
    assert_as_recorded(ours, leaf_answers(torch, *run(torch, key)), key)


def step_inputs(key, bias=True):
    """(projected, h, c, w_hh, b_hh) of one step: batch 3, hidden 2, float64 leaves."""
    rng = case_rng("step", key)
    shapes = [(3, 8), (3, 2), (3, 2), (8, 2)] + ([(8,)] if bias else [])
    arrays = [rng.normal(size=s) for s in shapes]
    return [minitorch.tensor(a, requires_grad=True) for a in arrays] + ([] if bias else [None])


def test_one_step_against_numpy():
    projected, h, c, w_hh, b_hh = step_inputs("numpy")
    gates = projected.detach().numpy() + h.detach().numpy() @ w_hh.detach().numpy().T
    i, f, g, o = np.split(gates + b_hh.detach().numpy(), 4, axis=1)
    sigmoid = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    c_next = sigmoid(f) * c.detach().numpy() + sigmoid(i) * np.tanh(g)
    h_next = sigmoid(o) * np.tanh(c_next)
    ours = lstm_step(projected, h, c, w_hh, b_hh)
    np.testing.assert_allclose(ours[0].detach().numpy(), h_next, rtol=1e-12)
    np.testing.assert_allclose(ours[1].detach().numpy(), c_next, rtol=1e-12)


@pytest.mark.parametrize("bias", [True, False])
def test_step_gradients_against_central_differences(bias):
    inputs = step_inputs(("central", bias), bias)
    given = [t for t in inputs if t is not None]

    def step(*tensors):
        return lstm_step(*tensors, *([] if bias else [None]))

    assert minitorch.autograd.gradcheck(step, tuple(given))
