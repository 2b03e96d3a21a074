"""Module 2: every tensor operation, as PyTorch names it, one module per family.

Each differentiable operation is a `Function` (forward and backward side by
side, an `Op` of `functions.py`) followed by the function users call:
`unary.py` (elementwise functions of one tensor, declared in one table),
`arithmetic.py`, `comparisons.py`, `reductions.py`, `linalg.py`, `views.py`,
`copies.py`, `indexing.py` (`t[0]`) and `inplace.py` (`t.add_(...)`, `+=`),
and more families (ARCHITECTURE.md lists them). The function users call
carries its `@public(...)` declaration (`public.py`), and `api.py` builds the
`minitorch`, `Tensor` and `nn.functional` names from the declarations.
"""
