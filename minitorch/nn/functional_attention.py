"""Scaled dot-product attention and the causal masks, as `torch.nn.functional` has them.

Attention of queries $Q$ (..., L, E) over keys $K$ (..., S, E) and values $V$ (..., S, Ev):

$$\\operatorname{attention}(Q, K, V) = \\operatorname{softmax}\\!\\left(s\\, Q K^T + B\\right) V$$

with $s = 1/\\sqrt{E}$ by default and $B$ the mask: 0 where a query may look at a key and
$-\\infty$ where it may not (a boolean mask, True = take part), or any float bias added to the
scores. Everything here is written with the public tensor API.
"""

from __future__ import annotations

import math

from .. import dtypes
from .._tensor import Tensor
from ..autograd import Function
from ..ops.joins import cat
from ..ops.selection import where
from ..tensors import creation

_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int"}


def _type_name(tensor: Tensor) -> str:
    """The name torch's messages give a tensor's dtype ("float", "double", ...)."""
    name = str(tensor.dtype).split(".")[-1]
    return _TYPE_NAMES.get(name, name)


def _linear(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """$x W^T + b$, as `F.linear` (in `functional.py`, which imports this module)."""
    output = x @ weight.transpose(0, 1)
    return output if bias is None else output + bias


def drop_weights(weights: Tensor, p: float) -> Tensor:
    """`weights` with each zeroed with probability `p` and the others scaled by
    $1 / (1 - p)$ (`F.dropout` in training)."""
    if p == 0.0:
        return weights
    kept = (creation.rand_like(weights) < 1.0 - p).to(weights.dtype)
    return weights * kept * (0.0 if p == 1.0 else 1.0 / (1.0 - p))


class SafeSoftmax(Function):
    """$y_i = e^{x_i - m} / \\sum_j e^{x_j - m}$ over the last dim ($m$ the row's largest
    finite value), with a row of only $-\\infty$ (a query that may look at nothing) giving
    zeros instead of NaN, as torch's attention does.

    Backward: $\\partial L/\\partial x_i = y_i (g_i - \\sum_j g_j y_j)$, zero where $y$ is.
    """

    @staticmethod
    def forward(ctx, scores: Tensor) -> Tensor:
        largest = scores.amax(-1, keepdim=True)
        exps = (scores - where(largest.isfinite(), largest, 0.0)).exp()
        total = exps.sum(-1, keepdim=True)
        weights = exps / where(total == 0, 1.0, total)
        ctx.save_for_backward(weights)
        return weights

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (weights,) = ctx.saved_tensors
        return weights * (grad - (grad * weights).sum(-1, keepdim=True))


def safe_softmax(scores: Tensor) -> Tensor:
    """The softmax of `scores` over the last dim; zeros for rows that are all $-\\infty$."""
    return SafeSoftmax.apply(scores)


def attend(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    mask: Tensor | None,
    scale: float,
    dropout_p: float = 0.0,
    safe: bool = True,
) -> tuple[Tensor, Tensor]:
    """The attention output $\\operatorname{softmax}(s Q K^T + B) V$ and its weights.

    `mask`: None, boolean (True = the query may look at the key; the others score
    $-\\infty$) or float (added to the scores), broadcast over the scores' leading dims;
    `scale`: $s$; the weights are dropped out with probability `dropout_p`; `safe`: rows
    with no key give zero weights (`safe_softmax`) rather than NaN (`Tensor.softmax`).
    """
    # BEGIN SOLUTION 5.2
    scores = (query @ key.transpose(-2, -1)) * scale
    if mask is not None and mask.dtype is dtypes.bool_:
        scores = where(mask, scores, float("-inf"))
    elif mask is not None:
        scores = scores + mask
    weights = safe_softmax(scores) if safe else scores.softmax(-1)
    weights = drop_weights(weights, dropout_p)
    return weights @ value, weights
    # END SOLUTION 5.2


def causal_mask(target_length: int, source_length: int, device=None) -> Tensor:
    """The boolean mask of causal attention, True where query $i$ may look at key $j$:
    $j \\le i$ (the lower triangle, from the top-left corner when the lengths differ).

    >>> from minitorch.nn.functional_attention import causal_mask
    >>> causal_mask(2, 3)
    tensor([[ True, False, False],
            [ True,  True, False]])
    """
    # BEGIN SOLUTION 5.3
    return creation.ones(target_length, source_length, dtype=dtypes.bool_, device=device).tril()
    # END SOLUTION 5.3


def square_subsequent_mask(size: int, device=None, dtype=None) -> Tensor:
    """The float mask of causal attention over `size` positions: 0 where $j \\le i$ and
    $-\\infty$ above the diagonal, where key $j$ comes after query $i$
    (`nn.Transformer.generate_square_subsequent_mask`).

    >>> from minitorch.nn.functional_attention import square_subsequent_mask
    >>> square_subsequent_mask(3)
    tensor([[0., -inf, -inf],
            [0., 0., -inf],
            [0., 0., 0.]])
    """
    # BEGIN SOLUTION 5.3
    return creation.full((size, size), float("-inf"), dtype=dtype, device=device).triu(1)
    # END SOLUTION 5.3


def _check_attention_inputs(query, key, value, attn_mask, dropout_p, is_causal) -> None:
    """torch's errors for inputs `scaled_dot_product_attention` cannot take."""
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_type_name(query)} key.dtype: {_type_name(key)} and value.dtype: "
            f"{_type_name(value)} instead."
        )
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {_type_name(query).title()}")
    if attn_mask is not None and attn_mask.dtype not in (dtypes.bool_, dtypes.float32, query.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_type_name(attn_mask)} and  query.dtype: {_type_name(query)} "
            "instead."
        )
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    batch = math.prod(query.shape[:-2])
    for size, given in (
        (query.shape[-1], key.shape[-1]),
        (key.shape[-2], value.shape[-2]),
    ):
        if size != given:
            raise RuntimeError(
                "Expected size for first two dimensions of batch2 tensor to be: "
                f"[{batch}, {size}] but got: [{batch}, {given}]."
            )


