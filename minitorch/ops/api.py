"""The public operations, gathered from their `@public` declarations (`public.py`).

Importing the families below runs their declarations; the tables made from
them are what the upper layers take their operations from:

- `TORCH_FUNCTIONS`, the `minitorch.<name>` functions (`minitorch/__init__.py`);
- `TENSOR_METHODS`, the methods of `minitorch.Tensor` (`_tensor.py`);
- `FUNCTIONAL`, the `minitorch.nn.functional.<name>` functions (`nn/functional.py`).

A function with keyword forms (`keywords=`) is exported wrapped by
`torch_keywords`; an in-place form (`inplace=True`) is made here by
`in_place_form`. A name made twice for one table is an error at import.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from . import (  # noqa: F401 -- imported for their declarations
    activations,
    adaptive_unpool_lp_pooling,
    aliases,
    arithmetic,
    comparisons,
    compositions,
    convolution,
    copies,
    copy_writes,
    ctc,
    distances,
    dropouts,
    einsum,
    elementwise,
    elementwise_compositions,
    embedding_bags,
    factories,
    fractional_pooling,
    frequencies,
    gamma_functions,
    gather,
    grid_sampling,
    index_writes,
    indexing,
    inplace,
    integer_math,
    interpolation,
    joins,
    layouts,
    likelihood_losses,
    linalg,
    losses,
    margin_losses,
    normalization,
    normalization_groups,
    padding,
    pooling,
    products,
    quantiles,
    queries,
    random_fills,
    reductions,
    regression_losses,
    relaxed_sampling,
    running,
    scatter_reduce,
    selection,
    shuffles,
    sorting,
    special_functions,
    statistics,
    strided_views,
    transposed_convolution,
    unary,
    views,
)
from .inplace import inplace as write_in_place
from .keywords import torch_keywords
from .public import DECLARATIONS, Declaration


def exported(declaration: Declaration) -> Callable:
    """The function users call: with PyTorch's keyword forms where it declares them."""
    if declaration.keywords is None:
        return declaration.function
    return torch_keywords(declaration.function, operands=declaration.keywords)


def in_place_form(operation: Callable, name: str) -> Callable:
    """`name(a, ...)`: $a \\leftarrow$ `operation(a, ...)` written into `a` (see `inplace`)."""

    def in_place(a, *args, **kwargs):
        if kwargs:
            return write_in_place(a, lambda x, *rest: operation(x, *rest, **kwargs), *args)
        return write_in_place(a, operation, *args)

    in_place.__name__ = in_place.__qualname__ = name
    in_place.__module__ = operation.__module__
    in_place.__signature__ = inspect.signature(operation)
    in_place.__doc__ = f"In-place version of `{name[:-1]}`: the result is written into the tensor."
    return in_place


def add_name(table: dict[str, Callable], name: str, function: Callable) -> None:
    if name in table:
        raise ValueError(f"{name!r} is made twice from the declarations in ops/")
    table[name] = function


def build_tables() -> tuple[dict[str, Callable], dict[str, Callable], dict[str, Callable]]:
    """(minitorch functions, Tensor methods, nn.functional functions) from the declarations."""
    torch_functions: dict[str, Callable] = {}
    tensor_methods: dict[str, Callable] = {}
    functional: dict[str, Callable] = {}
    for declaration in DECLARATIONS:
        function = exported(declaration)
        names = (declaration.name, *declaration.aliases)
        for name in () if declaration.only_inplace else names:
            if declaration.torch:
                add_name(torch_functions, name, function)
            if declaration.functional:
                add_name(functional, name, function)
        if declaration.method is None:
            continue
        for name in (declaration.method, *declaration.aliases):
            if not declaration.only_inplace:
                add_name(tensor_methods, name, function)
            if declaration.inplace:
                form = in_place_form(declaration.function, name + "_")
                add_name(tensor_methods, name + "_", form)
                if declaration.torch:
                    add_name(torch_functions, name + "_", form)
    return torch_functions, tensor_methods, functional


TORCH_FUNCTIONS, TENSOR_METHODS, FUNCTIONAL = build_tables()
