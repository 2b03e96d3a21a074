"""`nn.AdaptiveLogSoftmaxWithLoss` against torch: with the same parameters, the same
log-likelihoods, loss, gradients of the input and of every parameter, `log_prob` and
`predict`, in float32 and float64, batched and not; central differences; errors.

torch's answers are recorded in tests/data/test_nn_adaptive_softmax.json
(scripts/record_torch_answers.py from `torch_answers`).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    assert_as_recorded,
    assert_outcome_as_recorded,
    case_rng,
    outcome_answers,
    recorded_answers,
)

import minitorch

# A tail narrower than one unit (in_features // div_value**k == 0) warns in both libraries.
pytestmark = pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
TOLERANCE = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}
# name -> (in_features, n_classes, cutoffs, div_value, head_bias, targets; None: unbatched)
LAYERS = {
    "two tails": (8, 12, [3, 7], 2.0, True, [0, 4, 11, 2, 8, 5]),
    "one tail, shortlist only": (6, 5, [4], 4.0, False, [0, 3, 1]),
    "three tails, tails favoured": (8, 10, [2, 4, 6], 1.5, True, [9, 1, 5, 3, 7, 0, 2]),
    "unbatched": (4, 6, [2], 2.0, False, None),
}


def state_of(name, dtype):
    """The layer's parameters, drawn by NumPy (the same in both libraries)."""
    in_features, n_classes, cutoffs, div_value, head_bias, _ = LAYERS[name]
    rng = case_rng("adaptive state", name)
    bounds = [*cutoffs, n_classes]
    head = len(cutoffs) + cutoffs[0]
    state = {"head.weight": rng.standard_normal((head, in_features))}
    if head_bias:
        state["head.bias"] = rng.standard_normal(head)
        if "favoured" in name:
            state["head.bias"][cutoffs[0] :] += 4.0  # predictions in the tails
    for k in range(len(cutoffs)):
        hidden = int(in_features // div_value ** (k + 1))
        state[f"tail.{k}.0.weight"] = rng.standard_normal((hidden, in_features))
        state[f"tail.{k}.1.weight"] = rng.standard_normal((bounds[k + 1] - bounds[k], hidden))
    return {key: value.astype(dtype) for key, value in state.items()}


def build(lib, name, dtype):
    in_features, n_classes, cutoffs, div_value, head_bias, targets = LAYERS[name]
    kind = getattr(lib, dtype)
    layer = lib.nn.AdaptiveLogSoftmaxWithLoss(
        in_features, n_classes, cutoffs, div_value=div_value, head_bias=head_bias, dtype=kind
    )
    layer.load_state_dict({k: lib.tensor(v) for k, v in state_of(name, dtype).items()})
    rng = case_rng("adaptive input", name)
    if targets is None:
        x, target = rng.standard_normal(in_features), lib.tensor(3)
    else:
        x, target = rng.standard_normal((len(targets), in_features)), lib.tensor(targets)
    return layer, lib.tensor(x.astype(dtype), requires_grad=True), target


def record(lib, name, dtype) -> dict:
    """Output, loss, the gradients of the loss, `log_prob` and `predict` of layer `name`."""
    layer, x, target = build(lib, name, dtype)
    output, loss = layer(x, target)
    loss.backward()
    found = {"output": output.detach().numpy(), "loss": loss.detach().numpy(),
             "grad input": x.grad.numpy()}  # fmt: skip
    for key, parameter in layer.named_parameters():
        # None for a tail no target reaches, as in torch
        found[f"grad {key}"] = None if parameter.grad is None else parameter.grad.numpy()
    if x.dim() == 2:
        found["log_prob"] = layer.log_prob(x).detach().numpy()
        found["predict"] = layer.predict(x).numpy()
    return {k: v if v is None else np.array(v) for k, v in found.items()}


KEYS = [(name, dtype) for name in LAYERS for dtype in ("float32", "float64")]


def layer_of(lib, **changes):
    settings = {"in_features": 4, "n_classes": 6, "cutoffs": [2, 4]}
    return lib.nn.AdaptiveLogSoftmaxWithLoss(**{**settings, **changes})


ERRORS = {
    "no cutoffs": lambda lib: layer_of(lib, cutoffs=[]),
    "unsorted cutoffs": lambda lib: layer_of(lib, cutoffs=[4, 2]),
    "cutoff too large": lambda lib: layer_of(lib, cutoffs=[2, 6]),
    "repeated cutoffs": lambda lib: layer_of(lib, cutoffs=[2, 2]),
    "target range": lambda lib: layer_of(lib)(lib.zeros(2, 4), lib.tensor([1, 6])),
    "negative target": lambda lib: layer_of(lib)(lib.zeros(2, 4), lib.tensor([-1, 0])),
    "batch sizes": lambda lib: layer_of(lib)(lib.zeros(3, 4), lib.tensor([1, 2])),
    "1-D target, 3-D input": lambda lib: layer_of(lib)(lib.zeros(2, 1, 4), lib.tensor([1, 2])),
    "0-D target, 2-D input": lambda lib: layer_of(lib)(lib.zeros(2, 4), lib.tensor(1)),
    "2-D target": lambda lib: layer_of(lib)(lib.zeros(2, 4), lib.tensor([[1], [2]])),
}


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each layer and error (scripts/record_torch_answers.py)."""
    answers = {repr(key): record(torch, *key) for key in KEYS}
    answers.update(outcome_answers(torch, {"error": ERRORS}, torch_names=True))
    return answers


ANSWERS = recorded_answers(__file__)


@pytest.mark.parametrize(("name", "dtype"), KEYS)
def test_layer_matches_torch(name, dtype):
    ours = record(minitorch, name, dtype)
    assert_as_recorded(ours, ANSWERS[repr((name, dtype))], name, **TOLERANCE[dtype])


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_gradients_against_central_differences(name):
    layer, x, target = build(minitorch, name, "float64")
    assert minitorch.grad_check(lambda x: layer(x, target).loss, x)
    assert minitorch.grad_check(lambda x: layer(x, target).output, x)


def test_log_prob_is_a_distribution_consistent_with_the_output():
    layer, x, target = build(minitorch, "two tails", "float64")
    full = layer.log_prob(x).detach()
    np.testing.assert_allclose(full.exp().sum(1).numpy(), 1.0, rtol=1e-12)
    picked = full.gather(1, target.unsqueeze(1)).squeeze(1)
    np.testing.assert_allclose(picked.numpy(), layer(x, target).output.detach().numpy(), 1e-12)


def test_output_is_a_named_pair():
    layer, x, target = build(minitorch, "two tails", "float64")
    result = layer(x, target)
    assert result._fields == ("output", "loss") and result.loss is result[1]


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    assert_outcome_as_recorded(ANSWERS, "error", case, ERRORS[case], torch_names=True)


def test_layer_prints_as_torchs(torch):
    settings = {"in_features": 16, "n_classes": 20, "cutoffs": [4, 10], "head_bias": True}
    ours = minitorch.nn.AdaptiveLogSoftmaxWithLoss(**settings)
    assert repr(ours) == repr(torch.nn.AdaptiveLogSoftmaxWithLoss(**settings))
