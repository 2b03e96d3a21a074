"""`F.scaled_dot_product_attention` (tasks 5.2 and 5.3) and the causal masks (task 5.3)
against torch: values and gradients of the inputs (also by central differences), masks,
dropout, error texts.

torch's answers are recorded in tests/data/test_nn_scaled_dot_product_attention.json
(scripts/record_torch_answers.py from `torch_answers`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import (
    assert_as_recorded,
    assert_outcome_as_recorded,
    case_rng,
    outcome_answers,
    recorded_answers,
    run_case,
)

import minitorch
import minitorch.nn.functional as F
from minitorch.nn.functional_attention import causal_mask, square_subsequent_mask

DTYPES = ["float32", "float64"]
TOLERANCE = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def without_names(record: dict) -> dict:
    """A `run_case` record without `grad_fn` names: torch's fused attention kernels name
    their nodes after themselves (`ScaledDotProductFlashAttentionForCpuBackward0`, ...)."""
    return {name: value for name, value in record.items() if not name.endswith("grad_fn")}


# ---------------------------------------------------------------------------
# Scaled dot-product attention: (fn, arrays, run_case's options) by key
# ---------------------------------------------------------------------------

# (query, key, value) shapes: batch and heads, broadcast batches, unbatched, one query
SHAPES = [
    ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)),
    ((4, 3), (5, 3), (5, 2)),
    ((1, 2, 3, 4), (3, 1, 5, 4), (3, 1, 5, 4)),
    ((2, 1, 4), (2, 3, 4), (2, 3, 3)),
]


def attention_fn(mask=None, **settings):
    """`fn(lib, q, k, v[, mask])`: F.scaled_dot_product_attention with `settings`."""

    def fn(lib, q, k, v, *rest):
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, *rest, **settings)

    return fn


def attention_case(dtype, shapes, mask_kind=None, mask_shape=None, transposed=False, **settings):
    """Random q, k, v of `shapes`; `mask_kind` "bool" (with a query that may look at no key
    when the mask has room for one) or "float" of `mask_shape`; `transposed`: the query is a
    strided view (its last two dims stored swapped)."""
    key = repr(("attention", dtype, shapes, mask_kind, mask_shape, settings))
    if transposed:
        key = repr(("attention of a strided query", dtype, shapes, mask_kind, mask_shape, settings))
    rng = case_rng(key)
    arrays = [rng.standard_normal(shape).astype(dtype) for shape in shapes]
    differentiable = [True, True, True]
    if mask_kind == "bool":
        mask = rng.random(mask_shape) > 0.4
        mask[..., 0] = True
        if mask_shape[-2] > 1:
            mask[..., -1, :] = False  # a fully masked row: zero weights, zero output
        arrays.append(mask)
        differentiable.append(False)
    elif mask_kind == "float":
        arrays.append(rng.standard_normal(mask_shape).astype(dtype))
        differentiable.append(False)
    options = {"differentiable": differentiable, "transposed": transposed}
    return key, (attention_fn(**settings), arrays, options)


PLAIN_CASES = [
    *[(shapes, None, None, {}) for shapes in SHAPES],
    (SHAPES[0], None, None, {"scale": 0.3}),
    (SHAPES[0], "bool", (3, 5), {}),
    (SHAPES[0], "bool", (2, 1, 3, 5), {}),
    (SHAPES[0], "float", (2, 1, 5), {}),
    (SHAPES[1], "float", (4, 5), {"scale": 2.0}),
    (SHAPES[1], "bool", (4, 5), {}),
    (((2, 4, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)), None, None, {"enable_gqa": True}),
    (((2, 4, 3, 4), (2, 1, 5, 4), (2, 1, 5, 3)), "bool", (3, 5), {"enable_gqa": True}),
]
CAUSAL_CASES = [
    (SHAPES[0], None, None, {"is_causal": True}),
    (SHAPES[1], None, None, {"is_causal": True, "scale": 0.5}),
    (((2, 6, 3), (2, 4, 3), (2, 4, 2)), None, None, {"is_causal": True}),
]


def case_key(case):
    shapes, kind, mask_shape, settings = case
    return repr((shapes, kind, mask_shape, settings))


MARKED_CASES = [pytest.param(case, marks=pytest.mark.task5_2) for case in PLAIN_CASES] + [
    pytest.param(case, marks=pytest.mark.task5_3) for case in CAUSAL_CASES
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", MARKED_CASES, ids=case_key)
def test_attention_matches_torch(dtype, case):
    """Task 5.2's cases, and task 5.3's with `is_causal`."""
    shapes, kind, mask_shape, settings = case
    check_recorded(*attention_case(dtype, shapes, kind, mask_shape, **settings), dtype)


@pytest.mark.task5_2
@pytest.mark.parametrize("dtype", DTYPES)
def test_attention_of_a_strided_query(dtype):
    check_recorded(*attention_case(dtype, SHAPES[0], "bool", (3, 5), transposed=True), dtype)


def check_recorded(key, case, dtype):
    fn, arrays, options = case
    ours = without_names(run_case(minitorch, fn, arrays, **options))
    assert_as_recorded(ours, ANSWERS[key], key, **TOLERANCE[dtype])


@pytest.mark.task5_2
@pytest.mark.parametrize("case", [*PLAIN_CASES[:6], PLAIN_CASES[8], PLAIN_CASES[-1]], ids=case_key)
def test_attention_grad_check(case):
    shapes, kind, mask_shape, settings = case
    _, (fn, arrays, options) = attention_case("float64", shapes, kind, mask_shape, **settings)
    tensors = [minitorch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays[:3]]
    masks = [minitorch.tensor(a) for a in arrays[3:]]
    assert minitorch.grad_check(lambda q, k, v: fn(minitorch, q, k, v, *masks), *tensors)


@pytest.mark.task5_3
def test_causal_attention_grad_check():
    rng = np.random.default_rng(3)
    tensors = [minitorch.tensor(rng.standard_normal((2, 4, 3)), requires_grad=True) for _ in "qkv"]
    attention = F.scaled_dot_product_attention
    assert minitorch.grad_check(lambda q, k, v: attention(q, k, v, is_causal=True), *tensors)


@pytest.mark.task5_2
def test_fully_masked_query_gets_zero_output_and_gradient():
    """A query that may look at no key attends to nothing (torch's zeros, not NaN)."""
    q, k, v = (minitorch.randn(3, 2, dtype=minitorch.float64, requires_grad=True) for _ in "qkv")
    mask = minitorch.tensor([[True, False, True], [False, False, False], [True, True, True]])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    out.sum().backward()
    assert out[1].tolist() == [0.0, 0.0]
    assert q.grad[1].tolist() == [0.0, 0.0]
    assert np.isfinite(k.grad.numpy()).all()


@pytest.mark.task5_2
def test_attention_dropout():
    """dropout_p = 1 drops every weight; dropout_p = 0.5 keeps the expected output."""
    # 500 keys: the mean of 50 queries' outputs is within 0.05 of 1 by eight standard
    # deviations, and 500 x 500 weights run on the serial kernels (no parallel compiles)
    q = k = minitorch.zeros(1, 500, 1)
    v = minitorch.ones(1, 500, 1)
    assert F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).abs().max().item() == 0
    minitorch.manual_seed(0)
    out = F.scaled_dot_product_attention(q[:, :50], k, v, dropout_p=0.5)
    assert abs(out.mean().item() - 1.0) < 0.05
    assert out.std().item() > 0.005  # each query keeps its own random half of the keys


