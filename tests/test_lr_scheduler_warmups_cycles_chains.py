"""MultiplicativeLR, ConstantLR, LinearLR, PolynomialLR, CosineAnnealingWarmRestarts,
CyclicLR, SequentialLR and ChainedScheduler against torch: the rates (and CyclicLR's
momentum) of every group for 20 epochs, state dicts that resume the schedule, the keys
torch saves, and torch's errors.

torch 2.13's rates are recorded in tests/data/test_lr_scheduler_warmups_cycles_chains.json
(scripts/record_torch_answers.py from `torch_answers`), so the tests compare without torch;
with torch installed they also compare live.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import recorded_answers

import minitorch

EPOCHS = 20


def decay(epoch):
    return 0.9 if epoch % 2 else 0.8


# name -> (optimizer, its options, [scheduler specs], combinator and its arguments or None);
# a spec is (scheduler name, options)
CASES = {
    "multiplicative": ("SGD", {}, [("MultiplicativeLR", {"lr_lambda": decay})], None),
    "multiplicative-per-group": (
        "SGD", {}, [("MultiplicativeLR", {"lr_lambda": [decay, lambda e: 0.5]})], None),
    "constant": ("SGD", {}, [("ConstantLR", {"factor": 0.5, "total_iters": 4})], None),
    "linear-warmup": ("SGD", {}, [("LinearLR", {"start_factor": 0.25, "total_iters": 4})], None),
    "linear-decay": (
        "SGD", {}, [("LinearLR", {"start_factor": 1.0, "end_factor": 0.1, "total_iters": 6})],
        None),
    "polynomial": ("SGD", {}, [("PolynomialLR", {"total_iters": 6, "power": 2.0})], None),
    "warm-restarts": (
        "SGD", {}, [("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.01})],
        None),
    "warm-restarts-fixed": ("SGD", {}, [("CosineAnnealingWarmRestarts", {"T_0": 4})], None),
    "cyclic": (
        "SGD", {"momentum": 0.9},
        [("CyclicLR", {"base_lr": 0.01, "max_lr": [0.1, 0.2], "step_size_up": 3})], None),
    "cyclic-triangular2": (
        "SGD", {"momentum": 0.9},
        [("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "step_size_down": 3,
                       "mode": "triangular2"})], None),
    "cyclic-exp-range-adam": (
        "Adam", {},
        [("CyclicLR", {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 3, "mode": "exp_range",
                       "gamma": 0.9, "base_momentum": 0.85, "max_momentum": 0.95})], None),
    "cyclic-scale-fn": (
        "SGD", {},
        [("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2,
                       "scale_fn": lambda x: 1 / (1 + x), "scale_mode": "iterations",
                       "cycle_momentum": False})], None),
    "sequential": (
        "SGD", {},
        [("LinearLR", {"start_factor": 0.1, "total_iters": 3}),
         ("CosineAnnealingLR", {"T_max": 8, "eta_min": 0.001})], ("SequentialLR", [3])),
    "sequential-three": (
        "SGD", {},
        [("ConstantLR", {"factor": 0.5, "total_iters": 10}), ("ExponentialLR", {"gamma": 0.9}),
         ("StepLR", {"step_size": 3, "gamma": 0.5})], ("SequentialLR", [2, 7])),
    "sequential-multistep-polynomial": (
        "SGD", {},
        [("MultiStepLR", {"milestones": [0, 2], "gamma": 0.5}),
         ("PolynomialLR", {"total_iters": 5})], ("SequentialLR", [4])),
    "chained": (
        "SGD", {},
        [("ConstantLR", {"factor": 0.5, "total_iters": 3}), ("ExponentialLR", {"gamma": 0.9})],
        ("ChainedScheduler", None)),
}  # fmt: skip


def build(lib, case: str):
    name, options, specs, combinator = CASES[case]
    groups = [{"params": [lib.zeros(1, requires_grad=True)], "lr": lr} for lr in (0.5, 0.1)]
    optimizer = getattr(lib.optim, name)(groups, **options)
    made = [getattr(lib.optim.lr_scheduler, s)(optimizer, **kw) for s, kw in specs]
    if combinator is None:
        return optimizer, made[0]
    kind, milestones = combinator
    if kind == "SequentialLR":
        return optimizer, lib.optim.lr_scheduler.SequentialLR(optimizer, made, milestones)
    return optimizer, lib.optim.lr_scheduler.ChainedScheduler(made)


def momentum_of(group) -> float | None:
    if "betas" in group:
        return group["betas"][0]
    return group.get("momentum")


def schedule(optimizer, scheduler, epochs=EPOCHS, start=0) -> list:
    """[rate, momentum] of each group at each epoch, stepping the optimizer then the scheduler."""
    seen = []
    for _ in range(start, epochs):
        seen.append([[g["lr"], momentum_of(g)] for g in optimizer.param_groups])
        assert scheduler.get_last_lr() == [g["lr"] for g in optimizer.param_groups]
        optimizer.step()
        scheduler.step()
    return seen


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py): the
    `schedule` (epoch, group, [rate, momentum]) and the keys of the scheduler's state dict."""
    answers = {}
    for case in CASES:
        optimizer, scheduler = build(torch, case)
        rates = np.array(schedule(optimizer, scheduler), dtype=np.float64)
        answers[case] = {"rates": rates, "keys": sorted(scheduler.state_dict())}
    return answers


ANSWERS = recorded_answers(__file__)


