"""`F.multi_head_attention_forward`, `nn.MultiheadAttention` and the Transformer layers
against torch: values and gradients of inputs and parameters (also by central differences),
in train and eval mode, parameter names, arguments, reprs, error texts.

torch's answers are recorded in tests/data/test_nn_attention_modules.json
(scripts/record_torch_answers.py from `torch_answers`); the modules' weights are drawn by NumPy
and copied into both libraries by parameter name, so the same names are part of the answer.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
from attention_module_cases import (
    module_cases,
    module_record,
)
from helpers import (
    assert_as_recorded,
    assert_outcome_as_recorded,
    outcome_answers,
    recorded_answers,
)

import minitorch
import minitorch.nn.functional as F

# Every module case runs in float64
TOLERANCE = {"float64": {"rtol": 1e-10, "atol": 1e-12}}

# ---------------------------------------------------------------------------
# Errors (torch's type and text) and reprs
# ---------------------------------------------------------------------------


def mha(lib, *shapes, embed_dim=4, heads=2, **call):
    module = lib.nn.MultiheadAttention(embed_dim, heads)
    return module(*(lib.zeros(*shape) for shape in shapes), **call)


def transformer_of(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's note on nested tensors
        return lib.nn.Transformer(4, 2, 1, 1, 8)


def transformer(lib, src, tgt):
    return transformer_of(lib)(lib.zeros(*src), lib.zeros(*tgt))


ERRORS = {
    "no heads": lambda lib: lib.nn.MultiheadAttention(4, 0),
    "heads that do not divide the width": lambda lib: lib.nn.MultiheadAttention(5, 2),
    "causal hint without a mask": lambda lib: mha(
        lib, (3, 2, 4), (3, 2, 4), (3, 2, 4), is_causal=True
    ),
    "2-D mask of another shape": lambda lib: mha(
        lib, (3, 2, 4), (3, 2, 4), (3, 2, 4), attn_mask=lib.zeros(2, 3)
    ),
    "3-D mask of another shape": lambda lib: mha(
        lib, (3, 2, 4), (3, 2, 4), (3, 2, 4), attn_mask=lib.zeros(5, 3, 3)
    ),
    "4-D mask": lambda lib: mha(
        lib, (3, 2, 4), (3, 2, 4), (3, 2, 4), attn_mask=lib.zeros(1, 1, 3, 3)
    ),
    "integer padding mask": lambda lib: mha(
        lib, (3, 2, 4), (3, 2, 4), (3, 2, 4), key_padding_mask=lib.zeros(2, 3, dtype=lib.int64)
    ),
    "padding mask of another batch": lambda lib: mha(
        lib, (3, 2, 4), (3, 2, 4), (3, 2, 4), key_padding_mask=lib.zeros(3, 3, dtype=lib.bool)
    ),
    "key and value of other lengths": lambda lib: mha(lib, (3, 2, 4), (2, 2, 4), (3, 2, 4)),
    "query of another width": lambda lib: mha(lib, (3, 2, 3), (3, 2, 4), (3, 2, 4)),
    "unbatched query, batched key": lambda lib: mha(lib, (3, 4), (3, 2, 4), (3, 2, 4)),
    "unbatched query, 3-D mask": lambda lib: mha(
        lib, (3, 4), (3, 4), (3, 4), attn_mask=lib.zeros(3, 3, 3)
    ),
    "unbatched query, 4-D mask": lambda lib: mha(
        lib, (3, 4), (3, 4), (3, 4), attn_mask=lib.zeros(1, 2, 3, 3)
    ),
    "transformer batches that differ": lambda lib: transformer(lib, (3, 2, 4), (3, 3, 4)),
    "transformer features that differ": lambda lib: transformer(lib, (3, 2, 4), (3, 2, 5)),
    "unknown activation": lambda lib: lib.nn.TransformerEncoderLayer(4, 2, activation="tanh"),
    "unbatched transformer": lambda lib: transformer(lib, (3, 4), (2, 4)).shape,
}


REPRS = {
    "MultiheadAttention": lambda lib: repr(lib.nn.MultiheadAttention(4, 2, kdim=3)),
    "Transformer": lambda lib: repr(transformer_of(lib)),
}


@pytest.mark.parametrize("case", REPRS)
def test_layers_print_as_torchs(case):
    assert_outcome_as_recorded(ANSWERS, "repr", case, REPRS[case])


@pytest.mark.parametrize("case", ERRORS)
def test_errors_match_torch(case):
    assert_outcome_as_recorded(ANSWERS, "error", case, ERRORS[case], torch_names=True)


# ---------------------------------------------------------------------------
# Modules: torch's answers for the same weights, in train and eval mode
# (tests/attention_module_cases.py)
# ---------------------------------------------------------------------------

MODULE_CASES = module_cases()


@pytest.mark.parametrize("key", MODULE_CASES)
def test_modules_match_torch(key):
    ours = module_record(minitorch, key, *MODULE_CASES[key])
    assert_as_recorded(ours, ANSWERS[key], key, **TOLERANCE["float64"])


@pytest.mark.parametrize("separate", [False, True])
def test_multihead_grad_check(separate):
    """Gradients of the inputs and of every weight of F.multi_head_attention_forward, with
    bias_k, bias_v, a zero attention, both masks, and the weights returned."""
    rng = np.random.default_rng(5)

    def draw(*shape):
        return minitorch.tensor(rng.standard_normal(shape) * 0.5, requires_grad=True)

    q, k, v = draw(3, 2, 4), draw(5, 2, 3 if separate else 4), draw(5, 2, 4)
    projections = [draw(4, 4), draw(4, 3), draw(4, 4)] if separate else [draw(12, 4)]
    weights = [*projections, draw(12), draw(1, 1, 4), draw(1, 1, 4), draw(4, 4), draw(4)]
    attn_mask = minitorch.tensor(rng.random((3, 5)) > 0.6)
    padding = minitorch.tensor(rng.standard_normal((2, 5)))

    def fn(q, k, v, *weights):
        projection = {"in_proj_weight": None} if separate else {"in_proj_weight": weights[0]}
        if separate:
            names = ("q_proj_weight", "k_proj_weight", "v_proj_weight")
            projection.update(zip(names, weights[:3], strict=True))
        bias, bias_k, bias_v, out_weight, out_bias = weights[-5:]
        output, attention = F.multi_head_attention_forward(
            q,
            k,
            v,
            4,
            2,
            projection.pop("in_proj_weight"),
            bias,
            bias_k,
            bias_v,
            True,
            0.0,
            out_weight,
            out_bias,
            key_padding_mask=padding,
            attn_mask=attn_mask,
            use_separate_proj_weight=separate,
            average_attn_weights=False,
            **projection,
        )
        return output.sum() + (attention * attention).sum()

    assert minitorch.grad_check(fn, q, k, v, *weights)


def query_with_no_key(lib, need_weights):
    """The output of a MultiheadAttention whose first query may attend to no key."""
    lib.manual_seed(0)
    attention = lib.nn.MultiheadAttention(4, 2)
    x = lib.ones(3, 2, 4)
    mask = lib.tensor([[True] * 3, [False] * 3, [False] * 3])
    return attention(x, x, x, attn_mask=mask, need_weights=need_weights)[0].detach().numpy()


def test_multihead_query_with_no_key():
    assert np.isnan(query_with_no_key(minitorch, True)[0]).all()
    assert (query_with_no_key(minitorch, False)[0] == 0).all()
    assert np.isfinite(query_with_no_key(minitorch, True)[1:]).all()


def test_multihead_query_with_no_key_as_torch(torch):
    assert np.isnan(query_with_no_key(torch, True)[0]).all()
    assert (query_with_no_key(torch, False)[0] == 0).all()


def test_multihead_starts_as_torch():
    """Xavier-uniform input projections, zero biases, Xavier-normal bias_k and bias_v."""
    module = minitorch.nn.MultiheadAttention(64, 4, add_bias_kv=True)
    bound = math.sqrt(6 / (64 + 3 * 64))
    weight = module.in_proj_weight.detach().numpy()
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.9 * bound
    assert module.in_proj_bias.abs().max().item() == 0
    assert module.out_proj.bias.abs().max().item() == 0
    out_bound = 1 / math.sqrt(64)
    assert np.abs(module.out_proj.weight.detach().numpy()).max() <= out_bound
    separate = minitorch.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, bias=False)
    assert separate.in_proj_weight is None and separate.in_proj_bias is None
    assert tuple(separate.k_proj_weight.shape) == (8, 3)
    assert tuple(separate.v_proj_weight.shape) == (8, 5)


def test_multihead_dropout():
    """Dropout of the weights only in train mode: eval gives the dropout-free answer."""
    minitorch.manual_seed(0)
    module = minitorch.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = minitorch.randn(6, 3, 8)
    with minitorch.no_grad():
        quiet = minitorch.nn.MultiheadAttention(8, 2)
        quiet.load_state_dict(module.state_dict())
        module.eval()
        evaluated, _ = module(x, x, x)
        assert minitorch.allclose(evaluated, quiet(x, x, x)[0])
        module.train()
        trained, weights = module(x, x, x, average_attn_weights=False)
    assert not minitorch.allclose(trained, evaluated)
    assert (weights == 0).float().mean().item() > 0.3  # about half of them dropped


def test_multihead_state_dict_loads_both_ways(torch):
    settings = {"embed_dim": 6, "num_heads": 3, "kdim": 4, "vdim": 5, "add_bias_kv": True}
    theirs = torch.nn.MultiheadAttention(**settings, batch_first=True)
    ours = minitorch.nn.MultiheadAttention(**settings, batch_first=True)
    ours.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = np.random.default_rng(0).standard_normal((2, 3, 6)).astype("float32")
    k = np.random.default_rng(1).standard_normal((2, 4, 4)).astype("float32")
    v = np.random.default_rng(2).standard_normal((2, 4, 5)).astype("float32")
    got = ours(*(minitorch.tensor(a) for a in (x, k, v)))[0].detach().numpy()
    want = theirs(*(torch.tensor(a) for a in (x, k, v)))[0].detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    other = torch.nn.MultiheadAttention(**settings, batch_first=True)
    other.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    again = other(*(torch.tensor(a) for a in (x, k, v)))[0].detach().numpy()
    np.testing.assert_allclose(again, want, rtol=1e-6)


def test_transformer_layers_take_a_callable_activation():
    layer = minitorch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, activation=F.silu)
    relu_layer = minitorch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
    relu_layer.load_state_dict(layer.state_dict())
    x = minitorch.randn(3, 2, 4)
    assert layer.activation is F.silu
    assert not minitorch.allclose(layer(x), relu_layer(x))
    relu_layer.activation = F.silu
    assert minitorch.allclose(layer(x), relu_layer(x))


def test_transformer_starts_xavier_uniform():
    """Every weight matrix of nn.Transformer is redrawn Xavier-uniform, as torch's is."""
    model = minitorch.nn.Transformer(16, 2, 1, 1, 48)
    for name, parameter in model.named_parameters():
        if parameter.ndim > 1:
            fan_out, fan_in = parameter.shape
            bound = math.sqrt(6 / (fan_in + fan_out))
            largest = parameter.abs().max().item()
            assert 0.8 * bound < largest <= bound, name
    copies = model.encoder.layers
    assert not minitorch.equal(copies[0].linear1.weight, model.decoder.layers[0].linear1.weight)


