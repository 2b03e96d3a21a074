"""The margin, likelihood and CTC losses and the distances of minitorch.nn against torch:
values, dtypes, gradients of every input torch differentiates (in float32 and float64, every
reduction, weights, empty batches), central differences, errors and warnings.

The values, dtypes and gradients are torch's, recorded in
tests/data/test_nn_losses_distances.json (scripts/record_torch_answers.py from
`torch_answers`), and so are the errors' types and texts; the reprs and warnings are also
compared with torch live. The losses are composed of other operations here, where torch has
nodes of their own for several: the `grad_fn` names are not compared.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import RecordedValueCases, assert_case_passes_central_differences, case_rng

import minitorch

DTYPES = ["float32", "float64"]
REDUCTIONS = ["mean", "sum", "none"]
ENUMS = {"none": 0, "mean": 1, "sum": 2}


def normal(rng, *shape, dtype="float64", scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def signs(rng, *shape, dtype="float64"):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0).astype(dtype)


def functional(name, *args, **settings):
    """`fn(lib, *tensors)`: `nn.functional.<name>(*tensors, *args, **settings)`."""
    return lambda lib, *tensors: getattr(lib.nn.functional, name)(*tensors, *args, **settings)


# Each builder: (rng, batch, dtype, reduction) -> (fn, arrays, which arrays require grad).


def ranking_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, dtype=dtype), normal(rng, n, dtype=dtype), signs(rng, n, dtype=dtype)]
    return functional("margin_ranking_loss", margin=0.3, reduction=reduction), arrays, [1, 1, 1]


def hinge_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 3, dtype=dtype), signs(rng, n, 3, dtype=dtype)]
    return functional("hinge_embedding_loss", margin=0.7, reduction=reduction), arrays, [1, 1]


def soft_margin_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 3, dtype=dtype, scale=2.0), signs(rng, n, 3, dtype=dtype)]
    return functional("soft_margin_loss", reduction=reduction), arrays, [1, 0]


def multilabel_soft_case(rng, n, dtype, reduction):
    x, y = normal(rng, n, 4, dtype=dtype), (rng.random((n, 4)) < 0.5).astype(dtype)
    weight = (rng.random(4) + 0.5).astype(dtype)
    fn = functional("multilabel_soft_margin_loss", reduction=reduction)
    return fn, [x, y, weight], [1, 1, 1]


def multi_margin_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 4, dtype=dtype), rng.integers(0, 4, n), rng.random(4).astype(dtype)]

    def fn(lib, x, t, w):
        return lib.nn.functional.multi_margin_loss(x, t, 2, 0.8, w, reduction=reduction)

    return fn, arrays, [1, 0, 0]


def multi_margin_plain_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 4, dtype=dtype), rng.integers(0, 4, n)]
    return functional("multi_margin_loss", reduction=reduction), arrays, [1, 0]


def multilabel_margin_case(rng, n, dtype, reduction):
    target = rng.integers(-1, 5, (n, 5))  # the classes before each row's first -1 count
    arrays = [normal(rng, n, 5, dtype=dtype), target]
    return functional("multilabel_margin_loss", reduction=reduction), arrays, [1, 0]


def cosine_embedding_case(rng, n, dtype, reduction):
    arrays = [normal(rng, n, 4, dtype=dtype), normal(rng, n, 4, dtype=dtype)]
    arrays.append(signs(rng, n, dtype=dtype))
    return functional("cosine_embedding_loss", margin=0.2, reduction=reduction), arrays, [1, 1, 0]


def triplet_case(rng, n, dtype, reduction, **settings):
    arrays = [normal(rng, n, 4, dtype=dtype) for _ in range(3)]
    fn = functional("triplet_margin_loss", reduction=reduction, **settings)
    return fn, arrays, [1, 1, 1]


def triplet_distance_case(rng, n, dtype, reduction):
    def fn(lib, a, p, q):
        def distance(u, v):
            return 1 - lib.nn.functional.cosine_similarity(u, v)

        return lib.nn.functional.triplet_margin_with_distance_loss(
            a, p, q, distance_function=distance, margin=0.5, swap=True, reduction=reduction
        )

    return fn, [normal(rng, n, 4, dtype=dtype) for _ in range(3)], [1, 1, 1]


def kl_case(rng, n, dtype, reduction, log_target=False, zero=False):
    x = np.log(rng.dirichlet(np.ones(4), n)).astype(dtype)
    y = rng.dirichlet(np.ones(4), n).astype(dtype)
    if log_target:
        y = np.log(y).astype(dtype)
    if zero and n:
        y[0, 0] = 0.0  # 0 ln 0 counts as 0 (no derivative in y there: y is not differentiated)
    fn = functional("kl_div", reduction=reduction, log_target=log_target)
    return fn, [x, y], [1, 0 if zero else 1]


def poisson_case(rng, n, dtype, reduction, **settings):
    log_input = settings.get("log_input", True)
    x = normal(rng, n, 3, dtype=dtype) if log_input else (rng.random((n, 3)) + 0.1).astype(dtype)
    y = (rng.poisson(2.0, (n, 3)) + rng.random((n, 3))).astype(dtype)
    return functional("poisson_nll_loss", reduction=reduction, **settings), [x, y], [1, 1]


def gaussian_case(rng, n, dtype, reduction, var_shape=(None, 3), tiny=False, **settings):
    shape = tuple(n if s is None else s for s in var_shape)
    var = (rng.random(shape) + 0.05).astype(dtype)
    if tiny:
        var[:, :2] = 1e-8  # below eps: clamped, the gradient passing through
    arrays = [normal(rng, n, 3, dtype=dtype), normal(rng, n, 3, dtype=dtype), var]
    return functional("gaussian_nll_loss", reduction=reduction, **settings), arrays, [1, 1, 1]


def ctc_case(rng, n, dtype, reduction, lengths=(6, 5, 4, 6), **settings):
    """Logits of 6 steps over 5 classes through log_softmax (torch's gradient of log_probs
    themselves differs, see test_ctc_gradient_of_log_probs), padded targets."""
    lengths = list(lengths)[:n]
    target_lengths = [3, 1, 2, 0][:n]
    targets = rng.integers(1, 5, (n, 3))

    def fn(lib, x, t):
        return lib.nn.functional.ctc_loss(
            x.log_softmax(2), t, lengths, target_lengths, reduction=reduction, **settings
        )

    return fn, [normal(rng, 6, n, 5, dtype=dtype), targets], [1, 0]


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


# ---------------------------------------------------------------------------
# Distances
# ---------------------------------------------------------------------------

DISTANCES = {
    "cosine_similarity": ((4, 5), (4, 5), {}),
    "cosine_similarity(dim=0, broadcast)": ((4, 5), (1, 5), {"dim": 0}),
    "cosine_similarity(eps=1.0)": ((3, 2), (3, 2), {"eps": 1.0, "dim": -1}),
    "cosine_similarity(1-D)": ((5,), (5,), {"dim": 0}),
    "pairwise_distance": ((4, 5), (4, 5), {}),
    "pairwise_distance(p=1, keepdim)": ((4, 5), (4, 5), {"p": 1.0, "keepdim": True}),
    "pairwise_distance(p=3, broadcast)": ((4, 5), (5,), {"p": 3.0, "eps": 0.0}),
    "pairwise_distance(p=inf)": ((3, 4), (3, 4), {"p": math.inf}),
    "pairwise_distance(1-D)": ((5,), (5,), {}),
}
PDISTS = {"pdist": ((5, 3), {}), "pdist(p=1)": ((4, 3), {"p": 1.0}),
          "pdist(p=3.5)": ((4, 2), {"p": 3.5}), "pdist(one row)": ((1, 3), {}),
          "pdist(p=inf)": ((4, 3), {"p": math.inf})}  # fmt: skip


def distance_case(name, dtype):
    key = repr(("distance", name, dtype))
    rng = case_rng(key)
    first, second, settings = DISTANCES[name]
    fn = functional(name.split("(")[0], **settings)
    return key, (fn, [normal(rng, *first, dtype=dtype), normal(rng, *second, dtype=dtype)],
                 {"differentiable": [1, 1]})  # fmt: skip


def pdist_case(name, dtype):
    key = repr(("pdist", name, dtype))
    shape, settings = PDISTS[name]
    fn = functional("pdist", **settings)
    return key, (fn, [normal(case_rng(key), *shape, dtype=dtype)], {"differentiable": [1]})


def tiny_cosine_case():
    """Norms below eps: the value is clamped, the gradient still the norm's (as torch)."""
    x = np.array([[1e-9, 2e-9, 0.0], [1.0, -2.0, 0.5]])
    y = np.array([[3.0, 1.0, -1.0], [2e-10, 0.0, 1e-10]])
    fn = functional("cosine_similarity", dim=1, eps=1e-8)
    return "cosine_similarity of tiny vectors", (fn, [x, y], {"differentiable": [1, 1]})


