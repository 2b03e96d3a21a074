"""Imported in the forkserver's server process only (see `workers.default_context`): it
collates a few tiny batches, so that the kernels `default_collate` runs are loaded there
once, from the on-disk cache, and each worker forked from the server starts with them
instead of loading them again for its first batch.

Tiny tensors run the serial kernels only (below the backend's parallel threshold), so the
server starts no OpenMP threads and stays safe to fork.
"""

from ...dtypes import bool_, float32, float64, int64
from ...tensors.creation import tensor
from .collate import default_collate

for kind in (float32, float64, int64, bool_):
    default_collate([tensor([1, 0], dtype=kind), tensor([0, 1], dtype=kind)])
    default_collate([tensor(1, dtype=kind), tensor(0, dtype=kind)])
default_collate([(1, 0.5), (2, 1.5)])
