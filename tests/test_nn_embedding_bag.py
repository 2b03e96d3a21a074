"""`nn.EmbeddingBag`, `F.embedding_bag` and `minitorch.embedding` against torch: values and
gradients of the table and the per-sample weights in every mode, float32 and float64, bags
from offsets or rows, padding, empty bags; central differences; errors.

torch's answers are recorded in tests/data/test_nn_embedding_bag.json
(scripts/record_torch_answers.py from `torch_answers`); the reprs are compared live.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import RecordedValueCases, assert_case_passes_central_differences, case_rng

import minitorch

DTYPES = ["float32", "float64"]
MODES = ["sum", "mean", "max"]
INDICES = [1, 2, 4, 5, 4, 3, 2, 0, 4, 4]
# name -> (indices, offsets or None, settings); an offset repeated is an empty bag
BAGS = {
    "offsets": (INDICES, [0, 2, 2, 5], {}),
    "rows": (np.reshape(INDICES, (2, 5)), None, {}),
    "include_last_offset": (INDICES, [0, 3, 3, 10], {"include_last_offset": True}),
    "padding_idx": (INDICES, [0, 2, 2, 8], {"padding_idx": 4}),
    "negative padding_idx": (np.reshape(INDICES, (5, 2)), None, {"padding_idx": -2}),
    "no indices": ([], [0, 0], {}),
    "int32 indices": (INDICES, [0, 4], {"int32": True}),
}


def bag_case(name, mode, dtype, weighted=False):
    key = repr(("embedding_bag", name, mode, dtype, weighted))
    rng = case_rng(key)
    indices, offsets, settings = BAGS[name]
    settings = dict(settings)
    kind = "int32" if settings.pop("int32", False) else "int64"
    arrays = [np.asarray(indices, dtype=kind), rng.standard_normal((6, 3)).astype(dtype)]
    if weighted:
        arrays.append(rng.random(np.shape(indices)).astype(dtype))

    def fn(lib, x, w, *sample_weights):
        bounds = None if offsets is None else lib.tensor(offsets)
        return lib.nn.functional.embedding_bag(
            x, w, bounds, mode=mode, per_sample_weights=sample_weights[0] if weighted else None,
            **settings,
        )  # fmt: skip

    return key, (fn, arrays, {"differentiable": [0, 1, 1][: len(arrays)]})


def embedding_case(padding_idx, dtype):
    key = repr(("embedding", padding_idx, dtype))
    rng = case_rng(key)
    arrays = [rng.standard_normal((5, 2)).astype(dtype), np.array([[0, 3, 3], [1, 4, 0]])]

    def fn(lib, w, x):
        return lib.embedding(w, x) if padding_idx is None else lib.embedding(w, x, padding_idx)

    return key, (fn, arrays, {"differentiable": [1, 0]})


def layer_case(settings):
    key = repr(("EmbeddingBag", settings))
    rng = case_rng(key)
    table = rng.standard_normal((7, 4))

    def fn(lib, w, x, offsets):
        return lib.nn.EmbeddingBag(7, 4, _weight=w, **settings)(x, offsets)

    return key, (fn, [table, np.array([0, 6, 5, 5, 1, 2]), np.array([0, 1, 4])],
                 {"differentiable": [1, 0, 0]})  # fmt: skip


LAYER_SETTINGS = [{}, {"mode": "max"}, {"mode": "sum", "padding_idx": 5}]


def cases() -> dict[str, tuple]:
    found = dict(bag_case(name, mode, dtype) for name in BAGS for mode in MODES for dtype in DTYPES)
    found.update(
        bag_case(name, "sum", dtype, weighted=True)
        for name in ("offsets", "rows", "padding_idx")
        for dtype in DTYPES
    )
    found.update(embedding_case(p, dtype) for p in (None, 3, -1) for dtype in DTYPES)
    found.update(layer_case(settings) for settings in LAYER_SETTINGS)
    return found


CASES = cases()
W = np.arange(18.0).reshape(6, 3)


def bag(lib, indices=(1, 2, 3), offsets=(0, 1), **settings):
    bounds = None if offsets is None else lib.tensor(list(offsets))
    return lib.nn.functional.embedding_bag(lib.tensor(list(indices)), lib.tensor(W), bounds,
                                           **settings)  # fmt: skip


ERRORS = {
    "offsets[-1]": lambda lib: bag(lib, offsets=(0, 4)),
    "float indices": lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([1.0, 2.0]), lib.tensor(W), lib.tensor([0])),
    "padding_idx range": lambda lib: bag(lib, padding_idx=6),
    "mode": lambda lib: bag(lib, mode="min"),
    "per_sample_weights mode": lambda lib: bag(lib, per_sample_weights=lib.ones(3)),
    "per_sample_weights shape": lambda lib: bag(lib, mode="sum", per_sample_weights=lib.ones(2)),
    "2-D input with offsets": lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([[1, 2]]), lib.tensor(W), lib.tensor([0])),
    "1-D input without offsets": lambda lib: bag(lib, offsets=None),
    "2-D offsets": lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([1, 2]), lib.tensor(W), lib.tensor([[0]])),
    "3-D input": lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([[[1]]]), lib.tensor(W)),
    "1-D weight": lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([1]), lib.tensor([1.0, 2.0]), lib.tensor([0])),
    "layer padding_idx": lambda lib: lib.nn.EmbeddingBag(4, 2, padding_idx=4),
    "layer weight shape": lambda lib: lib.nn.EmbeddingBag(4, 2, _weight=lib.zeros(2, 4)),
    "embedding index range": lambda lib: lib.embedding(lib.tensor(W), lib.tensor([6])),
}  # fmt: skip


RECORDED = RecordedValueCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers
check, check_error = RECORDED.check, RECORDED.check_error


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(BAGS))
def test_embedding_bag_matches_torch(name, mode, dtype):
    """Composed here, recorded as one node in torch: the `grad_fn` names are not compared."""
    check(repr(("embedding_bag", name, mode, dtype, False)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["offsets", "rows", "padding_idx"])
def test_per_sample_weights_match_torch(name, dtype):
    check(repr(("embedding_bag", name, "sum", dtype, True)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding_idx", [None, 3, -1])
def test_embedding_matches_torch(padding_idx, dtype):
    """`torch.embedding`'s padding_idx -1 is no padding; the padding row gets no gradient."""
    check(repr(("embedding", padding_idx, dtype)))


