"""The tensor functions of the `minitorch` namespace (`minitorch.add`, `minitorch.sum`, ...).

Each is defined in its family's module, next to the `Function` that computes
it: `unary.py` ($e^a$, $\\ln a$, ...), `arithmetic.py`, `comparisons.py`,
`reductions.py`, `linalg.py`, `views.py`, `copies.py`. This is the one list
of them that `minitorch` and `minitorch.nn.functional` import. Names that
would shadow Python built-ins have a `tensor_` prefix (`tensor_sum`,
`tensor_max`, ...) and are exported under PyTorch's name by `minitorch`.
"""

from .arithmetic import (
    add,
    div,
    floor_divide,
    mul,
    remainder,
    sub,
    tensor_pow,
    true_divide,
)
from .comparisons import (
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    clamp,
    clip,
    eq,
    ge,
    gt,
    le,
    logical_and,
    logical_not,
    logical_or,
    lt,
    maximum,
    minimum,
    ne,
)
from .copies import (
    clone,
    detach,
)
from .gather import (
    gather,
    index_add,
    index_fill,
    index_select,
    scatter,
    scatter_add,
    tensor_take,
)
from .keywords import torch_keywords
from .linalg import (
    dot,
    matmul,
    mm,
)
from .reductions import (
    argmax,
    argmin,
    log_softmax,
    mean,
    softmax,
    tensor_all,
    tensor_any,
    tensor_max,
    tensor_min,
    tensor_prod,
    tensor_sum,
)
from .selection import (
    argwhere,
    bincount,
    histc,
    masked_fill,
    masked_select,
    nonzero,
    searchsorted,
    unique,
    where,
)
from .unary import (
    exp,
    log,
    neg,
    negative,
    reciprocal,
    relu,
    sigmoid,
    sqrt,
    tanh,
    tensor_abs,
)
from .views import (
    broadcast_to,
    expand,
    flatten,
    permute,
    reshape,
    squeeze,
    t,
    transpose,
    unsqueeze,
)

# The keyword forms PyTorch also accepts: axis=/keepdims=, input=/other=, out= (keywords.py)
(
    add, sub, mul, div, true_divide, floor_divide, remainder, tensor_pow, matmul, mm, dot,
    maximum, minimum, eq, ne, lt, le, gt, ge,
) = (
    torch_keywords(f, operands=2)
    for f in (
        add, sub, mul, div, true_divide, floor_divide, remainder, tensor_pow, matmul, mm, dot,
        maximum, minimum, eq, ne, lt, le, gt, ge,
    )
)  # fmt: skip
(
    exp, log, sqrt, neg, negative, tanh, sigmoid, relu, tensor_abs, reciprocal, clamp, clip,
    tensor_sum, mean, tensor_prod, tensor_max, tensor_min, argmax, argmin, tensor_all,
    tensor_any, softmax, log_softmax,
) = (
    torch_keywords(f, operands=1)
    for f in (
        exp, log, sqrt, neg, negative, tanh, sigmoid, relu, tensor_abs, reciprocal, clamp, clip,
        tensor_sum, mean, tensor_prod, tensor_max, tensor_min, argmax, argmin, tensor_all,
        tensor_any, softmax, log_softmax,
    )
)  # fmt: skip

__all__ = [
    "exp",
    "log",
    "neg",
    "negative",
    "reciprocal",
    "relu",
    "sigmoid",
    "sqrt",
    "tanh",
    "tensor_abs",
    "add",
    "div",
    "floor_divide",
    "mul",
    "remainder",
    "sub",
    "tensor_pow",
    "true_divide",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "clamp",
    "clip",
    "eq",
    "ge",
    "gt",
    "le",
    "logical_and",
    "logical_not",
    "logical_or",
    "lt",
    "maximum",
    "minimum",
    "ne",
    "where",
    "argmax",
    "argmin",
    "log_softmax",
    "mean",
    "softmax",
    "tensor_all",
    "tensor_any",
    "tensor_max",
    "tensor_min",
    "tensor_prod",
    "tensor_sum",
    "dot",
    "matmul",
    "mm",
    "broadcast_to",
    "expand",
    "flatten",
    "permute",
    "reshape",
    "squeeze",
    "t",
    "transpose",
    "unsqueeze",
    "clone",
    "detach",
    # gather/scatter and selection (gather.py, selection.py)
    "gather",
    "index_add",
    "index_fill",
    "index_select",
    "scatter",
    "scatter_add",
    "tensor_take",
    "argwhere",
    "bincount",
    "histc",
    "masked_fill",
    "masked_select",
    "nonzero",
    "searchsorted",
    "unique",
]