# ---------------------------------------------------------------------------
# The minitorch.* forms (torch.*'s enumerated reduction) and the layers
# ---------------------------------------------------------------------------

TORCH_FORMS = {
    "kl_div": lambda lib, x, y: lib.kl_div(x, y, 2, log_target=True),
    "cosine_embedding_loss": lambda lib, a, b, t: lib.cosine_embedding_loss(a, b, t.sign(), 0.1, 0),
    "hinge_embedding_loss": lambda lib, x, t: lib.hinge_embedding_loss(x, t.sign(), 0.5, 1),
    "margin_ranking_loss": lambda lib, a, b, t: lib.margin_ranking_loss(a, b, t.sign(), 0.2, 2),
    "poisson_nll_loss": lambda lib, x, y: lib.poisson_nll_loss(x, y.abs(), True, True, 1e-8, 1),
    "triplet_margin_loss": lambda lib, a, p, n: lib.triplet_margin_loss(a, p, n, 1.5, 1.0, 1e-6,
                                                                        True, 0),
    "binary_cross_entropy_with_logits": lambda lib, x, y: lib.binary_cross_entropy_with_logits(
        x, y.sigmoid(), None, None, 2),
    "cosine_similarity": lambda lib, a, b: lib.cosine_similarity(a, b, 1, 1e-8),
    "pairwise_distance": lambda lib, a, b: lib.pairwise_distance(a, b, 2.0, 1e-6, True),
    "pdist": lambda lib, a: lib.pdist(a, 2.0),
    "ctc_loss": lambda lib, x: lib.ctc_loss(x.log_softmax(2), lib.tensor([1, 2, 3]),
                                            lib.tensor([4, 3]), lib.tensor([2, 1]), 0, 2),
}  # fmt: skip
SHAPES = {"cosine_embedding_loss": [(3, 4), (3, 4), (3,)], "margin_ranking_loss": [(5,)] * 3,
          "triplet_margin_loss": [(3, 4)] * 3, "pdist": [(3, 4)],
          "ctc_loss": [(4, 2, 5)]}  # fmt: skip


