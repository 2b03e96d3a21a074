"""minitorch.optim's parameter groups, options and state_dict / load_state_dict against
torch.optim: compared with torch live, skipped without it. The problem they step on is
tests/optim_cases.py's.
"""

from __future__ import annotations

import pytest
from optim_cases import (
    assert_same_values,
    leaves,
    loss_of,
    run_twins,
    start_values,
    twin_step,
    twin_tensors,
)

import minitorch

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