@pytest.mark.parametrize("settings", LAYER_SETTINGS, ids=repr)
def test_layer_matches_torch(settings):
    check(repr(("EmbeddingBag", settings)))


# Not the padding row of `embedding`, which gets no gradient though the value is its row, nor
# the layers, whose gradient is their parameter's.
CENTRAL = sorted(
    k
    for k in CASES
    if "float32" not in k and "EmbeddingBag" not in k and k != repr(("embedding", 3, "float64"))
)


@pytest.mark.parametrize("key", CENTRAL)
def test_gradients_against_central_differences(key):
    assert_case_passes_central_differences(CASES, key)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    check_error(case)


def test_offsets_must_start_at_zero():
    """torch's text, without the empty tensor torch 2.13 prints after it."""
    with pytest.raises(RuntimeError) as raised:
        bag(minitorch, offsets=(1, 2))
    assert str(raised.value) == (
        "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
        "position 0. However, got 1"
    )


@pytest.mark.parametrize("value", [9, -1])
def test_indices_outside_the_table(value):
    """A RuntimeError naming the index, as one of torch's kernels words it (torch's others
    word it differently: the wording is not compared)."""
    with pytest.raises(RuntimeError) as raised:
        bag(minitorch, indices=(1, value, 2))
    expected = f"Index 1 of input takes value {value} which is not in the valid range [0, 6)"
    assert str(raised.value) == expected


def test_indices_outside_the_table_are_errors_in_torch(torch):
    with pytest.raises(RuntimeError):
        bag(torch, indices=(1, 9, 2))


def test_embedding_bag_matches_a_loop_over_bags():
    rng = case_rng("embedding_bag loop")
    table = rng.standard_normal((8, 4))
    indices, offsets = rng.integers(0, 8, 12), [0, 3, 3, 7]
    ends = [*offsets[1:], 12]
    for mode, combine in (("sum", np.sum), ("mean", np.mean), ("max", np.max)):
        ours = minitorch.nn.functional.embedding_bag(
            minitorch.tensor(indices), minitorch.tensor(table), minitorch.tensor(offsets),
            mode=mode,
        ).numpy()  # fmt: skip
        for b, (start, end) in enumerate(zip(offsets, ends, strict=True)):
            rows = table[indices[start:end]]
            expected = combine(rows, axis=0) if len(rows) else np.zeros(4)
            np.testing.assert_allclose(ours[b], expected, rtol=1e-12)


def test_include_last_offset_with_one_offset_is_no_bags():
    """One offset that is also the end: no bags at all (torch 2.13 crashes on float64 here)."""
    weight = minitorch.ones(6, 3, dtype=minitorch.float64, requires_grad=True)
    out = minitorch.nn.functional.embedding_bag(
        minitorch.tensor([1, 2]), weight, minitorch.tensor([0]), include_last_offset=True
    )
    assert out.shape == (0, 3)


def test_layer_starts_normal_with_a_zero_padding_row():
    minitorch.manual_seed(0)
    layer = minitorch.nn.EmbeddingBag(400, 5, padding_idx=-1)
    assert layer.padding_idx == 399
    weight = layer.weight.detach().numpy()
    assert (weight[399] == 0).all()
    assert abs(weight[:399].mean()) < 0.05 and abs(weight[:399].std() - 1) < 0.05
    frozen = minitorch.nn.EmbeddingBag.from_pretrained(minitorch.eye(3), mode="sum")
    assert not frozen.weight.requires_grad
    out = frozen(minitorch.tensor([[0, 2], [1, 1]]))
    np.testing.assert_array_equal(out.numpy(), [[1.0, 0.0, 1.0], [0.0, 2.0, 0.0]])


@pytest.mark.parametrize(
    "settings", [{}, {"mode": "max", "padding_idx": -1}, {"norm_type": 1.0, "max_norm": 2.0}],
    ids=repr,
)  # fmt: skip
def test_layer_prints_as_torchs(torch, settings):
    assert repr(minitorch.nn.EmbeddingBag(5, 3, **settings)) == repr(
        torch.nn.EmbeddingBag(5, 3, **settings)
    )
