"""minitorch.optim.lr_scheduler against torch.optim.lr_scheduler: the same rates, epoch by epoch.

Skipped when torch is not installed.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def optimizers(name="SGD", lrs=(0.5, 0.1), **kwargs):
    """One optimizer in each library, with one parameter group per rate in `lrs`."""
    made = []
    for lib in (minitorch, torch):
        groups = [{"params": [lib.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs]
        made.append(getattr(lib.optim, name)(groups, **kwargs))
    return made


def rates(optimizer, scheduler, epochs, metrics=None):
    """The rates of every group at each epoch, stepping the optimizer then the scheduler."""
    seen = []
    for epoch in range(epochs):
        seen.append([group["lr"] for group in optimizer.param_groups])
        assert scheduler.get_last_lr() == seen[-1]
        optimizer.step()
        scheduler.step() if metrics is None else scheduler.step(metrics[epoch])
    return seen


SCHEDULES = {
    "StepLR": ("StepLR", {"step_size": 3, "gamma": 0.5}),
    "MultiStepLR": ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    "ExponentialLR": ("ExponentialLR", {"gamma": 0.8}),
    "CosineAnnealingLR": ("CosineAnnealingLR", {"T_max": 6, "eta_min": 0.01}),
    "LambdaLR": ("LambdaLR", {"lr_lambda": lambda epoch: 1 / (1 + epoch) ** 0.5}),
    "LambdaLR per group": (
        "LambdaLR",
        {"lr_lambda": [lambda epoch: 0.9**epoch, lambda epoch: epoch % 3 + 1]},
    ),
    "OneCycleLR cos": ("OneCycleLR", {"max_lr": 1.0, "total_steps": 15}),
    "OneCycleLR linear": (
        "OneCycleLR",
        {
            "max_lr": [1.0, 2.0],
            "epochs": 3,
            "steps_per_epoch": 5,
            "anneal_strategy": "linear",
            "pct_start": 0.4,
            "div_factor": 10.0,
            "final_div_factor": 100.0,
        },
    ),
    "OneCycleLR three phases": (
        "OneCycleLR",
        {"max_lr": 0.8, "total_steps": 14, "three_phase": True},
    ),
}


@pytest.mark.parametrize("case", sorted(SCHEDULES))
def test_rates_match_torch(case):
    name, kwargs = SCHEDULES[case]
    optimizer, reference = optimizers(momentum=0.9)
    scheduler = getattr(minitorch.optim.lr_scheduler, name)(optimizer, **kwargs)
    expected_scheduler = getattr(torch.optim.lr_scheduler, name)(reference, **kwargs)
    epochs = getattr(expected_scheduler, "total_steps", 14)
    got, expected = (
        rates(optimizer, scheduler, epochs),
        rates(reference, expected_scheduler, epochs),
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    assert scheduler.last_epoch == expected_scheduler.last_epoch == epochs
    assert optimizer.param_groups[0]["initial_lr"] == reference.param_groups[0]["initial_lr"]


def test_cosine_annealing_past_t_max_climbs_back_as_torch():
    optimizer, reference = optimizers()
    scheduler = minitorch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=3)
    expected_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(reference, T_max=3)
    got, expected = rates(optimizer, scheduler, 13), rates(reference, expected_scheduler, 13)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_one_cycle_moves_momentum_or_beta1_as_torch(name):
    optimizer, reference = optimizers(name, lrs=(0.1,))
    key = "momentum" if name == "SGD" else "betas"
    scheduler = minitorch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1.0, total_steps=10)
    expected_scheduler = torch.optim.lr_scheduler.OneCycleLR(reference, max_lr=1.0, total_steps=10)
    got, expected = [], []
    for _ in range(10):
        got.append(optimizer.param_groups[0][key])
        expected.append(reference.param_groups[0][key])
        optimizer.step()
        reference.step()
        scheduler.step()
        expected_scheduler.step()
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_chained_schedulers_match_torch():
    optimizer, reference = optimizers()
    ours = [
        minitorch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9),
        minitorch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[3, 6]),
    ]
    theirs = [
        torch.optim.lr_scheduler.ExponentialLR(reference, gamma=0.9),
        torch.optim.lr_scheduler.MultiStepLR(reference, milestones=[3, 6]),
    ]
    got, expected = [], []
    for _ in range(8):
        for opt, schedulers, seen in ((optimizer, ours, got), (reference, theirs, expected)):
            seen.append([group["lr"] for group in opt.param_groups])
            opt.step()
            for scheduler in schedulers:
                scheduler.step()
    np.testing.assert_allclose(got, expected, rtol=1e-12)


PLATEAU = {
    "min rel": {"patience": 2, "factor": 0.5},
    "max abs cooldown": {
        "mode": "max",
        "threshold_mode": "abs",
        "threshold": 0.05,
        "patience": 1,
        "cooldown": 2,
        "factor": 0.3,
    },
    "min_lr per group": {"patience": 0, "min_lr": [0.2, 0.001]},
}


@pytest.mark.parametrize("case", sorted(PLATEAU))
def test_reduce_on_plateau_matches_torch(case):
    metrics = [1.0, 0.9, 0.95, 0.9, 0.92, 0.91, 0.5, 0.5, 0.6, 0.7, 0.4, 0.45, 0.45, 0.45, 0.3]
    optimizer, reference = optimizers()
    scheduler = minitorch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **PLATEAU[case])
    expected_scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(reference, **PLATEAU[case])
    got = rates(optimizer, scheduler, len(metrics), metrics)
    expected = rates(reference, expected_scheduler, len(metrics), metrics)
    assert got == expected
    assert len({tuple(lrs) for lrs in expected}) > 2, "the metrics should reduce more than once"
    assert scheduler.best == expected_scheduler.best


def test_reduce_on_plateau_takes_a_0_dim_tensor_metric():
    optimizer, _ = optimizers()
    scheduler = minitorch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
    scheduler.step(minitorch.tensor(1.0))
    scheduler.step(minitorch.tensor(2.0))
    assert scheduler.get_last_lr() == pytest.approx([0.05, 0.01])


@pytest.mark.parametrize("case", ["StepLR", "CosineAnnealingLR", "OneCycleLR cos"])
def test_state_dict_resumes_the_same_rates(case):
    name, kwargs = SCHEDULES[case]
    optimizer, reference = optimizers(momentum=0.9)
    scheduler = getattr(minitorch.optim.lr_scheduler, name)(optimizer, **kwargs)
    expected_scheduler = getattr(torch.optim.lr_scheduler, name)(reference, **kwargs)
    rates(optimizer, scheduler, 5)
    saved_optimizer, saved = optimizer.state_dict(), scheduler.state_dict()
    assert "optimizer" not in saved and saved["last_epoch"] == 5
    # a new optimizer and scheduler, built as before, take the saved states: from epoch 5 on
    fresh, _ = optimizers(momentum=0.9)
    resumed = getattr(minitorch.optim.lr_scheduler, name)(fresh, **kwargs)
    fresh.load_state_dict(saved_optimizer)
    resumed.load_state_dict(saved)
    expected = rates(reference, expected_scheduler, 12)[5:]
    np.testing.assert_allclose(rates(fresh, resumed, 7), expected, rtol=1e-12)


def test_resuming_at_an_epoch_uses_torchs_closed_form():
    optimizer, reference = optimizers()
    for opt in (optimizer, reference):
        for group in opt.param_groups:
            group["initial_lr"] = group["lr"]
    scheduler = minitorch.optim.lr_scheduler.CosineAnnealingLR(optimizer, 10, last_epoch=3)
    expected_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(reference, 10, last_epoch=3)
    np.testing.assert_allclose(
        rates(optimizer, scheduler, 5), rates(reference, expected_scheduler, 5), rtol=1e-12
    )


def bad_schedulers():
    def resume_without_initial_lr(lib, opt):
        lib.optim.lr_scheduler.StepLR(opt, 2, last_epoch=4)

    return {
        "not an optimizer": lambda lib, opt: lib.optim.lr_scheduler.StepLR("sgd", 2),
        "resume without initial_lr": resume_without_initial_lr,
        "lambdas per group": lambda lib, opt: lib.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0]),
        "one cycle without steps": lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, 1.0),
        "one cycle steps 0": lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, 1.0, 0),
        "one cycle int pct_start": lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(
            opt, 1.0, 10, pct_start=1
        ),
        "one cycle strategy": lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(
            opt, 1.0, 10, anneal_strategy="exp"
        ),
        "one cycle max_lr list": lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, [1.0], 10),
        "plateau factor": lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(
            opt, factor=1.0
        ),
        "plateau mode": lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(
            opt, mode="lowest"
        ),
        "plateau min_lrs": lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(
            opt, min_lr=[0.1]
        ),
    }


@pytest.mark.parametrize("case", sorted(bad_schedulers()))
def test_bad_settings_raise_torchs_error(case):
    make = bad_schedulers()[case]
    optimizer, reference = optimizers()
    with pytest.raises((TypeError, ValueError, KeyError)) as expected:
        make(torch, reference)
    with pytest.raises(expected.type) as got:
        make(minitorch, optimizer)
    assert str(got.value) == str(expected.value)


def test_one_cycle_past_its_total_steps_raises_torchs_error():
    optimizer, reference = optimizers()
    for lib, opt in ((minitorch, optimizer), (torch, reference)):
        scheduler = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(2):
                scheduler.step()
            with pytest.raises(ValueError, match="Tried to step 4 times"):
                scheduler.step()
                scheduler.step()


def test_stepping_the_scheduler_before_the_optimizer_warns_as_torch():
    optimizer, reference = optimizers()
    messages = []
    for lib, opt in ((torch, reference), (minitorch, optimizer)):
        scheduler = lib.optim.lr_scheduler.StepLR(opt, 2)
        with pytest.warns(UserWarning) as record:
            scheduler.step()
        messages.append([str(w.message) for w in record])
    assert messages[1] == messages[0] and len(messages[0]) == 1


def test_no_warning_when_the_optimizer_steps_first():
    optimizer, _ = optimizers()
    scheduler = minitorch.optim.lr_scheduler.StepLR(optimizer, 2)
    other = minitorch.optim.lr_scheduler.ExponentialLR(optimizer, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optimizer.step()
        scheduler.step()
        other.step()
    # the schedulers wrap the optimizer's own step once between them, not each other's
    # wrappers: with a wrapper per scheduler, this many would overflow the stack
    for _ in range(sys.getrecursionlimit()):
        minitorch.optim.lr_scheduler.StepLR(optimizer, 2)
    optimizer.step()
