"""Real image datasets, offline: handwritten digits and MNIST-style IDX files.

Every dataset here is a `minitorch.utils.data.Dataset` whose example `k` is `(image, label)`:
`image` a `float32` tensor of shape `(1, H, W)` with values in $[0, 1]$ (what torchvision's
`ToTensor()` makes of a picture) and `label` an `int`. `transform(image)` and
`target_transform(label)`, when given, are applied to them. Nothing is ever downloaded.

- `Digits`: the 1,797 8x8 handwritten digits bundled with scikit-learn
  (`sklearn.datasets.load_digits`, 16 grey levels), split once and for all into 1,438
  training and 359 test images (every fifth digit is a test one).
- `MNIST`, `FashionMNIST`: the four IDX files of each, laid out as torchvision does:
  `root/MNIST/raw/train-images-idx3-ubyte` (or `.gz`), `train-labels-idx1-ubyte`,
  `t10k-images-idx3-ubyte`, `t10k-labels-idx1-ubyte`.

An IDX file is a big-endian header — the magic number $2048 + d$ for unsigned bytes in $d$
dimensions (2051 for images, 2049 for labels), then the $d$ sizes as 4-byte integers —
followed by the bytes in row-major order. `read_idx` checks all of it.
"""

from __future__ import annotations

import gzip
import math
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..tensors.creation import from_numpy
from ..utils.data import Dataset

IDX_UNSIGNED_BYTE = 0x08
IMAGES_MAGIC = 2051
LABELS_MAGIC = 2049
GZIP_MAGIC = b"\x1f\x8b"


def read_idx(path: str | Path, magic: int) -> np.ndarray:
    """The `uint8` array stored in the IDX file at `path` (gzipped when its name ends in .gz),
    which must carry the magic number `magic`; `ValueError` naming the file if it does not."""
    path = Path(path)
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    except (OSError, EOFError, zlib.error) as error:
        if isinstance(error, FileNotFoundError):
            raise
        raise ValueError(f"{path}: not a readable gzip file ({error})") from error
    ndim = magic - (IDX_UNSIGNED_BYTE << 8)
    if len(raw) < 4:
        raise ValueError(f"{path}: truncated: {len(raw)} bytes, too short for an IDX header")
    found = int.from_bytes(raw[:4], "big")
    if raw[:2] == GZIP_MAGIC:
        raise ValueError(f"{path}: gzip data in a file not named .gz: rename it {path.name}.gz")
    if found != magic:
        raise ValueError(
            f"{path}: magic number {found}, expected {magic} "
            f"(an IDX file of unsigned bytes in {ndim} dimension{'s' if ndim > 1 else ''})"
        )
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"{path}: truncated: {len(raw)} bytes, the IDX header needs {header}")
    shape = tuple(int.from_bytes(raw[4 + 4 * k : 8 + 4 * k], "big") for k in range(ndim))
    expected, found_bytes = math.prod(shape), len(raw) - header
    if found_bytes != expected:
        problem = "truncated" if found_bytes < expected else "trailing data"
        dims = " x ".join(map(str, shape))
        raise ValueError(
            f"{path}: {problem}: {found_bytes} bytes of data, the header's sizes {dims} "
            f"need {expected}"
        )
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(shape)


class ImageDataset(Dataset):
    """Images `data` (`uint8`, `(N, H, W)`, 0 to `max_value`) and labels `targets` (`(N,)`)."""

    classes: list[str]

    def __init__(
        self,
        data: np.ndarray,
        targets: np.ndarray,
        max_value: float,
        transform: Callable | None,
        target_transform: Callable | None,
    ) -> None:
        self.data = data
        self.targets = targets
        self.max_value = max_value
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index: int):
        """`(image, label)`: image $x / x_{max}$ as a `(1, H, W)` float32 tensor, label an int."""
        pixels = self.data[index].astype(np.float32) / np.float32(self.max_value)
        image = from_numpy(pixels[np.newaxis])
        label = int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label


def digits_split(count: int) -> np.ndarray:
    """Whether each of `count` digits is a test image: every fifth one (indices 4, 9, 14, ...),
    so the test set spreads over all the writers, and the split never changes."""
    return np.arange(count) % 5 == 4


