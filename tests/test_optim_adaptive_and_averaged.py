"""Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop and Adafactor against torch.optim: 50-step
trajectories on a small tanh network (two parameter groups, weight decay, `maximize`, each
optimizer's own options), state dicts in torch's layout, and the errors on bad options.

The trajectories torch 2.13 takes are recorded in tests/data/test_optim_adaptive_and_averaged.json
(scripts/record_torch_answers.py from `torch_answers`), so the tests compare against torch
without it; with torch installed they also compare live.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import as_recorded, recorded_answers

import minitorch

STEPS = 50
SNAPSHOTS = (1, 2, 10, 25, 50)

# name -> (optimizer, options of group 0, options of group 1)
CASES = {
    "adadelta": ("Adadelta", {}, {"lr": 0.5}),
    "adadelta-rho-wd-max": ("Adadelta", {"rho": 0.8, "weight_decay": 0.1}, {"maximize": True}),
    "adamax": ("Adamax", {}, {"lr": 0.01}),
    "adamax-wd-max": ("Adamax", {"weight_decay": 0.1, "betas": (0.8, 0.9)}, {"maximize": True}),
    "nadam": ("NAdam", {}, {"lr": 0.01}),
    "nadam-wd-decay": ("NAdam", {"weight_decay": 0.1, "momentum_decay": 0.01}, {"maximize": True}),
    "nadam-decoupled": ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}, {}),
    "radam": ("RAdam", {"lr": 0.01}, {"lr": 0.003}),
    "radam-wd-max": ("RAdam", {"weight_decay": 0.1}, {"maximize": True, "betas": (0.5, 0.9)}),
    "radam-decoupled": ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}, {}),
    "asgd": ("ASGD", {"lr": 0.05}, {"lr": 0.02}),
    "asgd-averaging": ("ASGD", {"t0": 10, "lambd": 0.01, "alpha": 0.5}, {"weight_decay": 0.1}),
    "asgd-max": ("ASGD", {"maximize": True, "t0": 5}, {}),
    "rprop": ("Rprop", {}, {"lr": 0.001}),
    "rprop-etas-max": ("Rprop", {"etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05)},
                       {"maximize": True}),
    "adafactor": ("Adafactor", {}, {"lr": 0.05}),
    "adafactor-wd-max": ("Adafactor", {"weight_decay": 0.1, "beta2_decay": -0.5, "d": 2.0},
                         {"maximize": True, "eps": (1e-6, 1e-2)}),
}  # fmt: skip
RESUMED = ["adadelta", "nadam", "radam-decoupled", "asgd-averaging", "rprop", "adafactor"]
DEFAULT_LR = {"Adadelta": 1.0, "Adamax": 2e-3, "NAdam": 2e-3, "RAdam": 1e-3, "ASGD": 1e-2,
              "Adafactor": 1e-2}  # fmt: skip


def problem():
    """Weights (w1, b1, w2, b2) of a 3 -> 4 -> 1 tanh network, inputs and targets."""
    rng = np.random.default_rng(7)
    weights = [rng.normal(size=s) * 0.5 for s in [(4, 3), (4,), (1, 4), (1,)]]
    return weights, rng.normal(size=(8, 3)), rng.normal(size=(8, 1))


def loss_of(params, x, y):
    w1, b1, w2, b2 = params
    return (((x @ w1.T + b1).tanh() @ w2.T + b2 - y) ** 2).mean()


def trajectory(lib, case: str, steps: int = STEPS):
    """The parameters (flattened, joined) after each of `SNAPSHOTS`, and the optimizer."""
    name, options0, options1 = CASES[case]
    weights, x_values, y_values = problem()
    params = [lib.tensor(w, requires_grad=True) for w in weights]
    x, y = lib.tensor(x_values), lib.tensor(y_values)
    optimizer = getattr(lib.optim, name)(
        [{"params": params[:2], **options0}, {"params": params[2:], **options1}]
    )
    snapshots = {}
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        loss_of(params, x, y).backward()
        optimizer.step()
        if step in SNAPSHOTS:
            flat = np.concatenate([p.detach().numpy().ravel() for p in params])
            snapshots[step] = flat.tolist()
    return snapshots, optimizer


def resumed(lib, case: str, saved: dict, start: list[float]) -> list[float]:
    """The parameters after 25 steps from `start` by an optimizer loaded with `saved`."""
    name, options0, options1 = CASES[case]
    weights, x_values, y_values = problem()
    params = [lib.tensor(w, requires_grad=True) for w in weights]
    with lib.no_grad():
        lib.nn.utils.vector_to_parameters(lib.tensor(start, dtype=lib.float64), params)
    optimizer = getattr(lib.optim, name)(
        [{"params": params[:2], **options0}, {"params": params[2:], **options1}]
    )
    optimizer.load_state_dict(saved)
    x, y = lib.tensor(x_values), lib.tensor(y_values)
    for _ in range(25):
        optimizer.zero_grad()
        loss_of(params, x, y).backward()
        optimizer.step()
    return np.concatenate([p.detach().numpy().ravel() for p in params]).tolist()


def state_layout(optimizer) -> dict:
    """The keys and the dtypes/shapes of a state dict, and its group options."""
    saved = optimizer.state_dict()
    state = {
        str(i): {k: [str(v.dtype).split(".")[-1], list(v.shape)] for k, v in s.items()}
        for i, s in saved["state"].items()
    }
    groups = [
        {k: list(v) if isinstance(v, tuple) else v for k, v in g.items()}
        for g in saved["param_groups"]
    ]
    return {"state": state, "param_groups": groups}


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py): the
    parameters at each of SNAPSHOTS ("snapshot s"), the state dict's layout, and for RESUMED the
    parameters after the round trip of `resumed` from step 25."""
    answers = {}
    for case in CASES:
        snapshots, optimizer = trajectory(torch, case)
        answers[case] = {f"snapshot {s}": np.array(v) for s, v in snapshots.items()}
        answers[case]["layout"] = as_recorded(state_layout(optimizer))
        if case in RESUMED:
            saved = trajectory(torch, case, steps=25)[1].state_dict()
            answers[case]["resumed"] = np.array(resumed(torch, case, saved, snapshots[25]))
    return answers