def torch_form_case(name):
    key = repr(("torch form", name))
    rng = case_rng(key)
    arrays = [normal(rng, *shape) for shape in SHAPES.get(name, [(3, 4)] * 2)]
    return key, (TORCH_FORMS[name], arrays, {"differentiable": [1] * len(arrays)})


LAYERS = {
    "MarginRankingLoss": ({"margin": 0.5, "reduction": "sum"}, ranking_case),
    "HingeEmbeddingLoss": ({"margin": 2.0}, hinge_case),
    "SoftMarginLoss": ({"reduction": "none"}, soft_margin_case),
    "MultiLabelMarginLoss": ({}, multilabel_margin_case),
    "CosineEmbeddingLoss": ({"margin": -0.5}, cosine_embedding_case),
    "TripletMarginLoss": ({"margin": 2.0, "p": 1.0, "swap": True}, triplet_case),
    "KLDivLoss": ({"reduction": "batchmean", "log_target": False}, kl_case),
    "PoissonNLLLoss": ({"log_input": False, "full": True, "eps": 0.1}, poisson_case),
    "NLLLoss2d": ({"ignore_index": 1}, None),
}


def layer_case(name):
    key = repr(("layer", name))
    rng = case_rng(key)
    settings, builder = LAYERS[name]
    if builder is None:  # NLLLoss2d: (N, C, H, W) log-probabilities
        arrays, grads = [normal(rng, 2, 3, 2, 2), rng.integers(0, 3, (2, 2, 2))], [1, 0]
    else:
        _, arrays, grads = builder(rng, 3, "float64", "mean")
        if name == "PoissonNLLLoss":
            arrays[0] = np.abs(arrays[0]) + 0.1

    def fn(lib, *tensors):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NLLLoss2d's deprecation, tested below
            layer = getattr(lib.nn, name)(**settings)
        return layer(*tensors)

    return key, (fn, arrays, {"differentiable": grads})


