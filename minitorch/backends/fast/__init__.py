"""Module 3, under the hood: the tuned Numba kernels of `FastBackend` (name `"fast"`), the default.

They compute what the plain kernels of `fast_ops.py` (the exercises) compute,
with the tuning that makes them compete with NumPy. One file per kernel family:

- `layout.py`: what every kernel needs about layouts (sizes, chunks, dense and
  same-layout tests, unsigned storage positions);
- `elementwise.py`: map, zip, where (strides walked by rows, flat fast paths);
- `reductions.py`: reduce, arg_reduce, scan (segments and column blocks);
- `indexing.py`: take, put, put_reduce, scatter_along (reads and writes at
  computed positions);
- `sorting.py`: a stable merge sort of each line;
- `matmul.py`: a packed `b` and blocks of the output in vector registers
  (`register_block.py`), or rows for small products;
- `transcendentals.py`: exp, log, tanh and sigmoid as polynomials LLVM vectorises;
- `windows.py`: one-pass convolution and max pooling (optional kernels);
- `adam.py`: the fused Adam step (an optional kernel);
- `training.py`: softmax cross-entropy in one pass each way and ReLU's gradient in one
  pass (optional kernels);
- `threads.py`: starting Numba's worker threads, asleep when idle, and one
  parallel launch at a time;
- `backend.py`: `FastBackend`, which compiles each body serial and parallel and
  picks one by the size of the work.

`NUMBA_DISABLE_JIT=1` runs every kernel as plain Python, for debugging.
"""

from .backend import FastBackend

__all__ = ["FastBackend"]
