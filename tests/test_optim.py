"""minitorch.optim against torch.optim: SGD's steps, zero_grad, and the errors on bad params.

Every optimizer's weights after each step and its state are torch's, recorded in
tests/data/test_optim.json (scripts/record_torch_answers.py from `torch_answers`); the other
comparisons with torch are live and skipped without it.
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

import minitorch
import minitorch.nn.functional as F

RNG = np.random.default_rng(5)


def twin_models(torch):
    """A 3 -> 4 -> 1 tanh network in each library, in float64, with the same weights."""
    ours = [
        minitorch.nn.Linear(3, 4, dtype=minitorch.float64),
        minitorch.nn.Linear(4, 1, dtype=minitorch.float64),
    ]
    theirs = [
        torch.nn.Linear(3, 4, dtype=torch.float64),
        torch.nn.Linear(4, 1, dtype=torch.float64),
    ]
    with torch.no_grad():
        for layer, twin in zip(ours, theirs, strict=True):
            twin.weight.copy_(torch.tensor(layer.weight.detach().numpy()))
            twin.bias.copy_(torch.tensor(layer.bias.detach().numpy()))
    return ours, theirs


def forward(layers, x, activation):
    return layers[1](activation(layers[0](x))).view(-1)


def assert_same_parameters(ours, theirs, step: int):
    for k, (layer, twin) in enumerate(zip(ours, theirs, strict=True)):
        for name in ("weight", "bias"):
            np.testing.assert_allclose(
                getattr(layer, name).detach().numpy(),
                getattr(twin, name).detach().numpy(),
                rtol=1e-12,
                atol=1e-14,
                err_msg=f"layer {k} {name} after step {step}",
            )


@pytest.mark.parametrize("lr", [0.05, 0.5])
def test_sgd_trajectory_matches_torch(torch, lr):
    x_values, y_values = RNG.normal(size=(8, 3)), RNG.normal(size=8)
    ours, theirs = twin_models(torch)
    x, y = minitorch.tensor(x_values), minitorch.tensor(y_values)
    tx, ty = torch.tensor(x_values), torch.tensor(y_values)
    optimizer = minitorch.optim.SGD([p for layer in ours for p in layer.parameters()], lr=lr)
    reference = torch.optim.SGD([p for layer in theirs for p in layer.parameters()], lr=lr)
    losses, expected_losses = [], []
    for step in range(6):
        loss = F.mse_loss(forward(ours, x, minitorch.tanh), y)
        expected = torch.nn.functional.mse_loss(forward(theirs, tx, torch.tanh), ty)
        optimizer.zero_grad()
        reference.zero_grad()
        loss.backward()
        expected.backward()
        optimizer.step()
        reference.step()
        losses.append(loss.item())
        expected_losses.append(expected.item())
        assert_same_parameters(ours, theirs, step)
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-12)
    assert losses[-1] < losses[0], "SGD did not descend"


def test_without_zero_grad_gradients_accumulate_into_the_steps_as_in_torch(torch):
    start = RNG.normal(size=3)
    w = minitorch.tensor(start, requires_grad=True)
    tw = torch.tensor(start, requires_grad=True)
    optimizer, reference = minitorch.optim.SGD([w], lr=0.1), torch.optim.SGD([tw], lr=0.1)
    for _ in range(3):
        (w * w * w).sum().backward()
        (tw * tw * tw).sum().backward()
        optimizer.step()
        reference.step()
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


def test_step_skips_parameters_without_a_gradient():
    used, unused = minitorch.ones(2, requires_grad=True), minitorch.ones(2, requires_grad=True)
    optimizer = minitorch.optim.SGD([used, unused], lr=0.5)
    (used * 3).sum().backward()
    optimizer.step()
    assert used.tolist() == [-0.5, -0.5]  # 1 - 0.5 * 3
    assert unused.tolist() == [1.0, 1.0] and unused.grad is None


def test_step_records_no_graph():
    w = minitorch.ones(2, requires_grad=True)
    optimizer = minitorch.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    optimizer.step()
    assert w.is_leaf and w.grad_fn is None and w.requires_grad


def test_sgd_accepts_module_parameters():
    layer = minitorch.nn.Linear(2, 2)
    before = layer.weight.detach().clone()
    optimizer = minitorch.optim.SGD(layer.parameters(), lr=1.0)
    layer(minitorch.ones(1, 2)).sum().backward()
    optimizer.step()
    # d(sum of x W^T + b)/dW = 1 everywhere for x = (1, 1): every weight drops by lr
    np.testing.assert_allclose(layer.weight.detach().numpy(), before.numpy() - 1.0, rtol=1e-6)


def test_zero_grad_sets_gradients_to_none_by_default_as_torch(torch):
    w, tw = minitorch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    optimizer, reference = minitorch.optim.SGD([w], lr=0.1), torch.optim.SGD([tw], lr=0.1)
    (w * 2).sum().backward()
    (tw * 2).sum().backward()
    optimizer.zero_grad()
    reference.zero_grad()
    assert w.grad is None and tw.grad is None


def test_zero_grad_without_set_to_none_zeroes_the_same_tensor_as_torch(torch):
    w, tw = minitorch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    optimizer, reference = minitorch.optim.SGD([w], lr=0.1), torch.optim.SGD([tw], lr=0.1)
    (w * 2).sum().backward()
    (tw * 2).sum().backward()
    grad, torch_grad = w.grad, tw.grad
    optimizer.zero_grad(set_to_none=False)
    reference.zero_grad(set_to_none=False)
    assert (w.grad is grad) == (tw.grad is torch_grad) is True
    assert w.grad.tolist() == tw.grad.tolist() == [0.0, 0.0]
    (w * 3).sum().backward()  # accumulates into the zeroed tensor
    assert w.grad.tolist() == [3.0, 3.0]


BAD_PARAMS = {
    "negative lr": (lambda m: m.optim.SGD([m.ones(1, requires_grad=True)], lr=-0.1)),
    "empty list": (lambda m: m.optim.SGD([], lr=0.1)),
    "a bare tensor": (lambda m: m.optim.SGD(m.ones(3, requires_grad=True), lr=0.1)),
    "a non-leaf": (lambda m: m.optim.SGD([m.ones(3, requires_grad=True) * 2], lr=0.1)),
    "a number": (lambda m: m.optim.SGD([1.0], lr=0.1)),
    "an array": (lambda m: m.optim.SGD([np.ones(2)], lr=0.1)),
}


@pytest.mark.parametrize("case", sorted(BAD_PARAMS))
def test_bad_params_raise_torchs_error(torch, case):
    make = BAD_PARAMS[case]
    with pytest.raises((TypeError, ValueError)) as expected:
        make(torch)
    with pytest.raises(expected.type) as got:
        make(minitorch)
    assert str(got.value) == str(expected.value).replace("torch.", "minitorch.")


# ---------------------------------------------------------------------------
# Every optimizer against torch.optim: the same weights after each step, from the same start
# ---------------------------------------------------------------------------

SHAPES = [(3, 2), (2,)]
X_VALUES = RNG.normal(size=(4, 3))


def start_values(rng=RNG) -> list[np.ndarray]:
    return [rng.normal(size=shape) for shape in SHAPES]


def leaves(lib, values):
    """Leaf float64 tensors of `values` in `lib`."""
    return [lib.tensor(v, requires_grad=True) for v in values]


def twin_tensors(torch, values):
    """Leaf float64 tensors with the same values in each library."""
    return leaves(minitorch, values), leaves(torch, values)


def loss_of(lib, params):
    """A small non-quadratic loss, so that each step sees a different gradient."""
    w, b = params
    return ((lib.tensor(X_VALUES) @ w + b).tanh() ** 2).sum() + (w**4).sum() * 0.1


def run_twins(torch, ours_cls, theirs_cls, kwargs, steps=5, values=None):
    """Step both optimizers `steps` times; assert equal weights after each; return both."""
    ours, theirs = twin_tensors(torch, start_values() if values is None else values)
    optimizer, reference = ours_cls(ours, **kwargs), theirs_cls(theirs, **kwargs)
    for step in range(steps):
        twin_step(torch, optimizer, reference, ours, theirs)
        assert_same_values(ours, theirs, f"after step {step}")
    return optimizer, reference, ours, theirs


def twin_step(torch, optimizer, reference, ours, theirs):
    for opt, lib, params in ((optimizer, minitorch, ours), (reference, torch, theirs)):
        opt.zero_grad()
        loss_of(lib, params).backward()
        opt.step()


def assert_same_values(ours, theirs, where, rtol=1e-8):
    for k, (p, q) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(
            p.detach().numpy(), q.detach().numpy(), rtol=rtol, atol=1e-12, err_msg=f"{k} {where}"
        )


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
            record[f"state {index} {key}"] = described(value)
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
            np.testing.assert_allclose(fused.state[p][key].numpy(), value.numpy(), rtol=1e-8)


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


# ---------------------------------------------------------------------------
# Parameter groups
# ---------------------------------------------------------------------------


def two_groups(lib, params, **options):
    return [{"params": [params[0]], "lr": 0.5, **options}, {"params": [params[1]]}]


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_param_groups_with_their_own_options_match_torch(torch, name):
    ours, theirs = twin_tensors(torch, start_values())
    options = {"weight_decay": 0.1}
    optimizer = getattr(minitorch.optim, name)(two_groups(minitorch, ours, **options), lr=0.01)
    reference = getattr(torch.optim, name)(two_groups(torch, theirs, **options), lr=0.01)
    assert optimizer.param_groups[0]["lr"] == 0.5 and optimizer.param_groups[1]["lr"] == 0.01
    assert optimizer.param_groups[1]["weight_decay"] == 0  # the default
    for step in range(4):
        twin_step(torch, optimizer, reference, ours, theirs)
        assert_same_values(ours, theirs, f"after step {step}")
    assert repr(optimizer) == repr(reference)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_repr_prints_as_torch(torch, name):
    lr = {"lr": 0.1} if name == "SGD" else {}
    optimizer = getattr(minitorch.optim, name)([minitorch.ones(2, requires_grad=True)], **lr)
    reference = getattr(torch.optim, name)([torch.ones(2, requires_grad=True)], **lr)
    assert repr(optimizer) == repr(reference)


def test_add_param_group_fills_in_the_defaults():
    w, v = minitorch.ones(2, requires_grad=True), minitorch.ones(3, requires_grad=True)
    optimizer = minitorch.optim.SGD([w], lr=0.1, momentum=0.9)
    optimizer.add_param_group({"params": v, "lr": 0.01})
    assert optimizer.param_groups[1]["params"] == [v]
    assert optimizer.param_groups[1]["lr"] == 0.01
    assert optimizer.param_groups[1]["momentum"] == 0.9


def add_group_cases():
    """(name, make): make(lib) builds an optimizer and adds a bad group (or bad params)."""

    def again(lib):
        w = lib.ones(2, requires_grad=True)
        lib.optim.SGD([w], lr=0.1).add_param_group({"params": [w]})

    def a_set(lib):
        lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=0.1).add_param_group(
            {"params": {lib.ones(2, requires_grad=True)}}
        )

    def not_a_dict(lib):
        lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=0.1).add_param_group(
            [lib.ones(2, requires_grad=True)]
        )

    def a_number(lib):
        lib.optim.Adam([{"params": [lib.ones(2, requires_grad=True)]}, {"params": [0.5]}])

    def twice_in_one_list(lib):
        w = lib.ones(2, requires_grad=True)
        lib.optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)

    def some_names(lib):
        lib.optim.SGD([("w", lib.ones(2, requires_grad=True)), lib.ones(1, requires_grad=True)])

    def named_and_unnamed_groups(lib):
        lib.optim.SGD([{"params": [("w", lib.ones(2, requires_grad=True))]}]).add_param_group(
            {"params": [lib.ones(1, requires_grad=True)]}
        )

    return {
        "some names missing": some_names,
        "named and unnamed groups": named_and_unnamed_groups,
        "in two groups": again,
        "a set": a_set,
        "not a dict": not_a_dict,
        "a number in a group": a_number,
        "two groups share a tensor": twice_in_one_list,
    }


@pytest.mark.parametrize("case", sorted(add_group_cases()))
def test_bad_param_groups_raise_torchs_error(torch, case):
    make = add_group_cases()[case]
    with pytest.raises((TypeError, ValueError)) as expected:
        make(torch)
    with pytest.raises(expected.type) as got:
        make(minitorch)
    assert str(got.value) == str(expected.value).replace("torch.", "minitorch.")


BAD_OPTIONS = [
    ("SGD", {"lr": -1}),
    ("SGD", {"momentum": -0.5}),
    ("SGD", {"weight_decay": -1e-3}),
    ("SGD", {"nesterov": True}),
    ("SGD", {"nesterov": True, "momentum": 0.9, "dampening": 0.1}),
    ("Adam", {"lr": -0.1}),
    ("Adam", {"eps": -1.0}),
    ("Adam", {"betas": (1.0, 0.9)}),
    ("Adam", {"betas": (0.9, -0.1)}),
    ("Adam", {"betas": (0, 0.9)}),
    ("AdamW", {"weight_decay": -0.1}),
    ("RMSprop", {"alpha": -0.5}),
    ("RMSprop", {"momentum": -1}),
    ("Adagrad", {"lr_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}),
    ("Adagrad", {"eps": -1}),
]


@pytest.mark.parametrize(("name", "kwargs"), BAD_OPTIONS)
def test_invalid_options_raise_torchs_error(torch, name, kwargs):
    with pytest.raises(ValueError) as expected:
        getattr(torch.optim, name)([torch.ones(1, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError) as got:
        getattr(minitorch.optim, name)([minitorch.ones(1, requires_grad=True)], **kwargs)
    assert str(got.value) == str(expected.value)


def test_unsupported_options_say_so():
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        minitorch.optim.Adam([minitorch.ones(1, requires_grad=True)], differentiable=True)


def test_zero_grad_reaches_every_group():
    ours = leaves(minitorch, start_values())
    optimizer = minitorch.optim.SGD(two_groups(minitorch, ours), lr=0.1)
    loss_of(minitorch, ours).backward()
    optimizer.zero_grad()
    assert all(p.grad is None for p in ours)


# ---------------------------------------------------------------------------
# state_dict / load_state_dict
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("SGD", {"lr": 0.1, "momentum": 0.9}),
        ("Adam", {"lr": 0.1, "amsgrad": True}),
        ("RMSprop", {"lr": 0.01, "centered": True}),
    ],
)
def test_load_state_dict_resumes_the_same_trajectory_as_torch(torch, name, kwargs):
    values = start_values()
    first, reference, ours, theirs = run_twins(
        torch,
        getattr(minitorch.optim, name),
        getattr(torch.optim, name),
        kwargs,
        steps=3,
        values=values,
    )
    saved = first.state_dict()
    # a new optimizer over copies of the weights, with the defaults, takes the saved state
    copies = [minitorch.tensor(p.detach().numpy(), requires_grad=True) for p in ours]
    resumed = getattr(minitorch.optim, name)(copies)
    resumed.load_state_dict(saved)
    assert resumed.param_groups[0]["lr"] == kwargs["lr"]
    for _ in range(3):
        twin_step(torch, resumed, reference, copies, theirs)
    assert_same_values(copies, theirs, "after resuming")
    # the loaded state is a copy: stepping the new optimizer left the saved tensors alone
    for index, state in saved["state"].items():
        assert all(state[k] is not v for k, v in resumed.state[copies[index]].items())


def test_load_state_dict_converts_state_to_the_parameters_dtype():
    w = minitorch.ones(2, requires_grad=True)
    optimizer = minitorch.optim.Adam([w])
    (w * w).sum().backward()
    optimizer.step()
    w64 = minitorch.ones(2, dtype=minitorch.float64, requires_grad=True)
    other = minitorch.optim.Adam([w64])
    other.load_state_dict(optimizer.state_dict())
    assert other.state[w64]["exp_avg"].dtype == minitorch.float64
    assert other.state[w64]["step"].dtype == minitorch.float32


def test_load_state_dict_of_another_shape_raises_torchs_error(torch):
    for lib in (torch, minitorch):
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        saved = lib.optim.SGD([a, b], lr=0.1).state_dict()
        with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
            lib.optim.SGD([a], lr=0.1).load_state_dict(saved)
        with pytest.raises(ValueError, match="different number of parameter groups"):
            lib.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(saved)


def test_a_parameter_twice_in_one_group_warns_as_torch(torch):
    messages = []
    for lib in (torch, minitorch):
        w = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning) as record:
            lib.optim.SGD([w, w], lr=0.1)
        messages.append([str(warning.message) for warning in record])
    assert messages[1] == messages[0] and len(messages[0]) == 1


def test_named_parameters_keep_their_names_as_torch(torch):
    values = start_values()
    ours, theirs = twin_tensors(torch, values)
    optimizer = minitorch.optim.Adam(list(zip(("w", "b"), ours, strict=True)), lr=0.1)
    reference = torch.optim.Adam(list(zip(("w", "b"), theirs, strict=True)), lr=0.1)
    assert optimizer.param_groups[0]["params"] == ours
    assert optimizer.state_dict()["param_groups"] == reference.state_dict()["param_groups"]
    assert repr(optimizer) == repr(reference)
    for step in range(3):
        twin_step(torch, optimizer, reference, ours, theirs)
        assert_same_values(ours, theirs, f"after step {step}")
