"""Data sets, none downloaded: module 1's 2-D toy sets (`toy.py`) and real images
(`images.py`: handwritten digits bundled with scikit-learn, MNIST and Fashion-MNIST IDX
files put where torchvision keeps them).

`toy.py` imports nothing from minitorch (the scalar scripts of module 1 use it); `images.py`
builds tensors through the public API, so the package sits above `minitorch.utils`.
"""

from .images import MNIST, Digits, FashionMNIST, read_idx
from .toy import (
    DATASETS,
    SPIRAL_R0,
    SPIRAL_R1,
    SPIRAL_TURNS,
    Dataset,
    circle,
    diag,
    simple,
    spiral,
    spiral_point,
    split,
    xor,
)

__all__ = [
    "DATASETS",
    "MNIST",
    "SPIRAL_R0",
    "SPIRAL_R1",
    "SPIRAL_TURNS",
    "Dataset",
    "Digits",
    "FashionMNIST",
    "circle",
    "diag",
    "read_idx",
    "simple",
    "spiral",
    "spiral_point",
    "split",
    "xor",
]