def test_padded_positions_as_documented(torch):
    """torch's inference fast path zeroes the positions a padding mask pads; minitorch
    computes them (TransformerEncoder's docstring): the other positions agree."""
    layer = torch.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)
    theirs = torch.nn.TransformerEncoder(layer, 2).eval()
    ours_layer = minitorch.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)
    ours = minitorch.nn.TransformerEncoder(ours_layer, 2).eval()
    ours.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype("float32")
    padding = np.array([[False, False, True], [False, False, False]])
    with torch.no_grad(), minitorch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's note that nested tensors are a prototype
        want = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(padding)).numpy()
        got = ours(minitorch.tensor(x), src_key_padding_mask=minitorch.tensor(padding)).numpy()
    np.testing.assert_allclose(got[~padding], want[~padding], rtol=1e-4, atol=1e-5)
    assert (want[padding] == 0).all() and (got[padding] != 0).all()


def test_stacks_copy_their_layer():
    """TransformerEncoder's layers start as copies of the given layer, each its own."""
    layer = minitorch.nn.TransformerEncoderLayer(4, 2, 8)
    stack = minitorch.nn.TransformerEncoder(layer, 3)
    assert len(stack.layers) == 3 and stack.layers[0] is not layer
    assert minitorch.equal(stack.layers[2].linear1.weight, layer.linear1.weight)
    assert stack.layers[0].linear1.weight is not stack.layers[1].linear1.weight