WEIGHTED_LAYERS = {
    "MultiLabelSoftMarginLoss": ({}, multilabel_soft_case),
    "MultiMarginLoss": ({"p": 2, "margin": 0.5}, multi_margin_case),
}


def weighted_layer_case(name):
    key = repr(("weighted layer", name))
    settings, builder = WEIGHTED_LAYERS[name]
    _, arrays, _ = builder(case_rng(key), 3, "float64", "mean")
    x, t, w = arrays
    fn = lambda lib, x, t, w: getattr(lib.nn, name)(weight=w, **settings)(x, t)  # noqa: E731
    return key, (fn, [x, t, w], {"differentiable": [1, 0, 0]})


def layers_with_extra_inputs():
    """GaussianNLLLoss (a variance), CTCLoss (lengths), TripletMarginWithDistanceLoss, the
    distance layers."""
    found = {}
    rng = case_rng("layers with extra inputs")
    x, y, var = (normal(rng, 3, 2) for _ in range(3))
    found["layer GaussianNLLLoss"] = (
        lambda lib, x, y, v: lib.nn.GaussianNLLLoss(full=True, eps=0.01)(x, y, v.abs() + 0.1),
        [x, y, var], {"differentiable": [1, 1, 1]})  # fmt: skip
    found["layer CTCLoss"] = (
        lambda lib, x: lib.nn.CTCLoss(blank=2, reduction="sum")(
            x.log_softmax(2), lib.tensor([[0, 1], [1, 1]]), [4, 4], [2, 2]),
        [normal(rng, 4, 2, 3)], {"differentiable": [1]})  # fmt: skip
    found["layer TripletMarginWithDistanceLoss"] = (
        lambda lib, a, p, n: lib.nn.TripletMarginWithDistanceLoss(margin=3.0)(a, p, n),
        [normal(rng, 3, 2) for _ in range(3)], {"differentiable": [1, 1, 1]})  # fmt: skip
    found["layer CosineSimilarity"] = (
        lambda lib, a, b: lib.nn.CosineSimilarity(dim=0, eps=1e-6)(a, b),
        [normal(rng, 3, 2), normal(rng, 3, 2)], {"differentiable": [1, 1]})  # fmt: skip
    found["layer PairwiseDistance"] = (
        lambda lib, a, b: lib.nn.PairwiseDistance(p=1.5, keepdim=True)(a, b),
        [normal(rng, 3, 2), normal(rng, 3, 2)], {"differentiable": [1, 1]})  # fmt: skip
    return found


def cases() -> dict[str, tuple]:
    found = dict(
        loss_case(name, dtype, reduction)
        for name in LOSSES
        for dtype in DTYPES
        for reduction in REDUCTIONS
    )
    found.update(loss_case(name, "float64", reduction, batch=0) for name, reduction in EMPTY)
    found.update(kl_batchmean_case(dtype) for dtype in DTYPES)
    found.update(distance_case(name, dtype) for name in DISTANCES for dtype in DTYPES)
    found.update(pdist_case(name, dtype) for name in PDISTS for dtype in DTYPES)
    found.update([tiny_cosine_case()])
    found.update(torch_form_case(name) for name in TORCH_FORMS)
    found.update(layer_case(name) for name in LAYERS)
    found.update(weighted_layer_case(name) for name in WEIGHTED_LAYERS)
    found.update(layers_with_extra_inputs())
    return found


CASES = cases()
# Where a clamp holds, the gradient is not the derivative of the value (the clamp is outside
# autograd in torch too): those cases are checked against torch's gradients only.
CLAMPED = ("var below eps", "tiny vectors", "eps=1.0")
# The empty batches are checked against torch's (empty) gradients only.
FLOAT64_CASES = sorted(
    key
    for key in CASES
    if "float32" not in key and not any(c in key for c in CLAMPED) and not key.endswith(", 0)")
)


# ---------------------------------------------------------------------------
# Errors, with torch's types and texts
# ---------------------------------------------------------------------------


def t(lib, values, dtype="float64"):
    return lib.tensor(np.asarray(values), dtype=getattr(lib, dtype))


