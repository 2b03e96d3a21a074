"""Module 2: every tensor operation, as PyTorch names it.

Each differentiable operation is a `Function` (forward and backward side by
side) with the function users call next to it; `minitorch.add`, `t.exp()`,
`t[0]` and `t.add_(...)` all land here.
"""