# ---------------------------------------------------------------------------
# The recorded answers
# ---------------------------------------------------------------------------

ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        answers = {key: module_record(torch, key, *case) for key, case in MODULE_CASES.items()}
        answers.update(outcome_answers(torch, {"error": ERRORS}, torch_names=True))
        answers.update(outcome_answers(torch, {"repr": REPRS, "arguments": SIGNATURES}))
    return answers


SIGNED = [
    "nn.functional.multi_head_attention_forward",
    "nn.MultiheadAttention",
    "nn.MultiheadAttention.forward",
    *[
        f"nn.{name}{method}"
        for name in ("TransformerEncoderLayer", "TransformerDecoderLayer")
        for method in ("", ".forward")
    ],
    *[
        f"nn.{name}{method}"
        for name in ("TransformerEncoder", "TransformerDecoder", "Transformer")
        for method in ("", ".forward")
    ],
    "nn.Transformer.generate_square_subsequent_mask",
]


def arguments(path: str):
    """`function(lib)`: the names of the arguments of `lib.<path>`, in order."""

    def names(lib):
        found = lib
        for part in path.split("."):
            found = getattr(found, part)
        return list(inspect.signature(found).parameters)

    return names


SIGNATURES = {path: arguments(path) for path in SIGNED}


@pytest.mark.parametrize("path", SIGNED)
def test_arguments_are_torchs(path):
    """The same arguments, by name and in order (so that keyword calls carry over)."""
    assert_outcome_as_recorded(ANSWERS, "arguments", path, SIGNATURES[path])