# ---------------------------------------------------------------------------
# Task 5.3: the causal masks
# ---------------------------------------------------------------------------

MASK_SIZES = [1, 2, 5]


@pytest.mark.task5_3
@pytest.mark.parametrize("size", MASK_SIZES)
def test_square_subsequent_mask_matches_torch(size):
    mask = minitorch.nn.Transformer.generate_square_subsequent_mask(size)
    expected = ANSWERS[repr(("square subsequent mask", size))]["output"]
    assert mask.dtype is minitorch.float32
    np.testing.assert_array_equal(mask.numpy(), expected)


@pytest.mark.task5_3
@pytest.mark.parametrize(("target", "source"), [(1, 1), (3, 5), (5, 3)])
def test_causal_mask_is_the_lower_triangle(target, source):
    expected = np.array([[j <= i for j in range(source)] for i in range(target)])
    mask = causal_mask(target, source)
    assert mask.dtype is minitorch.bool
    np.testing.assert_array_equal(mask.numpy(), expected)


@pytest.mark.task5_3
def test_square_subsequent_mask_in_a_dtype():
    mask = square_subsequent_mask(3, dtype=minitorch.float64)
    assert mask.dtype is minitorch.float64
    assert mask.tolist() == [[0.0, -math.inf, -math.inf], [0.0, 0.0, -math.inf], [0.0] * 3]


