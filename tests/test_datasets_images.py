"""The image datasets of `minitorch.datasets`: IDX files written here (plain and gzipped, valid
and corrupt) read as torchvision lays them out, and scikit-learn's bundled digits."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import pytest
from sklearn import datasets as sklearn_datasets

import minitorch
from minitorch.datasets import MNIST, Digits, FashionMNIST, read_idx
from minitorch.utils.data import DataLoader

TRAIN = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")
TEST = ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


def idx_bytes(array: np.ndarray, magic: int | None = None) -> bytes:
    """The IDX encoding of a uint8 array: magic 0x0800 + ndim, sizes, then the bytes."""
    magic = 0x0800 + array.ndim if magic is None else magic
    return struct.pack(f">I{array.ndim}I", magic, *array.shape) + array.tobytes()


def write(path: Path, content: bytes, gzipped: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if gzipped:
        path = path.with_name(path.name + ".gz")
        content = gzip.compress(content)
    path.write_bytes(content)
    return path


def sample(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(count, 28, 28), dtype=np.uint8)
    return images, rng.integers(0, 10, size=count, dtype=np.uint8)


def make_root(tmp_path: Path, folder: str = "MNIST", gzipped: bool = False) -> dict:
    """A root holding the four files (3 training and 2 test images); returns the arrays."""
    arrays = {True: sample(3, 0), False: sample(2, 1)}
    for train, names in ((True, TRAIN), (False, TEST)):
        for name, array in zip(names, arrays[train], strict=True):
            write(tmp_path / folder / "raw" / name, idx_bytes(array), gzipped)
    return arrays


@pytest.mark.parametrize("gzipped", [False, True])
@pytest.mark.parametrize("train", [True, False])
def test_mnist_examples_are_the_files_images_scaled_to_one(tmp_path, gzipped, train):
    images, labels = make_root(tmp_path, gzipped=gzipped)[train]
    data = MNIST(tmp_path, train=train)
    assert len(data) == len(labels)
    for k in range(len(labels)):
        image, label = data[k]
        assert image.dtype == minitorch.float32 and tuple(image.shape) == (1, 28, 28)
        np.testing.assert_allclose(image.numpy()[0], images[k] / 255.0, rtol=1e-6)
        assert type(label) is int and label == labels[k]


def test_fashion_mnist_reads_its_own_folder(tmp_path):
    images, labels = make_root(tmp_path, folder="FashionMNIST")[True]
    data = FashionMNIST(tmp_path)
    assert [data[k][1] for k in range(3)] == labels.tolist()
    assert data.classes[9] == "Ankle boot"
    with pytest.raises(FileNotFoundError, match="MNIST"):
        MNIST(tmp_path)


def test_transforms_apply_to_the_image_and_the_label(tmp_path):
    images, labels = make_root(tmp_path)[True]
    data = MNIST(tmp_path, transform=lambda x: x * 2 - 1, target_transform=lambda y: y + 100)
    image, label = data[1]
    np.testing.assert_allclose(image.numpy()[0], images[1] / 255.0 * 2 - 1, rtol=1e-5, atol=1e-6)
    assert label == labels[1] + 100


def test_a_loader_batches_images_and_int64_labels(tmp_path):
    images, labels = make_root(tmp_path)[True]
    batch_images, batch_labels = next(iter(DataLoader(MNIST(tmp_path), batch_size=2)))
    assert tuple(batch_images.shape) == (2, 1, 28, 28)
    assert batch_labels.dtype == minitorch.int64 and batch_labels.tolist() == labels[:2].tolist()


def test_missing_files_say_where_to_put_which_files(tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        MNIST(tmp_path)
    message = str(error.value)
    assert str((tmp_path / "MNIST" / "raw").resolve()) in message
    for name in TRAIN + TEST:
        assert name in message
    assert "never downloads" in message


def test_download_fails_fast_without_network_unless_the_files_are_there(tmp_path):
    with pytest.raises(RuntimeError, match="never downloads.*t10k-labels-idx1-ubyte"):
        MNIST(tmp_path, download=True)
    make_root(tmp_path)
    assert len(MNIST(tmp_path, train=False, download=True)) == 2


def test_read_idx_reads_any_number_of_dimensions(tmp_path):
    array = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    path = write(tmp_path / "cube", idx_bytes(array))
    np.testing.assert_array_equal(read_idx(path, 2051), array)


CORRUPT = {
    "wrong magic": (lambda images, labels: (idx_bytes(images, 2049), idx_bytes(labels)), 0,
                    "magic number 2049, expected 2051"),
    "labels as images": (lambda images, labels: (idx_bytes(images), idx_bytes(images)), 1,
                         "magic number 2051, expected 2049"),
    "empty": (lambda images, labels: (b"", idx_bytes(labels)), 0, "truncated: 0 bytes"),
    "short header": (lambda images, labels: (idx_bytes(images)[:10], idx_bytes(labels)), 0,
                     "truncated: 10 bytes, the IDX header needs 16"),
    "truncated data": (lambda images, labels: (idx_bytes(images)[:-5], idx_bytes(labels)), 0,
                       r"truncated: 2347 bytes of data, the header's sizes 3 x 28 x 28 need 2352"),
    "trailing data": (lambda images, labels: (idx_bytes(images), idx_bytes(labels) + b"\0"), 1,
                      "trailing data: 4 bytes of data, the header's sizes 3 need 3"),
    "count mismatch": (lambda images, labels: (idx_bytes(images), idx_bytes(labels[:2])), 1,
                       "2 labels for the 3 images"),
    "image size": (lambda images, labels: (idx_bytes(images[:, :27]), idx_bytes(labels)), 0,
                   "images of 27 x 28 pixels, MNIST has 28 x 28"),
    "label range": (lambda images, labels: (idx_bytes(images), idx_bytes(labels + 10)), 1,
                    "label 1[0-9] at index 0 is not one of the 10 classes 0 to 9"),
}  # fmt: skip


@pytest.mark.parametrize("gzipped", [False, True])
@pytest.mark.parametrize("case", CORRUPT)
def test_corrupt_files_are_rejected_naming_the_file_and_the_fault(tmp_path, case, gzipped):
    corrupt, culprit, fault = CORRUPT[case]
    images, labels = sample(3, 2)
    paths = [
        write(tmp_path / "MNIST" / "raw" / name, content, gzipped)
        for name, content in zip(TRAIN, corrupt(images, labels), strict=True)
    ]
    with pytest.raises(ValueError, match=fault) as error:
        MNIST(tmp_path)
    assert str(error.value).startswith(str(paths[culprit]))


def test_a_gzipped_file_without_the_gz_name_says_to_rename_it(tmp_path):
    images, labels = sample(3, 4)
    write(tmp_path / "MNIST" / "raw" / TRAIN[0], gzip.compress(idx_bytes(images)))
    write(tmp_path / "MNIST" / "raw" / TRAIN[1], idx_bytes(labels))
    with pytest.raises(ValueError, match=f"not named .gz: rename it {TRAIN[0]}.gz"):
        MNIST(tmp_path)


def test_a_broken_gzip_file_is_rejected_naming_it(tmp_path):
    images, labels = sample(3, 3)
    path = write(tmp_path / "MNIST" / "raw" / TRAIN[0], idx_bytes(images), gzipped=True)
    path.write_bytes(path.read_bytes()[:-20])
    write(tmp_path / "MNIST" / "raw" / TRAIN[1], idx_bytes(labels))
    with pytest.raises(ValueError, match="not a readable gzip file") as error:
        MNIST(tmp_path)
    assert str(error.value).startswith(str(path))


# ---- scikit-learn's digits ---------------------------------------------------------------------


def test_digits_split_into_disjoint_train_and_test_sets_covering_all():
    bundle = sklearn_datasets.load_digits()
    train, test = Digits(train=True), Digits(train=False)
    assert (len(train), len(test)) == (1438, 359)
    # every fifth digit is a test digit: test k is digit 5k + 4, train k is 5(k // 4) + k % 4
    for data, index in ((test, lambda k: 5 * k + 4), (train, lambda k: 5 * (k // 4) + k % 4)):
        for k in (0, 1, 2, 3, 4, len(data) - 1):
            image, label = data[k]
            assert tuple(image.shape) == (1, 8, 8) and image.dtype == minitorch.float32
            np.testing.assert_allclose(image.numpy()[0], bundle.images[index(k)] / 16.0)
            assert label == bundle.target[index(k)]
    assert sorted(np.concatenate([train.targets, test.targets])) == sorted(bundle.target)


def test_digits_has_every_class_in_both_sets():
    for train in (True, False):
        assert set(Digits(train=train).targets.tolist()) == set(range(10))
