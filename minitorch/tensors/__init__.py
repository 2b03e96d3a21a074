"""Module 2: a tensor's data and the tools every operation is built from.

`device.py` (where storage lives), `base.py` (`TensorBase`: layout, dtype,
device and autograd fields), `format.py` (printing as PyTorch prints),
`creation.py` (`tensor`, `zeros`, `rand`, ...), `kernels.py` (running a
backend's kernels on tensors: allocation, dtype promotion, map/zip/reduce) and
`shapes.py` (PyTorch's shape rules and errors). Nothing here records a graph:
autograd (`minitorch.autograd`) and the operations (`minitorch.ops`) sit above.
"""
