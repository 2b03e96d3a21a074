"""Module 3b: the GPU backend, `numba.cuda` kernels over device memory (`cuda` tensors).

- `driver.py`: whether kernels can run here (the simulator, or a driver and numba.cuda);
- `compiler.py`: the index and scalar functions compiled as device functions;
- `cuda_ops.py`: the kernels of the exercises (map, zip, reduce, matmul: tasks 3.3-3.5);
- `elementwise.py`, `reductions.py`, `indexing.py`: where and fill, the shuffled reduce,
  arg_reduce and scan, take and put;
- `sorting.py`, `folds.py`: sort as merge rounds of a thread per element, and the folding
  put, which sorts its positions with them;
- `matmul.py`: the register-blocked matmul that products run;
- `windows.py`: convolution and max pooling, forward and backward (the optional window
  kernels);
- `kernels.py`: the table of every kernel and its launches (the PTX check reads it);
- `memory.py`: the caching allocator of device storages;
- `backend.py`: `CudaBackend`, which allocates device memory and launches them.

`numba.cuda` is imported only where kernels can run (`driver.available()`).
"""

from .backend import CudaBackend
from .driver import available

__all__ = ["CudaBackend", "available"]