X = np.arange(12.0).reshape(3, 4) / 10


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
    "cosine_similarity of integers": lambda lib: lib.nn.functional.cosine_similarity(
        lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 3, dtype=lib.int64)),
    "pdist 3-D": lambda lib: lib.pdist(t(lib, np.zeros((2, 2, 2)))),
    "pdist negative p": lambda lib: lib.pdist(t(lib, X), p=-1.0),
    "pdist integers": lambda lib: lib.pdist(lib.ones(2, 3, dtype=lib.int64)),
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
    "MultiMarginLoss p": lambda lib: lib.nn.MultiMarginLoss(p=3),
    "MultiMarginLoss weight": lambda lib: lib.nn.MultiMarginLoss(weight=t(lib, X)),
    "TripletMarginLoss margin": lambda lib: lib.nn.TripletMarginLoss(margin=-1.0),
    "TripletMarginWithDistanceLoss margin": (
        lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=0)),
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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(DISTANCES))
def test_distances_match_torch(name, dtype):
    check(repr(("distance", name, dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(PDISTS))
def test_pdist_matches_torch(name, dtype):
    check(repr(("pdist", name, dtype)))


def test_cosine_similarity_clamps_small_norms_as_torch():
    check("cosine_similarity of tiny vectors")


def test_pdist_is_the_upper_triangle_of_the_distance_matrix():
    x = case_rng("pdist triangle").standard_normal((5, 3))
    ours = minitorch.pdist(minitorch.tensor(x), 1.5).numpy()
    table = (np.abs(x[:, None] - x[None]) ** 1.5).sum(-1) ** (1 / 1.5)
    np.testing.assert_allclose(ours, table[np.triu_indices(5, 1)], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(TORCH_FORMS))
def test_torch_forms_match_torch(name):
    check(repr(("torch form", name)))


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layers_match_torch(name):
    check(repr(("layer", name)))


@pytest.mark.parametrize("name", sorted(WEIGHTED_LAYERS))
def test_weighted_layers_keep_their_weight_as_a_buffer(name):
    check(repr(("weighted layer", name)))
    layer = getattr(minitorch.nn, name)(weight=minitorch.ones(4))
    assert [n for n, _ in layer.named_buffers()] == ["weight"]


@pytest.mark.parametrize("key", sorted(layers_with_extra_inputs()))
def test_layers_with_extra_inputs_match_torch(key):
    check(key)


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


@pytest.mark.parametrize(
    ("size_average", "reduce", "reduction"),
    [(False, None, "sum"), (None, False, "none"), (True, True, "mean")],
)
def test_legacy_reduction_arguments(size_average, reduce, reduction):
    x, y = minitorch.tensor(X), minitorch.tensor(np.sign(X - 0.5))
    with pytest.warns(UserWarning, match=f"please use reduction='{reduction}' instead"):
        legacy = minitorch.nn.functional.soft_margin_loss(x, y, size_average, reduce)
    assert np.allclose(
        legacy.numpy(), minitorch.nn.functional.soft_margin_loss(x, y, reduction=reduction).numpy()
    )
    with pytest.warns(UserWarning, match=f"please use reduction='{reduction}' instead"):
        layer = minitorch.nn.MarginRankingLoss(size_average=size_average, reduce=reduce)
    assert layer.reduction == reduction


def test_nll_loss_2d_is_deprecated_nll_loss():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        layer = minitorch.nn.NLLLoss2d()
    assert isinstance(layer, minitorch.nn.NLLLoss)


LAYER_NAMES = [*LAYERS, *WEIGHTED_LAYERS, "GaussianNLLLoss", "CTCLoss",
               "TripletMarginWithDistanceLoss", "CosineSimilarity", "PairwiseDistance"]  # fmt: skip


@pytest.mark.parametrize("name", sorted(LAYER_NAMES))
def test_layers_print_as_torchs(torch, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(getattr(minitorch.nn, name)()) == repr(getattr(torch.nn, name)())


def test_warnings_are_torchs(torch):
    for lib in (torch, minitorch):
        with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both"):
            lib.nn.functional.kl_div(lib.zeros(2), lib.zeros(2))
        with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
            lib.nn.functional.hinge_embedding_loss(lib.zeros(2), lib.ones(2), size_average=False)
        with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
            lib.nn.NLLLoss2d()
