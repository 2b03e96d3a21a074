"""The Transformer layers of `torch.nn`: encoder and decoder layers, their stacks, and
`Transformer`, with PyTorch's submodule names (so state_dicts load both ways)."""

from __future__ import annotations

import copy
from collections.abc import Callable

from ..._tensor import Tensor
from .. import functional, init
from ..functional_attention import square_subsequent_mask
from ..module import Module
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .normalization import LayerNorm


def _activation(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """The feed-forward block's activation: "relu", "gelu" or any callable."""
    if activation in ("relu", "gelu"):
        return getattr(functional, activation)
    if callable(activation):
        return activation
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class _Layer(Module):
    """What encoder and decoder layers share, with torch's arguments: the attentions named by
    `_ATTENTIONS`, the feed-forward block $W_2\\,\\operatorname{dropout}(f(W_1 x + b_1)) + b_2$,
    and one residual step per block (`norm1`, `dropout1`, ...), which normalises after the sum
    (post-norm) or the block's input (`norm_first`)."""

    _ATTENTIONS: tuple[str, ...] = ()

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        kinds = {"device": device, "dtype": dtype}
        for name in self._ATTENTIONS:
            attention = MultiheadAttention(
                d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kinds
            )
            setattr(self, name, attention)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kinds)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kinds)
        self.norm_first = norm_first
        steps = len(self._ATTENTIONS) + 1
        for k in range(1, steps + 1):
            setattr(self, f"norm{k}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kinds))
        for k in range(1, steps + 1):
            setattr(self, f"dropout{k}", Dropout(dropout))
        self.activation = _activation(activation)

    def _feed_forward(self, x: Tensor) -> Tensor:
        return self.linear2(self.dropout(self.activation(self.linear1(x))))

    def _residual(self, x: Tensor, norm: Module, dropout: Module, block) -> Tensor:
        """$x + \\operatorname{block}(\\operatorname{norm}(x))$ with `norm_first`, else
        $\\operatorname{norm}(x + \\operatorname{block}(x))$; the block's output dropped out."""
        if self.norm_first:
            return x + dropout(block(norm(x)))
        return norm(x + dropout(block(x)))

    @staticmethod
    def _attention(attention: MultiheadAttention, x, source, mask, padding, is_causal):
        return attention(
            x, source, source, attn_mask=mask, key_padding_mask=padding, need_weights=False,
            is_causal=is_causal,
        )[0]  # fmt: skip


class TransformerEncoderLayer(_Layer):
    """Self-attention then a feed-forward block, each in a residual step:
    $x \\leftarrow \\operatorname{norm}_1(x + \\operatorname{SA}(x))$,
    $x \\leftarrow \\operatorname{norm}_2(x + \\operatorname{FF}(x))$
    (with `norm_first`, $x + \\operatorname{SA}(\\operatorname{norm}_1 x)$, ...).

    >>> import minitorch
    >>> layer = minitorch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    >>> layer(minitorch.zeros(5, 3, 8)).shape
    minitorch.Size([5, 3, 8])
    """

    _ATTENTIONS = ("self_attn",)

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        """The layer of `src` (masks as `MultiheadAttention` takes them)."""

        def attend(x):
            return self._attention(self.self_attn, x, x, src_mask, src_key_padding_mask, is_causal)

        x = self._residual(src, self.norm1, self.dropout1, attend)
        return self._residual(x, self.norm2, self.dropout2, self._feed_forward)


class TransformerDecoderLayer(_Layer):
    """Self-attention over the target, attention over the encoder's `memory`, then a
    feed-forward block, each in a residual step (see `TransformerEncoderLayer`)."""

    _ATTENTIONS = ("self_attn", "multihead_attn")

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """The layer of `tgt`, attending to `memory`."""

        def attend_self(x):
            return self._attention(
                self.self_attn, x, x, tgt_mask, tgt_key_padding_mask, tgt_is_causal
            )

        def attend_memory(x):
            return self._attention(
                self.multihead_attn, x, memory, memory_mask, memory_key_padding_mask,
                memory_is_causal,
            )  # fmt: skip

        x = self._residual(tgt, self.norm1, self.dropout1, attend_self)
        x = self._residual(x, self.norm2, self.dropout2, attend_memory)
        return self._residual(x, self.norm3, self.dropout3, self._feed_forward)


class _Stack(Module):
    """What `TransformerEncoder` and `TransformerDecoder` share: `layers`, the copies of one
    layer, run in turn, then `norm` when given."""

    def __init__(self, layer: Module, num_layers: int, norm: Module | None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def _run(self, output: Tensor, *arguments) -> Tensor:
        """`output` through each layer in turn (each given `arguments` after it), then `norm`."""
        for layer in self.layers:
            output = layer(output, *arguments)
        return output if self.norm is None else self.norm(output)


class TransformerEncoder(_Stack):
    """`num_layers` copies of `encoder_layer` (each its own parameters, starting equal), then
    `norm` when given.

    Positions that `src_key_padding_mask` pads are computed like any other (attending to the
    others, as their values are not meant to be used). torch differs there in one case: its
    inference fast path (eval mode without autograd, `enable_nested_tensor`) returns zeros at
    those positions. `enable_nested_tensor` and `mask_check` are accepted for that reason only.
    """

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__(encoder_layer, num_layers, norm)

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        return self._run(src, mask, src_key_padding_mask, bool(is_causal))


class TransformerDecoder(_Stack):
    """`num_layers` copies of `decoder_layer`, then `norm` when given."""

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__(decoder_layer, num_layers, norm)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        return self._run(
            tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
            bool(tgt_is_causal), memory_is_causal,
        )  # fmt: skip


class Transformer(Module):
    """An encoder of `src` and a decoder of `tgt` attending to the encoder's output, each a
    stack of layers ending in a `LayerNorm`; every weight matrix starts Xavier-uniform.

    >>> import minitorch
    >>> model = minitorch.nn.Transformer(8, 2, 1, 1, dim_feedforward=16)
    >>> model(minitorch.zeros(5, 3, 8), minitorch.zeros(4, 3, 8)).shape
    minitorch.Size([4, 3, 8])
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = "relu",
        custom_encoder: Module | None = None,
        custom_decoder: Module | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        kinds = {"device": device, "dtype": dtype}
        settings = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps)
        options = {"batch_first": batch_first, "norm_first": norm_first, "bias": bias, **kinds}

        def norm():
            return LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kinds)

        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(*settings, **options), num_encoder_layers, norm()
        )
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(*settings, **options), num_decoder_layers, norm()
        )
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for parameter in self.parameters():
            if parameter.ndim > 1:
                init.xavier_uniform_(parameter)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, src_mask, src_key_padding_mask, src_is_causal)
        return self.decoder(
            tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
            tgt_is_causal, memory_is_causal,
        )  # fmt: skip

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """The causal mask of `sz` positions: 0 on and below the diagonal, $-\\infty$
        above (see `F.scaled_dot_product_attention`'s `is_causal`)."""
        return square_subsequent_mask(sz, device=device, dtype=dtype)
