"""`MultiheadAttention`, with PyTorch's parameters, names and initialisation."""

from __future__ import annotations

from ..._tensor import Tensor
from ...tensors.creation import empty
from .. import init
from ..functional_attention import multi_head_attention_forward
from ..module import Module
from ..parameter import Parameter
from .linear import Linear


class NonDynamicallyQuantizableLinear(Linear):
    """A `Linear` by torch's name for `MultiheadAttention.out_proj` (which torch's
    quantization leaves alone), so that the layers print as torch's do."""


class MultiheadAttention(Module):
    """Attention of `num_heads` heads of `embed_dim // num_heads` features each:
    $\\operatorname{concat}_h(\\operatorname{attention}(Q W^q_h, K W^k_h, V W^v_h)) W^o + b^o$
    (`F.multi_head_attention_forward`).

    Parameters as torch names them: `in_proj_weight` (3E, E), the three input projections
    stacked, or `q_proj_weight`, `k_proj_weight` (E, kdim), `v_proj_weight` (E, vdim) when
    `kdim`/`vdim` differ from `embed_dim`; `in_proj_bias` (3E); `out_proj` (a `Linear`);
    `bias_k`, `bias_v` (1, 1, E) with `add_bias_kv`. They start as torch's: the input
    projections Xavier-uniform, the biases 0, `bias_k`/`bias_v` Xavier-normal.

    >>> import minitorch
    >>> attention = minitorch.nn.MultiheadAttention(4, 2, batch_first=True)
    >>> x = minitorch.ones(3, 5, 4)
    >>> output, weights = attention(x, x, x)
    >>> output.shape, weights.shape
    (minitorch.Size([3, 5, 4]), minitorch.Size([3, 5, 5]))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        super().__init__()
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        def parameter(*shape: int) -> Parameter:
            return Parameter(empty(*shape, dtype=dtype, device=device))

        separate = (embed_dim, self.kdim, self.vdim)
        stacked = self._qkv_same_embed_dim
        self.register_parameter(
            "in_proj_weight", parameter(3 * embed_dim, embed_dim) if stacked else None
        )
        for name, size in zip(("q", "k", "v"), separate, strict=True):
            self.register_parameter(
                f"{name}_proj_weight", None if stacked else parameter(embed_dim, size)
            )
        self.register_parameter("in_proj_bias", parameter(3 * embed_dim) if bias else None)
        self.out_proj = NonDynamicallyQuantizableLinear(
            embed_dim, embed_dim, bias=bias, device=device, dtype=dtype
        )
        for name in ("bias_k", "bias_v"):
            self.register_parameter(name, parameter(1, 1, embed_dim) if add_bias_kv else None)
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        for name in ("in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight"):
            if getattr(self, name) is not None:
                init.xavier_uniform_(getattr(self, name))
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for name in ("bias_k", "bias_v"):
            if getattr(self, name) is not None:
                init.xavier_normal_(getattr(self, name))

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """The attention output, (N, L, E) with `batch_first` else (L, N, E), and the
        weights (N, L, S) (per head (N, heads, L, S) unless `average_attn_weights`), or None
        without `need_weights`; masks as `F.multi_head_attention_forward` takes them."""
        batched = query.ndim == 3
        if self.batch_first and batched:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        output, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and batched:
            output = output.transpose(0, 1)
        return output, weights
