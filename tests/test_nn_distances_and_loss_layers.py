"""The distances of minitorch.nn.functional (cosine similarity, pairwise distance, pdist), the
minitorch.* forms of the losses (torch.*'s enumerated reduction) and the layers of the margin,
likelihood and CTC losses and of the distances, against torch: values, dtypes, gradients (also
by central differences), weights kept as buffers, errors, reprs, the legacy reduction arguments.

The values, dtypes and gradients are torch's, recorded in
tests/data/test_nn_distances_and_loss_layers.json (scripts/record_torch_answers.py from
`torch_answers`), and so are the errors' types and texts; the reprs and warnings are also
compared with torch live. The `grad_fn` names are not compared (the losses are composed of
other operations here). The builders of the inputs are tests/loss_cases.py's.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import RecordedValueCases, assert_case_passes_central_differences, case_rng
from loss_cases import (
    DTYPES,
    X,
    cosine_embedding_case,
    float64_cases,
    functional,
    hinge_case,
    kl_case,
    multi_margin_case,
    multilabel_margin_case,
    multilabel_soft_case,
    normal,
    poisson_case,
    ranking_case,
    soft_margin_case,
    t,
    triplet_case,
)

import minitorch

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
    found = dict(distance_case(name, dtype) for name in DISTANCES for dtype in DTYPES)
    found.update(pdist_case(name, dtype) for name in PDISTS for dtype in DTYPES)
    found.update([tiny_cosine_case()])
    found.update(torch_form_case(name) for name in TORCH_FORMS)
    found.update(layer_case(name) for name in LAYERS)
    found.update(weighted_layer_case(name) for name in WEIGHTED_LAYERS)
    found.update(layers_with_extra_inputs())
    return found


CASES = cases()
FLOAT64_CASES = float64_cases(CASES)


# ---------------------------------------------------------------------------
# Errors, with torch's types and texts
# ---------------------------------------------------------------------------

ERRORS = {
    "cosine_similarity of integers": lambda lib: lib.nn.functional.cosine_similarity(
        lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 3, dtype=lib.int64)),
    "pdist 3-D": lambda lib: lib.pdist(t(lib, np.zeros((2, 2, 2)))),
    "pdist negative p": lambda lib: lib.pdist(t(lib, X), p=-1.0),
    "pdist integers": lambda lib: lib.pdist(lib.ones(2, 3, dtype=lib.int64)),
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
