"""`minitorch.backends.cudnn` and `minitorch.backends.mps`: the flags PyTorch scripts set.

minitorch has no cuDNN and no Apple GPU: the cuDNN flags (`benchmark`,
`deterministic`, `enabled`, `allow_tf32`) are accepted and kept, and change no
kernel (minitorch's are deterministic, with no autotuning); `mps.is_available()`
is False.
"""

from __future__ import annotations


def unavailable() -> bool:
    """False: minitorch's GPU kernels are its own, neither cuDNN's nor Apple's (MPS)."""
    return False


class CudnnFlags:
    """The `torch.backends.cudnn` flags: stored, with no effect on minitorch's kernels."""

    def __init__(self) -> None:
        self.enabled = True
        self.benchmark = False
        self.deterministic = False
        self.allow_tf32 = True

    is_available = staticmethod(unavailable)

    @staticmethod
    def version() -> None:
        """None: there is no cuDNN."""
        return None


class MpsFlags:
    """`torch.backends.mps`: no Apple GPU backend."""

    is_available = is_built = staticmethod(unavailable)


cudnn = CudnnFlags()
mps = MpsFlags()
