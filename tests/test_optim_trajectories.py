"""Every optimizer of minitorch.optim against torch.optim: the same weights after each step
from the same start, the same state, and the options of Adam's step.

Every optimizer's weights after each step and its state are torch's, recorded in
tests/data/test_optim_trajectories.json (scripts/record_torch_answers.py from
`torch_answers`); the other comparisons with torch are live and skipped without it. The
problem they step on is tests/optim_cases.py's.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import (
    assert_as_recorded,
    case_rng,
    described,
    recorded_answers,
)
from optim_cases import (
    RNG,
    assert_same_values,
    leaves,
    loss_of,
    start_values,
    twin_step,
    twin_tensors,
)

import minitorch

TASK_4_6 = pytest.mark.task4_6
TASK_4_7 = pytest.mark.task4_7
CONFIGS = [
    pytest.param("SGD", {"lr": 0.1}, id="SGD-plain"),
    pytest.param("SGD", {"lr": 0.1, "weight_decay": 0.3, "maximize": True}, id="SGD-wd-max"),
    pytest.param("SGD", {"lr": 0.1, "momentum": 0.9}, id="SGD-momentum", marks=TASK_4_6),
    pytest.param(
        "SGD",
        {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.1},
        id="SGD-dampening",
        marks=TASK_4_6,
    ),
    pytest.param(
        "SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}, id="SGD-nesterov", marks=TASK_4_6
    ),
    pytest.param(
        "SGD",
        {"lr": 0.05, "momentum": 0.5, "maximize": True},
        id="SGD-momentum-max",
        marks=TASK_4_6,
    ),
    # fused=False: the step of tensor operations that task 4.7 writes (`adam_step`)
    pytest.param("Adam", {"lr": 0.1, "fused": False}, id="Adam", marks=TASK_4_7),
    pytest.param(
        "Adam",
        {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-3, "weight_decay": 0.2, "fused": False},
        id="Adam-options",
        marks=TASK_4_7,
    ),
    pytest.param(
        "Adam", {"lr": 0.1, "amsgrad": True, "fused": False}, id="Adam-amsgrad", marks=TASK_4_7
    ),
    pytest.param(
        "Adam",
        {
            "lr": 0.1,
            "maximize": True,
            "decoupled_weight_decay": True,
            "weight_decay": 0.5,
            "fused": False,
        },
        id="Adam-decoupled-max",
        marks=TASK_4_7,
    ),
    pytest.param("AdamW", {"lr": 0.1, "fused": False}, id="AdamW", marks=TASK_4_7),
    pytest.param(
        "AdamW",
        {"lr": 0.1, "weight_decay": 0.5, "amsgrad": True, "fused": False},
        id="AdamW-amsgrad",
        marks=TASK_4_7,
    ),
    # the default: one fused kernel per parameter (minitorch._fused_adam_)
    pytest.param("Adam", {"lr": 0.1}, id="Adam-fused"),
    pytest.param(
        "Adam",
        {"lr": 0.05, "betas": (0.3, 0.9), "eps": 1e-3, "weight_decay": 0.2, "amsgrad": True},
        id="Adam-fused-options",
    ),
    pytest.param("AdamW", {"lr": 0.1, "weight_decay": 0.5, "maximize": True}, id="AdamW-fused-max"),
    pytest.param("RMSprop", {"lr": 0.01}, id="RMSprop"),
    pytest.param(
        "RMSprop",
        {"lr": 0.01, "alpha": 0.9, "eps": 1e-4, "weight_decay": 0.1, "momentum": 0.7},
        id="RMSprop-momentum",
    ),
    pytest.param(
        "RMSprop",
        {"lr": 0.01, "centered": True, "momentum": 0.5, "maximize": True},
        id="RMSprop-centered",
    ),
    pytest.param("Adagrad", {"lr": 0.1}, id="Adagrad"),
    pytest.param(
        "Adagrad",
        {
            "lr": 0.1,
            "lr_decay": 0.2,
            "weight_decay": 0.1,
            "initial_accumulator_value": 0.5,
            "eps": 1e-3,
        },
        id="Adagrad-options",
    ),
    pytest.param("Adagrad", {"lr": 0.1, "maximize": True}, id="Adagrad-max"),
]


STEPS = 5


def optimizer_record(lib, name: str, kwargs: dict) -> dict:
    """`lib`'s optimizer `name` stepping from the start values of its case, STEPS times: the
    weights after each step ("step s param k"), then its `state_dict` (the groups, and each
    parameter's state in order)."""
    params = leaves(lib, start_values(case_rng(name, kwargs)))
    optimizer = getattr(lib.optim, name)(params, **kwargs)
    record = {}
    for step in range(STEPS):
        optimizer.zero_grad()
        loss_of(lib, params).backward()
        optimizer.step()
        for k, p in enumerate(params):
            record[f"step {step} param {k}"] = described(p)
    saved = optimizer.state_dict()
    record["param_groups"] = json.loads(json.dumps(saved["param_groups"]))
    record["state keys"] = [[index, list(state)] for index, state in saved["state"].items()]
    for index, state in saved["state"].items():
        for key, value in state.items():
            # a `step` count stays on the CPU, as torch's (see test_step_counts_stay_on_the_cpu)
            on_device = value.to(params[0].device) if key == "step" else value
            record[f"state {index} {key}"] = described(on_device)
    return record


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each optimizer of CONFIGS (scripts/record_torch_answers.py)."""
    return {repr(c.values): optimizer_record(torch, *c.values) for c in CONFIGS}


ANSWERS = recorded_answers(__file__)


def assert_optimizer_as_recorded(name, kwargs, part: str):
    """The entries of `part` ("step", "param_groups" or "state") are torch's."""
    ours = optimizer_record(minitorch, name, kwargs)
    expected = ANSWERS[repr((name, kwargs))]

    def entries(record):
        return {k: v for k, v in record.items() if k.startswith(part)}

    assert_as_recorded(entries(ours), entries(expected), f"{name} {kwargs}", 1e-8, 1e-12)


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS)
def test_optimizer_trajectory_matches_torch(name, kwargs):
    assert_optimizer_as_recorded(name, kwargs, "step")


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS)
def test_state_matches_torchs_state(name, kwargs):
    assert_optimizer_as_recorded(name, kwargs, "param_groups")
    assert_optimizer_as_recorded(name, kwargs, "state")


