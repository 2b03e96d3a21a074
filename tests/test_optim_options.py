"""The optimizers' constructors against torch.optim's: the signature (names, kinds, defaults,
in order), the order of `defaults` (which `state_dict()` and `param_groups` print), and how
positional and unknown arguments bind.

torch 2.13's signatures and orders are recorded in tests/data/test_optim_options.json
(scripts/record_torch_answers.py from `torch_answers`), so the tests compare against torch
without it.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from helpers import recorded_answers

import minitorch
from minitorch.optim.options import declared_init

NAMES = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "RAdam",
         "RMSprop", "Rprop", "SGD"]  # fmt: skip


def constructor(lib, name: str) -> dict:
    """The parameters of `lib.optim.<name>` (name, kind, default's repr) and its defaults' keys."""
    optimizer = getattr(lib.optim, name)
    parameters = inspect.signature(optimizer).parameters.values()
    return {
        "signature": [[p.name, p.kind.name, repr(p.default)] for p in parameters],
        "defaults": list(optimizer([lib.zeros(2, requires_grad=True)]).defaults),
    }


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each optimizer (recorded by scripts/record_torch_answers.py)."""
    return {name: constructor(torch, name) for name in NAMES}


ANSWERS = recorded_answers(__file__)


@pytest.mark.parametrize("name", NAMES)
def test_signature_and_defaults_order_are_torchs(name):
    ours = constructor(minitorch, name)
    assert ours["signature"] == ANSWERS[name]["signature"]
    assert ours["defaults"] == ANSWERS[name]["defaults"]


def test_positional_options_bind_in_torchs_order():
    p = minitorch.zeros(2, requires_grad=True)
    optimizer = minitorch.optim.RMSprop([p], 0.1, 0.5, 1e-3, 0.2, 0.9, True)
    group = optimizer.param_groups[0]
    assert (group["lr"], group["alpha"], group["eps"]) == (0.1, 0.5, 1e-3)
    assert (group["weight_decay"], group["momentum"], group["centered"]) == (0.2, 0.9, True)
    assert minitorch.optim.AdamW(params=[p]).defaults["decoupled_weight_decay"] is True


@pytest.mark.parametrize(
    ("call", "message"),
    [(lambda p: minitorch.optim.Adam([p], lr=0.1, beta=0.9), "unexpected keyword argument 'beta'"),
     (lambda p: minitorch.optim.Adam([p], 0.1, (0.9, 0.99), 1e-8, 0, False, None),
      "too many positional arguments"),
     (lambda p: minitorch.optim.SGD([p], 0.1, lr=0.2), "multiple values for argument 'lr'"),
     (lambda p: minitorch.optim.SGD(lr=0.2), "missing a required argument: 'params'")],
)  # fmt: skip
def test_bad_arguments_raise_type_error(call, message):
    with pytest.raises(TypeError, match=message):
        call(minitorch.zeros(2, requires_grad=True))


def test_adagrad_makes_the_state_of_an_added_group():
    first, second = minitorch.zeros(2, requires_grad=True), minitorch.zeros(3, requires_grad=True)
    optimizer = minitorch.optim.Adagrad([first], initial_accumulator_value=0.5)
    optimizer.add_param_group({"params": [second], "initial_accumulator_value": 2.0})
    np.testing.assert_array_equal(optimizer.state[second]["sum"].numpy(), [2.0, 2.0, 2.0])
    second.grad = minitorch.tensor([1.0, 2.0, 3.0])
    optimizer.step()
    # s = 2 + g^2, w = -lr g / (sqrt(s) + eps)
    expected = -0.01 * np.array([1.0, 2.0, 3.0]) / (np.sqrt([3.0, 6.0, 11.0]) + 1e-10)
    np.testing.assert_allclose(second.detach().numpy(), expected, rtol=1e-6)


def test_a_declaration_whose_stored_order_names_other_options_is_refused():
    with pytest.raises(TypeError, match="stored names other options"):
        declared_init("lr=0.1, momentum=0", checked="lr", stored="lr dampening")