def _repeat_heads(query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
    """Grouped-query attention: each of the key's and value's heads (dim -3) serves
    query heads / key heads consecutive query heads."""
    heads, key_heads = query.shape[-3], key.shape[-3]
    if heads % key_heads or heads % value.shape[-3]:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return (
        key.repeat_interleave(heads // key_heads, -3),
        value.repeat_interleave(heads // value.shape[-3], -3),
    )


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """$\\operatorname{softmax}(s Q K^T + B) V$ for `query` (..., L, E), `key` (..., S, E) and
    `value` (..., S, Ev), giving (..., L, Ev): see `attend`.

    `attn_mask` broadcasts to (..., L, S): boolean (True = take part) or float (added);
    `is_causal`: query $i$ looks only at keys $j \\le i$ (`causal_mask`; no `attn_mask` then);
    `scale`: $s$, by default $1/\\sqrt{E}$; `dropout_p`: dropout of the weights, always applied
    (pass 0 when evaluating); `enable_gqa`: `key` and `value` may have fewer heads (dim -3)
    than `query`, each shared by a group of query heads.

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> q = minitorch.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> F.scaled_dot_product_attention(q, q, q, is_causal=True)
    tensor([[1.0000, 0.0000],
            [0.3302, 0.6698]])
    """
    _check_attention_inputs(query, key, value, attn_mask, dropout_p, is_causal)
    if enable_gqa:
        key, value = _repeat_heads(query, key, value)
    if is_causal:
        attn_mask = causal_mask(query.shape[-2], key.shape[-2], device=query.device)
    elif attn_mask is not None and attn_mask.dtype is not dtypes.bool_:
        attn_mask = attn_mask.to(query.dtype)
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    return attend(query, key, value, attn_mask, scale, dropout_p)[0]


def _as_float_mask(mask: Tensor | None, dtype) -> Tensor | None:
    """A `MultiheadAttention` mask as a float bias: boolean True (= masked out) is
    $-\\infty$, False 0; a float mask as given."""
    if mask is None or mask.dtype is not dtypes.bool_:
        return mask
    return where(mask, float("-inf"), 0.0).to(dtype)


def _check_multi_head_inputs(
    query, key, value, key_padding_mask, attn_mask, embed_dim, num_heads
) -> bool:
    """torch's errors for inputs `multi_head_attention_forward` cannot take; whether the
    inputs are batched (3-D)."""
    batched = query.ndim == 3
    if not batched and (key.ndim != 2 or value.ndim != 2):
        raise AssertionError(
            "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
            f"{key.ndim}-D and {value.ndim}-D tensors respectively"
        )
    if batched and (key.ndim != 3 or value.ndim != 3):
        raise AssertionError(
            "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
            f"{key.ndim}-D and {value.ndim}-D tensors respectively"
        )
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        kind = "batched (3-D)" if batched else "unbatched (2-D)"
        raise AssertionError(
            f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
            f"{attn_mask.ndim}-D tensor instead"
        )
    expected = (num_heads, query.shape[0], key.shape[0])
    if not batched and attn_mask is not None and attn_mask.ndim == 3:
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
            )
    if key_padding_mask is not None and not (
        key_padding_mask.dtype is dtypes.bool_ or key_padding_mask.dtype.is_floating_point
    ):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")
    if query.shape[-1] != embed_dim:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim}, but got {query.shape[-1]}"
        )
    if key.shape[:-1] != value.shape[:-1]:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    return batched