ADAM_OPTIONS = {
    "plain": ("Adam", {"lr": 0.1}),
    "options": ("Adam", {"lr": 0.05, "betas": (0.3, 0.8), "eps": 1e-3, "weight_decay": 0.2}),
    "amsgrad-max": ("Adam", {"lr": 0.1, "amsgrad": True, "maximize": True}),
    "AdamW-amsgrad": ("AdamW", {"lr": 0.1, "weight_decay": 0.5, "amsgrad": True}),
}


@pytest.mark.parametrize("name", sorted(ADAM_OPTIONS))
def test_fused_adam_takes_the_steps_of_adam_step(name, monkeypatch):
    """The default Adam runs one fused kernel per parameter, never `adam_step` (task 4.7),
    and leaves the weights and state where `adam_step` does (fused=False), in float64."""
    kind, kwargs = ADAM_OPTIONS[name]
    values = start_values()
    fused_params, plain_params = leaves(minitorch, values), leaves(minitorch, values)
    cls = getattr(minitorch.optim, kind)
    fused, plain = cls(fused_params, **kwargs), cls(plain_params, fused=False, **kwargs)
    composed = minitorch.optim.adam.adam_step
    for _ in range(8):
        for optimizer, params in ((fused, fused_params), (plain, plain_params)):
            optimizer.zero_grad()
            loss_of(minitorch, params).backward()
            if optimizer is fused:
                monkeypatch.setattr(minitorch.optim.adam, "adam_step", None)  # not called
            optimizer.step()
            monkeypatch.setattr(minitorch.optim.adam, "adam_step", composed)
    assert_same_values(fused_params, plain_params, "after 8 steps")
    for p, q in zip(fused_params, plain_params, strict=True):
        for key, value in plain.state[q].items():
            got = fused.state[p][key]  # `step` on the CPU, the moments on the parameter's device
            assert got.device == value.device, key
            np.testing.assert_allclose(got.tolist(), value.tolist(), rtol=1e-8)


