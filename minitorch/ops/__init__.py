"""Module 2: every tensor operation, as PyTorch names it, one module per family.

Each differentiable operation is a `Function` (forward and backward side by
side, an `Op` of `functions.py`) followed by the function users call:
`unary.py` (elementwise functions of one tensor, declared in one table),
`arithmetic.py`, `comparisons.py`, `reductions.py`, `linalg.py`, `views.py`,
`copies.py`, `indexing.py` (`t[0]`) and `inplace.py` (`t.add_(...)`, `+=`).
`api.py` lists the functions of the `minitorch` namespace.
"""