ANSWERS = recorded_answers(__file__)


def assert_trajectory(ours: dict, theirs: dict, case: str):
    """`ours` and `theirs` (snapshot step -> parameters) agree at each of SNAPSHOTS."""
    for step in SNAPSHOTS:
        np.testing.assert_allclose(
            ours[step], theirs[step], rtol=1e-10, atol=1e-12, err_msg=f"{case} step {step}"
        )


@pytest.mark.parametrize("case", CASES)
def test_trajectory_is_torchs(case):
    snapshots, _ = trajectory(minitorch, case)
    assert_trajectory(snapshots, {s: ANSWERS[case][f"snapshot {s}"] for s in SNAPSHOTS}, case)


@pytest.mark.parametrize("case", CASES)
def test_state_dict_has_torchs_layout(case):
    _, optimizer = trajectory(minitorch, case, steps=2)
    assert as_recorded(state_layout(optimizer)) == ANSWERS[case]["layout"]


@pytest.mark.parametrize("case", RESUMED)
def test_state_dict_round_trip_continues_the_trajectory(case, tmp_path):
    """25 steps, save (through minitorch.save), load into a fresh optimizer, 25 more: torch's
    parameters after the same round trip (loading casts ASGD's eta and mu and NAdam's
    mu_product to the parameters' float64, so they differ a little from 50 steps straight)."""
    _, first = trajectory(minitorch, case, steps=25)
    minitorch.save(first.state_dict(), tmp_path / "optimizer.pt")
    saved = minitorch.load(tmp_path / "optimizer.pt")
    np.testing.assert_allclose(
        resumed(minitorch, case, saved, ANSWERS[case]["snapshot 25"].tolist()),
        ANSWERS[case]["resumed"],
        rtol=1e-10,
        atol=1e-12,
    )


def test_the_learning_rate_defaults_are_torchs():
    p = minitorch.zeros(1, requires_grad=True)
    for name, lr in DEFAULT_LR.items():
        assert getattr(minitorch.optim, name)([p]).defaults["lr"] == lr
    assert minitorch.optim.Rprop([p]).defaults["lr"] == 1e-2


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
     ("Adadelta", {"lr": -1.0}, "Invalid learning rate: -1.0"),
     ("Adamax", {"betas": (0.9, 1.0)}, "Invalid beta parameter at index 1: 1.0"),
     ("NAdam", {"momentum_decay": -1.0}, "Invalid momentum_decay value: -1.0"),
     ("RAdam", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
     ("ASGD", {"weight_decay": -1.0}, "Invalid weight_decay value: -1.0"),
     ("Rprop", {"etas": (1.5, 2.0)}, "Invalid eta values: 1.5, 2.0"),
     ("Adafactor", {"lr": -1.0}, "Learning rate should be >= 0 but is: -1.0"),
     ("Adafactor", {"beta2_decay": 0.5}, "beta2_decay should be <= 0 but is: 0.5"),
     ("Adafactor", {"eps": (-1.0, 1e-3)}, "epsilon1 should be >= 0 but is: -1.0"),
     ("Adafactor", {"d": 0.5}, "Clipping threshold d should be >= 1 but is: 0.5")],
)  # fmt: skip
def test_bad_options_are_torchs_errors(name, options, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        getattr(minitorch.optim, name)([minitorch.zeros(1, requires_grad=True)], **options)


def test_a_parameter_without_gradient_is_left_alone():
    p, q = minitorch.ones(2, requires_grad=True), minitorch.ones(2, requires_grad=True)
    for name in ("Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "Adafactor"):
        optimizer = getattr(minitorch.optim, name)([p, q])
        (p * p).sum().backward()
        optimizer.step()
        assert q.tolist() == [1.0, 1.0] and q not in optimizer.state
        assert not math.isclose(p[0].item(), 1.0)
        p.grad = None


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES)
def test_trajectory_against_live_torch(torch, case):
    ours, optimizer = trajectory(minitorch, case)
    theirs, reference = trajectory(torch, case)
    assert_trajectory(ours, theirs, case)
    assert state_layout(optimizer) == state_layout(reference)
    for i, state in reference.state_dict()["state"].items():
        for key, value in state.items():
            ours_value = optimizer.state_dict()["state"][i][key]  # `step` on the CPU, as torch's
            np.testing.assert_allclose(
                ours_value.tolist(),
                value.tolist(),
                rtol=1e-9,
                atol=1e-12,
                err_msg=f"{case} state {i} {key}",
            )


@pytest.mark.torch
@pytest.mark.parametrize("case", RESUMED)
def test_torchs_state_dict_loads_and_continues(torch, case):
    """torch's state after 25 steps, loaded into ours: our next 25 steps are torch's."""
    snapshots, reference = trajectory(torch, case, steps=25)
    saved = reference.state_dict()
    converted = dict(saved)
    converted["state"] = {
        i: {k: minitorch.tensor(v.numpy()) for k, v in s.items()} for i, s in saved["state"].items()
    }
    ours = resumed(minitorch, case, converted, snapshots[25])
    theirs = resumed(torch, case, saved, snapshots[25])
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