def test_adam_steps_a_non_contiguous_parameter_with_adam_step_as_torch(torch):
    values = [RNG.normal(size=(2, 3)), RNG.normal(size=2)]
    ours = [minitorch.tensor(values[0]).t().requires_grad_()]  # (3, 2), transposed
    ours += [minitorch.tensor(values[1], requires_grad=True)]
    theirs = [torch.tensor(values[0]).t().requires_grad_()]
    theirs += [torch.tensor(values[1], requires_grad=True)]
    assert not ours[0].is_contiguous()
    optimizer = minitorch.optim.Adam(ours, lr=0.1)
    reference = torch.optim.Adam(theirs, lr=0.1)
    for step in range(4):
        twin_step(torch, optimizer, reference, ours, theirs)
        assert_same_values(ours, theirs, f"after step {step}")


def test_step_count_is_a_float32_tensor_as_in_torch():
    w = minitorch.ones(2, requires_grad=True)
    optimizer = minitorch.optim.Adam([w])
    for _ in range(3):
        (w * w).sum().backward()
        optimizer.step()
    step = optimizer.state[w]["step"]
    assert repr(step) == "tensor(3.)" and step.dtype == minitorch.float32


def test_parameters_without_gradient_get_no_state():
    used, unused = minitorch.ones(2, requires_grad=True), minitorch.ones(2, requires_grad=True)
    optimizer = minitorch.optim.Adam([used, unused], lr=0.1)
    (used * 2).sum().backward()
    optimizer.step()
    assert unused.tolist() == [1.0, 1.0] and unused not in optimizer.state
    assert list(optimizer.state_dict()["state"]) == [0]


def test_adagrad_state_exists_before_the_first_step_as_in_torch(torch):
    ours, theirs = twin_tensors(torch, start_values())
    got = minitorch.optim.Adagrad(ours, initial_accumulator_value=0.25).state_dict()["state"]
    expected = torch.optim.Adagrad(theirs, initial_accumulator_value=0.25).state_dict()["state"]
    assert sorted(got) == sorted(expected) == [0, 1]
    assert got[1]["sum"].tolist() == expected[1]["sum"].tolist() == [0.25, 0.25]


def test_closure_is_run_with_grad_and_its_loss_returned():
    w = minitorch.tensor([1.0, -2.0], requires_grad=True)
    optimizer = minitorch.optim.SGD([w], lr=0.1)

    def closure():
        optimizer.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    assert loss.item() == 5.0 and loss.requires_grad
    np.testing.assert_allclose(w.tolist(), [0.8, -1.6])
    assert optimizer.step() is None


# The state entries each optimizer keeps on the CPU whatever its parameter's device (without
# `capturable` or `fused`), as torch 2.13's `_init_group` of torch/optim/*.py makes them; the
# others are on the parameter's device.
CPU_STATE = {
    "ASGD": set(), "Adadelta": {"step"}, "Adafactor": {"step"}, "Adagrad": {"step"},
    "Adam": {"step"}, "AdamW": {"step"}, "Adamax": {"step"}, "NAdam": {"step", "mu_product"},
    "RAdam": {"step"}, "RMSprop": {"step"}, "Rprop": {"step"}, "SGD": set(),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CPU_STATE))
def test_state_is_on_torchs_devices(name):
    """A `step` count stays on the CPU for most optimizers (ASGD keeps its own, and its rates,
    on the parameter's device); moments and buffers are on the parameter's device."""
    weight = minitorch.tensor([1.0, -2.0], requires_grad=True)  # cuda in a run on cuda
    options = {"momentum": 0.9} if name == "SGD" else {}
    optimizer = getattr(minitorch.optim, name)([weight], lr=0.1, **options)
    (weight * weight).sum().backward()
    optimizer.step()
    devices = {
        key: value.device.type
        for key, value in optimizer.state[weight].items()
        if isinstance(value, minitorch.Tensor)
    }
    expected = {key: "cpu" if key in CPU_STATE[name] else weight.device.type for key in devices}
    assert devices == expected and set(devices) >= CPU_STATE[name]
