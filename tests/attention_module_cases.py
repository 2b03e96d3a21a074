"""The module cases of the attention tests: `nn.MultiheadAttention` and the Transformer layers
(key -> (make, arrays, call, train)), and `module_record`, what one gives in a library for the
same weights (drawn by NumPy from the case's key and each parameter's name).
"""

from __future__ import annotations

import sys

import numpy as np
from helpers import case_rng, tensor_of


def module_record(lib, key, make, arrays, call, train) -> dict:
    """What `call(module, *tensors)` gives for the module `make(lib)` (float64) whose every
    parameter is drawn by NumPy from a seed of `key` and its name, in train mode or eval
    mode: the parameters' names, each output, and the gradients of the inputs that are float
    and of every parameter of a fixed random weighting of the outputs."""
    module = make(lib).double().train(train)
    with lib.no_grad():
        for name, parameter in module.named_parameters():
            values = case_rng(key, name).standard_normal(tuple(parameter.shape)) * 0.5
            parameter.copy_(lib.tensor(values))
    inputs = [tensor_of(lib, a, requires_grad=a.dtype.kind == "f") for a in arrays]
    result = call(module, *inputs)
    outputs = [out for out in (result if isinstance(result, tuple) else (result,))]
    record = {"names": [name for name, _ in module.named_parameters()]}
    rng = np.random.default_rng(0)
    loss = 0
    for k, out in enumerate(outputs):
        record[f"output {k}"] = None if out is None else out.detach().numpy()
        if out is not None:
            loss = loss + (out * lib.tensor(rng.standard_normal(tuple(out.shape)))).sum()
    loss.backward()
    for k, x in enumerate(inputs):
        if x.requires_grad:
            record[f"grad input {k}"] = x.grad.numpy()
    for name, parameter in module.named_parameters():
        record[f"grad {name}"] = None if parameter.grad is None else parameter.grad.numpy()
    return record


def attention_module(**settings):
    return lambda lib: lib.nn.MultiheadAttention(**settings)


def mha_call(**settings):
    """`call(module, q, k, v, *masks)` with the masks given by name (`settings["masks"]`)."""
    names = settings.pop("masks", ())

    def call(module, q, k, v, *masks):
        return module(q, k, v, **dict(zip(names, masks, strict=True)), **settings)

    return call


def mha_case(name, settings, shapes, masks=(), call=None, train=False):
    """MultiheadAttention(**settings) of inputs of `shapes`; `masks`: (argument name, kind,
    shape) with kind "bool" or "float"."""
    key = repr(("multihead", name, train))
    rng = case_rng(key)
    arrays = [rng.standard_normal(shape) for shape in shapes]
    for _, kind, shape in masks:
        if kind == "bool":
            mask = rng.random(shape) > 0.6
            mask[..., 0] = False  # every query attends to at least the first key
            arrays.append(mask)
        else:
            arrays.append(rng.standard_normal(shape))
    call = mha_call(masks=[m[0] for m in masks], **(call or {}))
    return key, (attention_module(**settings), arrays, call, train)


Q, KV, K3, V6 = (3, 2, 4), (5, 2, 4), (5, 2, 3), (5, 2, 6)
MHA_CASES = {
    "self": ({"embed_dim": 4, "num_heads": 2}, [Q, Q, Q]),
    "cross": ({"embed_dim": 4, "num_heads": 2}, [Q, KV, KV]),
    "kdim and vdim": ({"embed_dim": 4, "num_heads": 2, "kdim": 3, "vdim": 6}, [Q, K3, V6]),
    "bias_kv and zero attention, masks": (
        {"embed_dim": 4, "num_heads": 2, "add_bias_kv": True, "add_zero_attn": True},
        [Q, KV, KV],
        [("attn_mask", "bool", (3, 5)), ("key_padding_mask", "bool", (2, 5))],
        {"average_attn_weights": False},
    ),
    "no bias, float masks, no weights": (
        {"embed_dim": 4, "num_heads": 2, "bias": False, "kdim": 3, "vdim": 6},
        [Q, K3, V6],
        [("attn_mask", "float", (4, 3, 5)), ("key_padding_mask", "float", (2, 5))],
        {"need_weights": False},
    ),
    "batch first, causal hint": (
        {"embed_dim": 4, "num_heads": 4, "batch_first": True, "dropout": 0.25},
        [(2, 3, 4), (2, 3, 4), (2, 3, 4)],
        [("attn_mask", "bool", (3, 3))],
        {"is_causal": True},
    ),
    "unbatched": (
        {"embed_dim": 4, "num_heads": 1},
        [(3, 4), (5, 4), (5, 4)],
        [("key_padding_mask", "bool", (5,))],
    ),
    "unbatched, a mask per head": (
        {"embed_dim": 4, "num_heads": 2},
        [(3, 4), (5, 4), (5, 4)],
        [("attn_mask", "float", (2, 3, 5))],
        {"average_attn_weights": False},
    ),
}


