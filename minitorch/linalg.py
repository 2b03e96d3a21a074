"""`minitorch.linalg`, PyTorch's `torch.linalg`: norms (the basics).

`linalg.norm(a)` is the 2-norm of all elements; `linalg.vector_norm(a, ord, dim)`
any vector $p$-norm over `dim` (the functions live in `ops/statistics.py`).
"""

from .ops.statistics import linalg_norm as norm
from .ops.statistics import vector_norm

__all__ = ["norm", "vector_norm"]
