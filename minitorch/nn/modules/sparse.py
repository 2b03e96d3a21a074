"""`Embedding`: a lookup table of learned vectors, one row per index."""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd import no_grad
from ...tensors.creation import empty
from .. import functional, init
from ..module import Module
from ..parameter import Parameter
from .function_layer import changed_options


def set_table(module: Module, _weight: Tensor | None, requires_grad: bool, device, dtype) -> None:
    """Set `module.weight`, the (num_embeddings, embedding_dim) table: `_weight` when given
    (PyTorch's AssertionError when its shape differs), else drawn by `reset_parameters`."""
    shape = [module.num_embeddings, module.embedding_dim]
    if _weight is None:
        weight = empty(*shape, dtype=dtype, device=device)
        module.weight = Parameter(weight, requires_grad=requires_grad)
        module.reset_parameters()
    elif list(_weight.shape) != shape:
        raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
    else:
        module.weight = Parameter(_weight, requires_grad=requires_grad)


class Embedding(Module):
    """Row $i$ of `weight` (num_embeddings, embedding_dim) for each index $i$ of the input.

    `weight` starts $\\mathcal N(0, 1)$, as in PyTorch; the row `padding_idx` starts at
    zero and gets no gradient.

    >>> import minitorch
    >>> table = minitorch.nn.Embedding(10, 3, padding_idx=0)
    >>> table(minitorch.tensor([[1, 0]])).shape
    minitorch.Size([1, 2, 3])
    >>> table
    Embedding(10, 3, padding_idx=0)
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, "Padding_idx must be within num_embeddings"
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        set_table(self, _weight, not _freeze, device, dtype)

    def reset_parameters(self) -> None:
        """Draw the weights again from $\\mathcal N(0, 1)$, the padding row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self) -> str:
        defaults = {"padding_idx": None, "max_norm": None, "norm_type": 2}
        defaults.update(scale_grad_by_freq=False, sparse=False)
        return f"{self.num_embeddings}, {self.embedding_dim}" + changed_options(self, defaults)

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Embedding:
        """An `Embedding` whose table is `embeddings` (2-D); frozen unless `freeze=False`."""
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            _freeze=freeze,
            padding_idx=padding_idx,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
        )