# ---------------------------------------------------------------------------
# Errors (torch's type and text)
# ---------------------------------------------------------------------------


def qkv(lib, q=(2, 3, 4, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 7), dtype="float64"):
    return [lib.zeros(*shape, dtype=getattr(lib, dtype)) for shape in (q, k, v)]


def sdpa(lib, *tensors, **settings):
    return lib.nn.functional.scaled_dot_product_attention(*tensors, **settings)


ERRORS = {
    "causal with a mask": lambda lib: sdpa(
        lib, *qkv(lib), attn_mask=lib.ones(4, 6, dtype=lib.bool), is_causal=True
    ),
    "one-dimensional query": lambda lib: sdpa(lib, *qkv(lib, q=(5,), k=(6, 5), v=(6, 7))),
    "key of another size": lambda lib: sdpa(lib, *qkv(lib, k=(2, 3, 6, 4))),
    "value of another length": lambda lib: sdpa(lib, *qkv(lib, v=(2, 3, 5, 7))),
    "heads that do not broadcast": lambda lib: sdpa(lib, *qkv(lib, k=(2, 2, 6, 5), v=(2, 2, 6, 7))),
    "key heads that do not divide": lambda lib: sdpa(
        lib, *qkv(lib, k=(2, 2, 6, 5), v=(2, 2, 6, 7)), enable_gqa=True
    ),
    "mixed dtypes": lambda lib: sdpa(lib, qkv(lib, dtype="float32")[0], *qkv(lib)[1:]),
    "integer mask": lambda lib: sdpa(lib, *qkv(lib), attn_mask=lib.zeros(4, 6, dtype=lib.int64)),
    "float64 mask of float32": lambda lib: sdpa(
        lib, *qkv(lib, dtype="float32"), attn_mask=lib.zeros(4, 6, dtype=lib.float64)
    ),
    "mask of another size": lambda lib: sdpa(lib, *qkv(lib), attn_mask=lib.zeros(3, 6)),
    "dropout above 1": lambda lib: sdpa(lib, *qkv(lib), dropout_p=1.5),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_match_torch(case):
    assert_outcome_as_recorded(ANSWERS, "error", case, ERRORS[case], torch_names=True)


# ---------------------------------------------------------------------------
# The recorded answers
# ---------------------------------------------------------------------------


def attention_cases() -> dict[str, tuple]:
    return dict(
        attention_case(dtype, shapes, kind, mask_shape, **settings)
        for dtype in DTYPES
        for shapes, kind, mask_shape, settings in PLAIN_CASES + CAUSAL_CASES
    ) | dict(attention_case(dtype, SHAPES[0], "bool", (3, 5), transposed=True) for dtype in DTYPES)


CASES = attention_cases()
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        answers = {
            key: without_names(run_case(torch, fn, arrays, **options))
            for key, (fn, arrays, options) in CASES.items()
        }
        for size in MASK_SIZES:
            mask = torch.nn.Transformer.generate_square_subsequent_mask(size)
            answers[repr(("square subsequent mask", size))] = {"output": mask.numpy()}
        answers.update(outcome_answers(torch, {"error": ERRORS}, torch_names=True))
    return answers