def mha_cases() -> dict[str, tuple]:
    found = {}
    for name, spec in MHA_CASES.items():
        settings, shapes, *rest = spec
        for train in (False, True):
            if train and settings.get("dropout"):
                continue  # train mode's dropout is random: test_multihead_dropout
            key, case = mha_case(name, settings, shapes, *rest, train=train)
            found[key] = case
    return found


def layer(name, *args, **settings):
    """`make(lib)`: `lib.nn.<name>(*args, **settings)`."""
    return lambda lib: getattr(lib.nn, name)(*args, **settings)


def stack(name, layer_name, count, norm, *args, **settings):
    """`make(lib)`: `lib.nn.<name>` of `count` copies of a `layer_name` (then a LayerNorm)."""

    def make(lib):
        inner = getattr(lib.nn, layer_name)(*args, **settings)
        return getattr(lib.nn, name)(inner, count, lib.nn.LayerNorm(args[0]) if norm else None)

    return make


def with_masks(*names, causal_of=None, **settings):
    """`call(module, *inputs, *masks)`: the masks by name; `causal_of`: the argument that gets
    the module's `generate_square_subsequent_mask` of that many positions (name, size)."""

    def call(module, *tensors):
        count = len(tensors) - len(names)
        given = dict(zip(names, tensors[count:], strict=True))
        if causal_of is not None:
            argument, size = causal_of
            lib = sys.modules[type(module).__module__.split(".")[0]]  # minitorch or torch
            mask = lib.nn.Transformer.generate_square_subsequent_mask(size, dtype=tensors[0].dtype)
            given[argument] = mask
        return module(*tensors[:count], **given, **settings)

    return call


def layer_cases(dropout: float) -> dict[str, tuple]:
    """Transformer layers of `dropout`: (make, arrays, call) by name."""
    rng = np.random.default_rng(7)
    src, tgt = rng.standard_normal((4, 2, 4)), rng.standard_normal((3, 2, 4))
    src_first = src.transpose(1, 0, 2).copy()
    padding = rng.random((2, 4)) > 0.7
    padding[:, 0] = False
    common = {"dim_feedforward": 6, "dropout": dropout}
    return {
        "encoder layer": (layer("TransformerEncoderLayer", 4, 2, **common), [src], with_masks()),
        "encoder layer, norm first, gelu, padding": (
            layer("TransformerEncoderLayer", 4, 2, norm_first=True, activation="gelu", **common),
            [src, padding],
            with_masks("src_key_padding_mask"),
        ),
        "encoder layer, batch first, no bias, causal": (
            layer("TransformerEncoderLayer", 4, 4, batch_first=True, bias=False, **common),
            [src_first],
            with_masks(causal_of=("src_mask", 4), is_causal=True),
        ),
        "decoder layer": (
            layer("TransformerDecoderLayer", 4, 2, **common),
            [tgt, src, padding],
            with_masks("memory_key_padding_mask", causal_of=("tgt_mask", 3)),
        ),
        "decoder layer, norm first": (
            layer("TransformerDecoderLayer", 4, 2, norm_first=True, **common),
            [tgt, src],
            with_masks(),
        ),
        "encoder": (
            stack("TransformerEncoder", "TransformerEncoderLayer", 2, True, 4, 2, **common),
            [src, padding],
            with_masks("src_key_padding_mask"),
        ),
        "decoder": (
            stack("TransformerDecoder", "TransformerDecoderLayer", 2, False, 4, 2, **common),
            [tgt, src],
            with_masks(causal_of=("tgt_mask", 3), tgt_is_causal=True),
        ),
        "transformer": (
            layer("Transformer", 4, 2, 2, 1, activation="gelu", **common),
            [src, tgt, padding],
            with_masks("src_key_padding_mask", causal_of=("tgt_mask", 3)),
        ),
        "transformer, batch first, norm first": (
            layer("Transformer", 4, 2, 1, 2, batch_first=True, norm_first=True, **common),
            [src_first, tgt.transpose(1, 0, 2).copy()],
            with_masks(),
        ),
    }


def module_cases() -> dict[str, tuple]:
    """Every module case: MultiheadAttention's, then each layer's in eval mode with dropout
    (which eval mode turns off) and in train mode without."""
    found = mha_cases()
    for train, dropout in ((False, 0.2), (True, 0.0)):
        for name, case in layer_cases(dropout).items():
            found[repr(("layer", name, train))] = (*case, train)
    return found