class Digits(ImageDataset):
    """scikit-learn's 1,797 handwritten 8x8 digits (no download: the package ships them).

    `train=True` gives the 1,438 training images, `train=False` the 359 test ones
    (`digits_split`). Images are `(1, 8, 8)` float32 tensors in $[0, 1]$ (grey level / 16).

    >>> test = Digits(train=False)
    >>> len(test), test[0][0].shape, test[0][1]
    (359, minitorch.Size([1, 8, 8]), 4)
    """

    classes = [str(digit) for digit in range(10)]

    def __init__(
        self,
        train: bool = True,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
    ) -> None:
        # scikit-learn is slow to import: only Digits needs it (as graph.py imports
        # matplotlib only to draw), not every user of the toy sets in this package.
        from sklearn.datasets import load_digits

        bundle = load_digits()
        keep = digits_split(len(bundle.target)) != train
        images = bundle.images[keep].astype(np.uint8)
        super().__init__(images, bundle.target[keep], 16.0, transform, target_transform)
        self.train = train


class MNIST(ImageDataset):
    """MNIST read from the four IDX files in `root/MNIST/raw/`, as torchvision lays them out
    (each file gzipped or not). `train=True`: the 60,000 training images, else the 10,000 test
    ones; each is a `(1, 28, 28)` float32 tensor in $[0, 1]$ (grey level / 255) and an int
    label. `download=True` never downloads: it loads the files when they are there and
    otherwise raises `RuntimeError` saying where to put them.
    """

    folder = "MNIST"
    source = "https://ossci-datasets.s3.amazonaws.com/mnist/ (torchvision's mirror)"
    classes = [  # torchvision's names: "0 - zero", "1 - one", ...
        f"{digit} - {name}"
        for digit, name in enumerate("zero one two three four five six seven eight nine".split())
    ]
    image_size = (28, 28)
    files = {
        True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
        False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
    }

    def __init__(
        self,
        root: str | Path,
        train: bool = True,
        download: bool = False,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
    ) -> None:
        self.root = Path(root)
        self.train = train
        missing = [name for name in self.files[train] if self.find(name) is None]
        if missing:
            raise (RuntimeError if download else FileNotFoundError)(self.where_to_put(missing))
        images_name, labels_name = self.files[train]
        images = read_idx(self.find(images_name), IMAGES_MAGIC)
        labels = read_idx(self.find(labels_name), LABELS_MAGIC)
        self.check(images, labels)
        super().__init__(images, labels.astype(np.int64), 255.0, transform, target_transform)

    @property
    def raw_folder(self) -> Path:
        return self.root / self.folder / "raw"

    def find(self, name: str) -> Path | None:
        """The file `name` in the raw folder, uncompressed or else gzipped; None if neither."""
        for candidate in (self.raw_folder / name, self.raw_folder / f"{name}.gz"):
            if candidate.is_file():
                return candidate
        return None

    def where_to_put(self, missing: list[str]) -> str:
        names = ", ".join(name for pair in self.files.values() for name in pair)
        return (
            f"{type(self).__name__}: {', '.join(missing)} (or .gz) not found in "
            f"{self.raw_folder.resolve()}. minitorch never downloads data sets: put the four IDX "
            f"files {names} there (gzipped or not), from {self.source}; a torchvision root that "
            "already holds them works as it is."
        )

    def check(self, images: np.ndarray, labels: np.ndarray) -> None:
        """The images are `image_size`, one label each, every label a class index."""
        images_path, labels_path = (self.find(name) for name in self.files[self.train])
        if images.shape[1:] != self.image_size:
            raise ValueError(
                f"{images_path}: images of {images.shape[1]} x {images.shape[2]} pixels, "
                f"{type(self).__name__} has {self.image_size[0]} x {self.image_size[1]}"
            )
        if len(labels) != len(images):
            raise ValueError(
                f"{labels_path}: {len(labels)} labels for the {len(images)} images of {images_path}"
            )
        wrong = np.flatnonzero(labels >= len(self.classes))
        if len(wrong):
            raise ValueError(
                f"{labels_path}: label {labels[wrong[0]]} at index {wrong[0]} is not one of "
                f"the {len(self.classes)} classes 0 to {len(self.classes) - 1}"
            )


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's 28x28 pictures of clothes, 10 classes), read exactly as
    `MNIST` from the same four file names in `root/FashionMNIST/raw/`."""

    folder = "FashionMNIST"
    source = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"
    classes = [
        "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
        "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
    ]  # fmt: skip