def assert_rates(ours, theirs, case):
    ours, theirs = np.array(ours, dtype=float), np.array(theirs, dtype=float)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15, err_msg=case)


@pytest.mark.parametrize("case", CASES)
def test_rates_are_torchs(case):
    assert_rates(schedule(*build(minitorch, case)), ANSWERS[case]["rates"], case)


# torch's flag for its warning when get_lr() is called outside step(), which minitorch
# does not keep: the one key of torch's state dicts that ours lack
TORCH_ONLY = {"_get_lr_called_within_step"}


@pytest.mark.parametrize("case", CASES)
def test_state_dict_keys_are_torchs(case):
    ours = set(build(minitorch, case)[1].state_dict())
    assert ours == set(ANSWERS[case]["keys"]) - TORCH_ONLY


@pytest.mark.parametrize("case", CASES)
def test_state_dict_resumes_the_schedule(case):
    """7 epochs, then a fresh optimizer and scheduler (the optimizer's group options copied,
    the scheduler's state loaded): epochs 7..19 are the recorded ones."""
    optimizer, scheduler = build(minitorch, case)
    schedule(optimizer, scheduler, epochs=7)
    saved_groups = [{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]
    saved = scheduler.state_dict()
    fresh_optimizer, fresh = build(minitorch, case)
    for group, options in zip(fresh_optimizer.param_groups, saved_groups, strict=True):
        group.update(options)
    fresh.load_state_dict(saved)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fresh optimizer has not stepped
        rest = schedule(fresh_optimizer, fresh, start=7)
    assert_rates(rest, ANSWERS[case]["rates"][7:], case)


def test_warm_restarts_takes_fractional_epochs():
    """Stepped with fractional epochs, the cosine restarts at T_0 and T_0 (1 + T_mult)."""
    optimizer = minitorch.optim.SGD([minitorch.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = minitorch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, 2, T_mult=2)
    quarter = 0.5 * (1 + np.cos(np.pi / 4))  # T_cur / T_i = 1/4
    for epoch, expected in [(0.5, quarter), (2.0, 1.0), (3.0, quarter), (6.0, 1.0),
                            (7.5, 0.5 * (1 + np.cos(np.pi * 1.5 / 8)))]:  # fmt: skip
        scheduler.step(epoch)
        assert scheduler.get_last_lr()[0] == pytest.approx(expected)
        assert scheduler.last_epoch == int(epoch)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [(lambda o, L: L.ConstantLR(o, factor=1.5), ValueError,
      "Constant multiplicative factor expected to be between 0 and 1."),
     (lambda o, L: L.LinearLR(o, start_factor=0), ValueError,
      "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."),
     (lambda o, L: L.LinearLR(o, end_factor=2), ValueError,
      "Ending multiplicative factor expected to be between 0 and 1."),
     (lambda o, L: L.CosineAnnealingWarmRestarts(o, T_0=0), ValueError,
      "Expected positive integer T_0, but got 0"),
     (lambda o, L: L.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0), ValueError,
      "Expected integer T_mult >= 1, but got 0"),
     (lambda o, L: L.CyclicLR(o, 0.1, 1.0, mode="x"), ValueError,
      "mode is invalid and scale_fn is None"),
     (lambda o, L: L.CyclicLR(o, 0.1, 1.0), ValueError,
      "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"),
     (lambda o, L: L.MultiplicativeLR(o, [decay, decay]), ValueError,
      "Expected 1 lr_lambdas, but got 2"),
     (lambda o, L: L.MultiplicativeLR(o, 0.5), TypeError,
      "lr_lambda should be a function, but got float"),
     (lambda o, L: L.SequentialLR(o, [], []), ValueError,
      "SequentialLR expects at least one scheduler, but got no scheduler."),
     (lambda o, L: L.SequentialLR(o, [L.StepLR(o, 2)], [1]), ValueError,
      "Sequential Schedulers expects number of schedulers provided to be one more than the "
      "number of milestone points, but got number of schedulers 1 and the number of "
      "milestones to be equal to 1"),
     (lambda o, L: L.ChainedScheduler([L.ReduceLROnPlateau(o)]), ValueError,
      "ChainedScheduler does not support `ReduceLROnPlateau` scheduler"),
     (lambda o, L: L.ChainedScheduler([]), ValueError,
      "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.")],
)  # fmt: skip
def test_errors_are_torchs(make, error, message):
    optimizer = minitorch.optim.Adagrad([minitorch.zeros(1, requires_grad=True)])
    with pytest.raises(error) as raised:
        make(optimizer, minitorch.optim.lr_scheduler)
    assert str(raised.value).startswith(message)


def test_schedulers_of_another_optimizer_are_refused():
    first = minitorch.optim.SGD([minitorch.zeros(1, requires_grad=True)])
    other = minitorch.optim.SGD([minitorch.zeros(1, requires_grad=True)])
    L = minitorch.optim.lr_scheduler
    with pytest.raises(ValueError, match="expects all schedulers to belong to the same optimizer"):
        L.SequentialLR(first, [L.StepLR(first, 2), L.StepLR(other, 2)], [3])


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES)
def test_rates_against_live_torch(torch, case):
    ours, theirs = build(minitorch, case), build(torch, case)
    assert_rates(schedule(*ours), schedule(*theirs), case)
    assert set(ours[1].state_dict()) == set(theirs[1].state_dict()) - TORCH_ONLY
