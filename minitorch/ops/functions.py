"""What the `Function`s of `minitorch.ops` share: the `Op` base class and PyTorch's node names.

Every operation of minitorch is an `Op`: a `Function` (forward and backward
side by side, see `autograd/function.py`) whose graph node is named as
PyTorch names it. Most names follow one rule, the class name and
`Backward0` (`Add` records `AddBackward0`); the others, which depend on how
the operation was called, are all in the table `NODE_NAMES`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..autograd.function import Function
from ..tensors.base import TensorBase
from ..tensors.shapes import normalize_key


def numbered(name: str, variant_one: bool) -> str:
    """`NameBackward1` or `NameBackward0`: PyTorch numbers the overloads of an operation."""
    return f"{name}Backward{1 if variant_one else 0}"


def index_node_name(a, key) -> str:
    """`a[key]` for a one-part key: `a[0]` selects, `a[1:]` slices, `a[None]` unsqueezes."""
    parts = [k for k in normalize_key(key) if k is not Ellipsis]
    kinds = {int: "Select", slice: "Slice", type(None): "Unsqueeze"}
    kind = kinds.get(type(parts[-1]), "Select") if parts else "Alias"
    return kind + "Backward0"


MATMUL_NODES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0"}

# `Restride`'s `kind` is the PyTorch operation (overload) it stands for.
RESTRIDE_NODES = {
    "squeeze": "SqueezeBackward0",
    "squeeze.dim": "SqueezeBackward1",
    "squeeze_.dim": "SqueezeBackward4",  # matmul's vector @ matrix squeezes in place
    "unsqueeze": "UnsqueezeBackward0",
}

# The node names that are not `<class name>Backward0`: a name, or the rule that picks one
# from the inputs and settings of the call (what `Fn.apply` was given).
NODE_NAMES: dict[str, str | Callable[..., str]] = {
    # a number as an operand is another PyTorch overload: rsub(Tensor, Scalar), ...
    "Rsub": "RsubBackward1",
    "Rpow": "PowBackward2",
    "Pow": lambda a, b: numbered("Pow", isinstance(b, TensorBase)),
    "Remainder": lambda a, b: numbered("Remainder", isinstance(b, TensorBase)),
    "Clamp": "ClampBackward1",
    # reductions of all elements (0) or along `dim` (1)
    "Sum": lambda a, dim=None, **settings: numbered("Sum", dim is not None),
    "Mean": lambda a, dim=None, **settings: numbered("Mean", dim is not None),
    "Prod": lambda a, dim=None, **settings: numbered("Prod", dim is not None),
    "MaxDim": lambda a, largest, **settings: "MaxBackward0" if largest else "MinBackward0",
    "MaxAll": lambda a, largest: "MaxBackward1" if largest else "MinBackward1",
    "MatMul": lambda a, b: MATMUL_NODES.get((a.ndim, b.ndim), "BmmBackward0"),
    # views and copies: `kind` is the PyTorch operation (View or UnsafeView, Permute,
    # Transpose or T, Clone or ToCopy)
    "View": lambda a, shape, kind="View": kind + "Backward0",
    "Permute": lambda a, dims, kind="Permute": kind + "Backward0",
    "Copy": lambda a, dtype, kind="Clone", **settings: kind + "Backward0",
    "Restride": lambda a, shape, strides, kind: RESTRIDE_NODES[kind],
    "Index": index_node_name,
    "AdvancedIndex": "IndexBackward0",
    # scatter of a tensor (0) or of a number (1); with adding, scatter_add
    "Scatter": lambda a, src, dim, index, accumulate: (
        "ScatterAddBackward0" if accumulate else numbered("Scatter", src.ndim == 0)
    ),
    # Index's backward, recorded by backward(create_graph=True)
    "Unindex": lambda grad, shape, key: index_node_name(grad, key)[: -len("0")] + "Backward0",
    "CopySlices": "minitorch::autograd::CopySlices",
    # losses and normalization: the 2-D (spatial) negative log-likelihood has its own node,
    # and C++ code dividing by a number records DivBackward1
    "NllLoss": lambda *inputs, kind, **settings: kind + "Backward0",
    "DivNumber": "DivBackward1",
    # more math (elementwise.py), statistics, sorting and joins
    "RoundDecimals": "RoundBackward1",
    "Fmod": lambda a, b: numbered("Fmod", isinstance(b, TensorBase)),
    "Lerp": lambda a, b, weight=None: numbered("Lerp", isinstance(weight, TensorBase)),
    "Sort": lambda a, kind="SortBackward0", **settings: kind,
    "Var": lambda a, root, **settings: "StdBackward0" if root else "VarBackward0",
    "Amax": lambda a, largest, **settings: "AmaxBackward0" if largest else "AminBackward0",
    "VectorNorm": "LinalgVectorNormBackward0",
    "MedianAll": "MedianBackward0",
    "Cat": lambda *tensors, dim, stack=False: "StackBackward0" if stack else "CatBackward0",
    "Piece": lambda a, key, kind: kind + "Backward0",
    "Triangle": lambda a, diagonal, lower: "TrilBackward0" if lower else "TriuBackward0",
    "Diagonal": lambda a, copy=False, **settings: "DiagonalBackward0" + ("_copy" if copy else ""),
}


class Op(Function):
    """An operation of minitorch: a `Function` whose node has PyTorch's name."""

    @classmethod
    def node_name(cls, *inputs, **settings) -> str:
        """`NODE_NAMES`' entry for this class, or `<class name>Backward0`."""
        name = NODE_NAMES.get(cls.__name__)
        if name is None:
            return super().node_name(*inputs, **settings)
        return name if isinstance(name, str) else name(*inputs, **settings)
