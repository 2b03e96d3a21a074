"""The margin, likelihood and CTC losses of minitorch.nn.functional against torch: values,
dtypes, gradients of every input torch differentiates (in float32 and float64, every reduction,
weights, empty batches), central differences, errors and warnings.

The values, dtypes and gradients are torch's, recorded in
tests/data/test_nn_margin_likelihood_losses.json (scripts/record_torch_answers.py from
`torch_answers`), and so are the errors' types and texts; the warnings are also compared with
torch live. The losses are composed of other operations here, where torch has nodes of their
own for several: the `grad_fn` names are not compared. The builders of the inputs are
tests/loss_cases.py's.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import RecordedValueCases, assert_case_passes_central_differences, case_rng
from loss_cases import (
    DTYPES,
    REDUCTIONS,
    X,
    cosine_embedding_case,
    ctc_case,
    float64_cases,
    gaussian_case,
    hinge_case,
    kl_case,
    multi_margin_case,
    multi_margin_plain_case,
    multilabel_margin_case,
    multilabel_soft_case,
    poisson_case,
    ranking_case,
    soft_margin_case,
    t,
    triplet_case,
    triplet_distance_case,
)

import minitorch

LOSSES = {
    "margin_ranking_loss": ranking_case,
    "hinge_embedding_loss": hinge_case,
    "soft_margin_loss": soft_margin_case,
    "multilabel_soft_margin_loss": multilabel_soft_case,
    "multi_margin_loss(p=2, weight)": multi_margin_case,
    "multi_margin_loss": multi_margin_plain_case,
    "multilabel_margin_loss": multilabel_margin_case,
    "cosine_embedding_loss": cosine_embedding_case,
    "triplet_margin_loss": triplet_case,
    "triplet_margin_loss(p=1, swap)": lambda *a: triplet_case(*a, p=1, swap=True, margin=0.5),
    "triplet_margin_loss(p=3, eps=0.1)": lambda *a: triplet_case(*a, p=3, eps=0.1),
    "triplet_margin_with_distance_loss": triplet_distance_case,
    "kl_div": kl_case,
    "kl_div(log_target)": lambda *a: kl_case(*a, log_target=True),
    "kl_div(a zero target)": lambda *a: kl_case(*a, zero=True),
    "poisson_nll_loss": poisson_case,
    "poisson_nll_loss(full)": lambda *a: poisson_case(*a, full=True),
    "poisson_nll_loss(rates)": lambda *a: poisson_case(*a, log_input=False, eps=0.01),
    "gaussian_nll_loss": gaussian_case,
    "gaussian_nll_loss(full, var per sample)": lambda *a: gaussian_case(
        *a, var_shape=(None,), full=True
    ),
    "gaussian_nll_loss(var (n, 1))": lambda *a: gaussian_case(*a, var_shape=(None, 1), eps=0.01),
    "gaussian_nll_loss(var below eps)": lambda *a: gaussian_case(*a, tiny=True),
    "ctc_loss": ctc_case,
    "ctc_loss(zero_infinity)": lambda *a: ctc_case(*a, zero_infinity=True),
    "ctc_loss(an empty input)": lambda *a: ctc_case(*a, lengths=(6, 5, 4, 0)),
}
# Empty batches where torch gives a loss (the reduced multi_margin_loss and
# multilabel_margin_loss of no samples are unset numbers in torch:
# test_multi_class_margin_losses_of_no_samples); CTC needs a sample.
EMPTY = [
    (name, reduction)
    for name in sorted(name for name in LOSSES if not name.startswith("ctc_loss"))
    for reduction in REDUCTIONS
    if not (name.startswith("multi") and "margin_loss" in name and reduction != "none")
]


def loss_key(name, dtype, reduction, batch=4):
    return repr(("loss", name, dtype, reduction, batch))


def loss_case(name, dtype, reduction, batch=4):
    key = loss_key(name, dtype, reduction, batch)
    fn, arrays, grads = LOSSES[name](case_rng(key), batch, dtype, reduction)
    return key, (fn, arrays, {"differentiable": grads})


def kl_batchmean_case(dtype):
    key = repr(("kl_div batchmean", dtype))
    fn, arrays, grads = kl_case(case_rng(key), 3, dtype, "batchmean")
    return key, (fn, arrays, {"differentiable": grads})


def cases() -> dict[str, tuple]:
    found = dict(
        loss_case(name, dtype, reduction)
        for name in LOSSES
        for dtype in DTYPES
        for reduction in REDUCTIONS
    )
    found.update(loss_case(name, "float64", reduction, batch=0) for name, reduction in EMPTY)
    found.update(kl_batchmean_case(dtype) for dtype in DTYPES)
    return found


CASES = cases()
FLOAT64_CASES = float64_cases(CASES)


# ---------------------------------------------------------------------------
# Errors, with torch's types and texts
# ---------------------------------------------------------------------------


def ctc_call(lib, **changes):
    arguments = {"log_probs": t(lib, np.zeros((4, 2, 3))), "targets": lib.tensor([[1, 2], [1, 1]]),
                 "input_lengths": [4, 4], "target_lengths": [2, 2]}  # fmt: skip
    arguments.update({k: v(lib) if callable(v) else v for k, v in changes.items()})
    return lib.nn.functional.ctc_loss(**arguments)


ERRORS = {
    "reduction": lambda lib: lib.nn.functional.soft_margin_loss(
        t(lib, X), t(lib, X), reduction="x"),
    "kl_div reduction": lambda lib: lib.nn.functional.kl_div(t(lib, X), t(lib, X), reduction="x"),
    "margin_ranking dims": lambda lib: lib.nn.functional.margin_ranking_loss(
        t(lib, X), t(lib, X[0]), t(lib, X[0])),
    "multi_margin p": lambda lib: lib.nn.functional.multi_margin_loss(
        t(lib, X), lib.tensor([0, 1, 2]), p=3),
    "multi_margin weight dims": lambda lib: lib.nn.functional.multi_margin_loss(
        t(lib, X), lib.tensor([0, 1, 2]), weight=t(lib, X)),
    "multi_margin weight size": lambda lib: lib.nn.functional.multi_margin_loss(
        t(lib, X), lib.tensor([0, 1, 2]), weight=t(lib, [1.0, 2.0])),
    "multi_margin target size": lambda lib: lib.nn.functional.multi_margin_loss(
        t(lib, X), lib.tensor([0, 1])),
    "multi_margin target range": lambda lib: lib.nn.functional.multi_margin_loss(
        t(lib, X), lib.tensor([0, 4, 1])),
    "multi_margin integer input": lambda lib: lib.nn.functional.multi_margin_loss(
        lib.ones(3, 4, dtype=lib.int64), lib.tensor([0, 1, 1])),
    "multi_margin int32 target": lambda lib: lib.nn.functional.multi_margin_loss(
        t(lib, X), lib.tensor([0, 1, 1], dtype=lib.int32)),
    "multi_margin 3-D": lambda lib: lib.nn.functional.multi_margin_loss(
        t(lib, np.zeros((2, 2, 2))), lib.tensor([0, 1])),
    "multilabel_margin target size": lambda lib: lib.nn.functional.multilabel_margin_loss(
        t(lib, X), lib.tensor([[0, 1], [1, 2], [2, 3]])),
    "multilabel_margin target range": lambda lib: lib.nn.functional.multilabel_margin_loss(
        t(lib, X[0]), lib.tensor([4, -1, 0, 0])),
    "cosine_embedding 2-D target": lambda lib: lib.nn.functional.cosine_embedding_loss(
        t(lib, X), t(lib, X), t(lib, X)),
    "cosine_embedding 1-D target": lambda lib: lib.nn.functional.cosine_embedding_loss(
        t(lib, X[0]), t(lib, X[0]), t(lib, [1.0])),
    "cosine_embedding 0-D target": lambda lib: lib.nn.functional.cosine_embedding_loss(
        t(lib, X), t(lib, X), t(lib, 1.0)),
    "triplet margin": lambda lib: lib.nn.functional.triplet_margin_loss(
        t(lib, X), t(lib, X), t(lib, X), margin=0.0),
    "triplet dims": lambda lib: lib.nn.functional.triplet_margin_loss(
        t(lib, X), t(lib, X), t(lib, X[0])),
    "triplet with distance dims": lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
        t(lib, X[0]), t(lib, X), t(lib, X)),
    "triplet with distance reduction": (
        lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
            t(lib, X), t(lib, X), t(lib, X), reduction="avg")),
    "gaussian negative var": lambda lib: lib.nn.functional.gaussian_nll_loss(
        t(lib, X), t(lib, X), -t(lib, X)),
    "gaussian negative float var": lambda lib: lib.nn.functional.gaussian_nll_loss(
        t(lib, X), t(lib, X), -1.0),
    "gaussian var size": lambda lib: lib.nn.functional.gaussian_nll_loss(
        t(lib, X), t(lib, X), t(lib, X[:2, :3])),
    "gaussian reduction": lambda lib: lib.nn.functional.gaussian_nll_loss(
        t(lib, X), t(lib, X), t(lib, X), reduction="avg"),
    "ctc input lengths": lambda lib: ctc_call(lib, input_lengths=[4]),
    "ctc target lengths": lambda lib: ctc_call(lib, target_lengths=[2, 2, 2]),
    "ctc input too long": lambda lib: ctc_call(lib, input_lengths=[5, 4]),
    "ctc targets too short": lambda lib: ctc_call(lib, target_lengths=[3, 2]),
    "ctc concatenated targets": lambda lib: ctc_call(
        lib, targets=lambda lib: lib.tensor([1, 2, 3])),
    "ctc integer log_probs": lambda lib: ctc_call(
        lib, log_probs=lambda lib: lib.zeros(4, 2, 3).long()),
    "ctc blank": lambda lib: ctc_call(lib, blank=3),
    "ctc reduction": lambda lib: ctc_call(lib, reduction="avg"),
}  # fmt: skip


RECORDED = RecordedValueCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers
check, check_error = RECORDED.check, RECORDED.check_error


# ---------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_match_torch(name, dtype, reduction):
    check(loss_key(name, dtype, reduction))


@pytest.mark.parametrize(("name", "reduction"), EMPTY)
def test_losses_of_an_empty_batch_match_torch(name, reduction):
    """Nothing to average: the mean is nan, the sum 0, the gradients empty, as in torch."""
    check(loss_key(name, "float64", reduction, batch=0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_kl_div_batchmean_divides_by_the_batch_size(dtype):
    check(repr(("kl_div batchmean", dtype)))
    fn, arrays, _ = CASES[repr(("kl_div batchmean", dtype))]
    x, y = (minitorch.tensor(a) for a in arrays)
    total = minitorch.nn.functional.kl_div(x, y, reduction="sum")
    batchmean = minitorch.nn.functional.kl_div(x, y, reduction="batchmean")
    np.testing.assert_allclose(batchmean.item(), total.item() / 3, rtol=1e-6)


@pytest.mark.parametrize("key", FLOAT64_CASES)
def test_gradients_against_central_differences(key):
    assert_case_passes_central_differences(CASES, key)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    check_error(case)


@pytest.mark.parametrize("name", ["multi_margin_loss", "multilabel_margin_loss"])
def test_multi_class_margin_losses_of_no_samples(name):
    """No samples reduce as every empty tensor: the mean is nan, the sum 0 (torch's are
    unset numbers)."""
    x = minitorch.zeros(0, 3, requires_grad=True)
    target = minitorch.zeros(0, *(() if name == "multi_margin_loss" else (3,))).long()
    loss = getattr(minitorch.nn.functional, name)
    assert math.isnan(loss(x, target).item())
    total = loss(x, target, reduction="sum")
    assert total.item() == 0.0
    total.backward()
    assert x.grad.shape == (0, 3)


def ctc_of_log_probs(lib, x):
    return lib.nn.functional.ctc_loss(x, lib.tensor([[1, 2], [2, 2]]), [5, 4], [2, 2])


def test_ctc_gradient_of_log_probs():
    """Fed log-probabilities as leaves, minitorch's gradient is the derivative of the loss
    (central differences); torch's adds $e^{\\ln y} g$ at every step inside the input length,
    a term that log_softmax's backward cancels (the recorded cases go through it)."""
    rng = case_rng("ctc of log_probs")
    logits = minitorch.tensor(rng.standard_normal((5, 2, 4)))
    log_probs = logits.log_softmax(2).detach().requires_grad_()
    assert minitorch.grad_check(lambda x: ctc_of_log_probs(minitorch, x), log_probs)
    log_probs.grad = None
    through = logits.clone().requires_grad_()
    ctc_of_log_probs(minitorch, through.log_softmax(2)).backward()
    ctc_of_log_probs(minitorch, log_probs).backward()
    softmax = log_probs.detach().exp()
    ours_through = log_probs.grad - softmax * log_probs.grad.sum(2, keepdim=True)
    np.testing.assert_allclose(ours_through.numpy(), through.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_ctc_of_an_impossible_alignment():
    """A target longer than its input: loss inf, and, zero_infinity, 0. The gradient of the inf
    loss is 0 here (unreachable states pass none), where torch's is nan."""
    x = minitorch.zeros(2, 1, 3, requires_grad=True)
    target = minitorch.tensor([[1, 1, 2]])
    loss = minitorch.nn.functional.ctc_loss(x, target, [2], [3], reduction="sum")
    assert loss.item() == math.inf
    loss.backward()
    assert (x.grad == 0).all().item()
    zeroed = minitorch.nn.functional.ctc_loss(x, target, [2], [3], zero_infinity=True)
    assert zeroed.item() == 0.0


def test_ctc_matches_brute_force_over_alignments():
    """$p(l \\mid x)$ is the sum over every path that collapses to $l$ (repeats merged, then
    blanks removed) of the product of its probabilities."""
    rng = case_rng("ctc brute force")
    probs = rng.dirichlet(np.ones(3), 4)  # 4 steps, 3 classes, blank 0
    target = [1, 1]
    total = 0.0
    for path in np.ndindex(*([3] * 4)):
        collapsed = [c for k, c in enumerate(path) if k == 0 or c != path[k - 1]]
        if [c for c in collapsed if c != 0] == target:
            total += np.prod([probs[k, c] for k, c in enumerate(path)])
    log_probs = minitorch.tensor(np.log(probs)).unsqueeze(1)
    ours = minitorch.nn.functional.ctc_loss(log_probs, minitorch.tensor([target]), [4], [2],
                                            reduction="sum")  # fmt: skip
    np.testing.assert_allclose(ours.item(), -math.log(total), rtol=1e-12)


def test_ctc_unbatched_and_concatenated_targets_agree_with_padded():
    rng = case_rng("ctc forms")
    log_probs = minitorch.tensor(rng.standard_normal((5, 2, 4))).log_softmax(2)
    padded = minitorch.nn.functional.ctc_loss(
        log_probs, minitorch.tensor([[1, 2, 3], [3, 3, 0]]), [5, 4], [3, 2], reduction="none"
    )
    concatenated = minitorch.nn.functional.ctc_loss(
        log_probs, minitorch.tensor([1, 2, 3, 3, 3]), minitorch.tensor([5, 4]),
        minitorch.tensor([3, 2]), reduction="none",
    )  # fmt: skip
    single = minitorch.nn.functional.ctc_loss(
        log_probs[:4, 1], minitorch.tensor([3, 3]), minitorch.tensor(4), minitorch.tensor(2),
        reduction="none",
    )  # fmt: skip
    np.testing.assert_allclose(padded.numpy(), concatenated.numpy(), rtol=1e-12)
    np.testing.assert_allclose(single.item(), padded[1].item(), rtol=1e-12)


def test_kl_div_mean_warns_as_torch():
    x = minitorch.zeros(2, 3)
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both"):
        minitorch.nn.functional.kl_div(x, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minitorch.nn.functional.kl_div(x, x, reduction="batchmean")


def test_warnings_are_torchs(torch):
    for lib in (torch, minitorch):
        with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both"):
            lib.nn.functional.kl_div(lib.zeros(2), lib.zeros(2))
        with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
            lib.nn.functional.hinge_embedding_loss(lib.zeros(2), lib.ones(2), size_average=False)
        with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
            lib.nn.NLLLoss2d()
