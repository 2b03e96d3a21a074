"""minitorch.utils.data against torch.utils.data: TensorDataset's examples, length and errors.

Skipped when torch is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import Dataset, TensorDataset

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

FEATURES = np.arange(12.0).reshape(4, 3)
LABELS = np.array([1, 0, 0, 1])


def both_datasets():
    ours = TensorDataset(minitorch.tensor(FEATURES), minitorch.tensor(LABELS))
    theirs = torch.utils.data.TensorDataset(torch.tensor(FEATURES), torch.tensor(LABELS))
    return ours, theirs


def test_len_is_the_first_dimension_as_in_torch():
    ours, theirs = both_datasets()
    assert len(ours) == len(theirs) == 4


@pytest.mark.parametrize("index", [0, 2, -1, slice(1, 3), slice(None, None, 2)])
def test_an_example_is_the_tuple_of_rows_as_in_torch(index):
    ours, theirs = both_datasets()
    got, expected = ours[index], theirs[index]
    assert isinstance(got, tuple) and len(got) == len(expected) == 2
    for part, twin in zip(got, expected, strict=True):
        assert tuple(part.shape) == tuple(twin.shape)
        assert part.tolist() == twin.tolist()


def test_examples_are_views_of_the_tensors():
    ours, _ = both_datasets()
    features, _ = ours[1]
    features[0] = -1.0
    assert ours.tensors[0][1, 0].item() == -1.0


def test_out_of_range_index_raises_torchs_error():
    ours, theirs = both_datasets()
    with pytest.raises(IndexError) as expected:
        theirs[4]
    with pytest.raises(IndexError) as got:
        ours[4]
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize(
    "shapes", [[(3,), (4,)], [(2, 5), (3, 5)], [(4,), (4, 2), (5, 1)], [(3,), ()]]
)
def test_tensors_of_different_first_size_raise_torchs_error(shapes):
    with pytest.raises((AssertionError, IndexError)) as expected:
        torch.utils.data.TensorDataset(*(torch.zeros(shape) for shape in shapes))
    with pytest.raises(expected.type) as got:
        TensorDataset(*(minitorch.zeros(shape) for shape in shapes))
    assert str(got.value) == str(expected.value)


def test_a_dataset_needs_a_tensor():
    with pytest.raises(ValueError, match="at least one tensor"):
        TensorDataset()


def test_dataset_subclasses_define_getitem():
    class Squares(Dataset):
        def __getitem__(self, index):
            return index * index

        def __len__(self):
            return 3

    assert [Squares()[k] for k in range(3)] == [0, 1, 4]
    with pytest.raises(NotImplementedError):
        Dataset()[0]