def _projections(query, key, value, in_proj_weight, in_proj_bias, separate):
    """$Q W_q^T + b_q$, $K W_k^T + b_k$, $V W_v^T + b_v$: the three weights stacked in
    `in_proj_weight` (3E, E), or `separate` (q, k, v weights); the biases stacked in
    `in_proj_bias`."""
    weights = separate if separate is not None else in_proj_weight.chunk(3)
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    return [_linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases, strict=True)]


def _padded(mask: Tensor | None) -> Tensor | None:
    """`mask` with one more key, which every query may attend (a zero column)."""
    if mask is None:
        return None
    return cat(
        [mask, creation.zeros(*mask.shape[:-1], 1, dtype=mask.dtype, device=mask.device)], -1
    )


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention of sequence-first `query` (L, N, E) over `key` (S, N, Ek) and
    `value` (S, N, Ev) (or unbatched (L, E), ...):
    $\\operatorname{concat}_h(\\operatorname{attention}(Q W^q_h, K W^k_h, V W^v_h)) W^o + b^o$.

    Masks: `key_padding_mask` (N, S) and `attn_mask` (L, S) or (N·heads, L, S), boolean
    (True = may NOT attend, the opposite of `scaled_dot_product_attention`) or float (added);
    `is_causal` is a hint that `attn_mask` is causal, which it still needs. Returns the output
    and, with `need_weights`, the attention weights (N, L, S), averaged over the heads when
    `average_attn_weights` (else (N, heads, L, S)). A query that may attend to no key gets
    NaN with `need_weights` (a softmax of only $-\\infty$) and zeros without, as in torch.
    """
    if static_k is not None or static_v is not None:
        raise NotImplementedError("minitorch's multi_head_attention_forward has no static_k/v")
    batched = _check_multi_head_inputs(
        query, key, value, key_padding_mask, attn_mask, embed_dim_to_check, num_heads
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target_length, batch, embed_dim = query.shape
    if embed_dim % num_heads:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    head_dim = embed_dim // num_heads
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _projections(query, key, value, in_proj_weight, in_proj_bias, separate)
    attn_mask = _as_float_mask(attn_mask, q.dtype)
    key_padding_mask = _as_float_mask(key_padding_mask, q.dtype)
    if attn_mask is not None:
        expected = (
            (target_length, key.shape[0])
            if attn_mask.ndim == 2
            else (batch * num_heads, target_length, key.shape[0])
        )
        if tuple(attn_mask.shape) != expected:
            raise RuntimeError(
                f"The shape of the {attn_mask.ndim}D attn_mask is {attn_mask.shape}, but "
                f"should be {expected}."
            )
    for dim, size in enumerate((batch, key.shape[0])):
        if key_padding_mask is not None and key_padding_mask.shape[dim] != size:
            raise AssertionError(
                f"Expected key_padded_mask.shape[{dim}] to be {size}, but got "
                f"{key_padding_mask.shape[dim]}"
            )
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.expand(1, batch, embed_dim)])
        v = cat([v, bias_v.expand(1, batch, embed_dim)])
        attn_mask, key_padding_mask = _padded(attn_mask), _padded(key_padding_mask)
    # (length, N, E) -> (N, heads, length, head_dim)
    q, k, v = (
        x.reshape(x.shape[0], batch, num_heads, head_dim).permute(1, 2, 0, 3) for x in (q, k, v)
    )
    if add_zero_attn:
        k, v = (
            cat(
                [x, creation.zeros(batch, num_heads, 1, head_dim, dtype=x.dtype, device=x.device)],
                2,
            )
            for x in (k, v)
        )
        attn_mask, key_padding_mask = _padded(attn_mask), _padded(key_padding_mask)
    mask = attn_mask
    if mask is not None and mask.ndim == 3:  # (N * heads, L, S) -> (N, heads, L, S)
        mask = mask.reshape(batch, num_heads, *mask.shape[1:])
    if key_padding_mask is not None:
        padding = key_padding_mask.reshape(batch, 1, 1, -1)
        mask = padding if mask is None else mask + padding
    dropout_p = dropout_p if training else 0.0
    output, weights = attend(
        q, k, v, mask, 1 / math.sqrt(head_dim), dropout_p, safe=not need_weights
    )
    output = output.permute(2, 0, 1, 3).reshape(target_length * batch, embed_dim)
    output = _linear(output, out_proj_weight, out_proj_bias).reshape(
        target_length, batch, embed_dim
    )
    if not need_weights:
        weights = None
    elif average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        output = output.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return output, weights


__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]
