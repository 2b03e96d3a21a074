"""minitorch.utils.data against torch.utils.data: datasets, samplers, the DataLoader's batches,
default_collate and the errors, compared with torch's.

Skipped when torch is not installed.
"""

from __future__ import annotations

import random
from typing import NamedTuple

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    default_collate,
    default_convert,
    random_split,
)

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


# ---- DataLoader against torch's ----------------------------------------------------------------


def as_plain(value):
    """A batch as nested Python values with each tensor's dtype name, for comparing the two."""
    if minitorch.is_tensor(value) or isinstance(value, torch.Tensor):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), value.tolist())
    if isinstance(value, dict):
        return {key: as_plain(part) for key, part in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [as_plain(part) for part in value])
    return value


@pytest.mark.parametrize(
    ("batch_size", "drop_last"), [(1, False), (3, False), (3, True), (4, False), (10, True)]
)
def test_batches_equal_torchs_without_shuffling(batch_size, drop_last):
    ours, theirs = both_datasets()
    got = DataLoader(ours, batch_size=batch_size, drop_last=drop_last)
    expected = torch.utils.data.DataLoader(theirs, batch_size=batch_size, drop_last=drop_last)
    assert len(got) == len(expected)
    assert [as_plain(b) for b in got] == [as_plain(b) for b in expected]


def test_batch_size_none_passes_examples_one_by_one_as_torch():
    rows = [(np.arange(2.0) + k, k) for k in range(3)]
    got = list(DataLoader(rows, batch_size=None))
    expected = list(torch.utils.data.DataLoader(rows, batch_size=None))
    assert [as_plain(b) for b in got] == [as_plain(b) for b in expected]
    assert len(DataLoader(rows, batch_size=None)) == 3


class Point(NamedTuple):
    x: float
    label: int


COLLATE_CASES = {
    "ints": [1, 2, 3],
    "floats": [1.5, 2.0],
    "bools": [True, False],
    "numpy scalars": [np.float64(1.5), np.float64(2.0)],
    "numpy arrays": [np.arange(3), np.arange(3) * 2],
    "float32 arrays": [np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)],
    "strings": ["a", "b"],
    "tuples": [(1, 2.0), (3, 4.0)],
    "lists": [[1, 2], [3, 4]],
    "namedtuples": [Point(0.5, 1), Point(1.5, 0)],
    "dicts": [{"x": np.ones(2), "y": (1, "a")}, {"x": np.zeros(2), "y": (2, "b")}],
}


@pytest.mark.parametrize("name", COLLATE_CASES)
def test_default_collate_equals_torchs(name):
    batch = COLLATE_CASES[name]
    got = default_collate(batch)
    expected = torch.utils.data.default_collate(batch)
    assert type(got).__name__ == type(expected).__name__
    assert as_plain(got) == as_plain(expected)


@pytest.mark.parametrize("name", COLLATE_CASES)
def test_default_convert_equals_torchs(name):
    for example in COLLATE_CASES[name]:
        assert as_plain(default_convert(example)) == as_plain(
            torch.utils.data.default_convert(example)
        )


def test_collating_tensors_stacks_them_with_promotion_as_torch():
    got = default_collate([minitorch.tensor([1, 2]), minitorch.tensor([0.5, 1.0])])
    expected = torch.utils.data.default_collate([torch.tensor([1, 2]), torch.tensor([0.5, 1.0])])
    assert as_plain(got) == as_plain(expected)


def tensor_examples(lib):
    """Examples holding tensors: nested in tuples and dicts, non-contiguous, of mixed dtypes."""
    grid = lib.arange(6.0).reshape(2, 3)
    return [
        ({"x": grid.t(), "n": 1}, (lib.tensor([1, 2]), 0.5)),
        ({"x": grid.t() * 2, "n": 2}, (lib.tensor([3.5, 4.0]), 1.5)),
    ]


def test_collating_nested_tensors_equals_torchs():
    got = default_collate(tensor_examples(minitorch))
    expected = torch.utils.data.default_collate(tensor_examples(torch))
    assert as_plain(got) == as_plain(expected)


def test_collated_tensors_are_stacked_in_the_graph_as_torchs():
    results = []
    for lib in (minitorch, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        batch = torch.utils.data.default_collate if lib is torch else default_collate
        stacked = batch([w * 2, w * 3])
        (stacked**2).sum().backward()
        results.append((type(stacked.grad_fn).__name__, w.grad.tolist()))
    assert results[0] == results[1] == ("StackBackward0", [26.0, 52.0])


@pytest.mark.parametrize(
    "batch",
    [
        [object(), object()],
        [np.array(["a", "b"]), np.array(["c", "d"])],
        [[1, 2], [3]],
    ],
    ids=["objects", "string arrays", "ragged lists"],
)
def test_collate_errors_are_torchs(batch):
    with pytest.raises((TypeError, RuntimeError)) as expected:
        torch.utils.data.default_collate(batch)
    with pytest.raises(expected.type) as got:
        default_collate(batch)
    assert str(got.value) == str(expected.value).replace("torch.", "minitorch.")


def test_stacking_tensors_of_different_shapes_says_which():
    with pytest.raises(RuntimeError) as expected:
        torch.utils.data.default_collate([torch.zeros(3), torch.zeros(2)])
    with pytest.raises(RuntimeError) as got:
        default_collate([minitorch.zeros(3), minitorch.zeros(2)])
    assert str(got.value) == str(expected.value)


def test_custom_collate_fn_receives_the_list_of_examples():
    loader = DataLoader(range(5), batch_size=2, collate_fn=lambda batch: sum(batch))
    assert list(loader) == [1, 5, 4]


@pytest.mark.parametrize(
    "options",
    [
        {"shuffle": True, "sampler": [0, 1]},
        {"batch_sampler": [[0]], "batch_size": 2},
        {"batch_sampler": [[0]], "shuffle": True},
        {"batch_sampler": [[0]], "sampler": [0]},
        {"batch_sampler": [[0]], "drop_last": True},
        {"batch_size": None, "drop_last": True},
        {"num_workers": -1},
        {"timeout": -1},
        {"persistent_workers": True},
        {"prefetch_factor": 2},
        {"num_workers": 1, "prefetch_factor": -1},
        {"multiprocessing_context": "spawn"},
        {"num_workers": 1, "multiprocessing_context": "no such method"},
    ],
)
def test_conflicting_options_raise_torchs_errors(options):
    with pytest.raises(ValueError) as expected:
        torch.utils.data.DataLoader(range(4), **options)
    with pytest.raises(ValueError) as got:
        DataLoader(range(4), **options)
    assert str(got.value) == str(expected.value)


def test_pin_memory_is_accepted_and_changes_nothing():
    assert [b.tolist() for b in DataLoader(range(4), batch_size=3, pin_memory=True)] == [
        [0, 1, 2],
        [3],
    ]


def test_sampler_and_batch_sampler_choose_the_order():
    by_sampler = DataLoader(range(10, 16), batch_size=2, sampler=[5, 0, 3])
    assert [b.tolist() for b in by_sampler] == [[15, 10], [13]]
    by_batches = DataLoader(range(10, 16), batch_sampler=[[1, 2, 3], [0]])
    assert [b.tolist() for b in by_batches] == [[11, 12, 13], [10]]
    assert len(by_batches) == 2


def test_shuffle_visits_every_example_once_in_a_new_order_each_epoch():
    loader = DataLoader(range(50), batch_size=7, shuffle=True, generator=np.random.default_rng(0))
    first = [k for batch in loader for k in batch.tolist()]
    second = [k for batch in loader for k in batch.tolist()]
    assert sorted(first) == sorted(second) == list(range(50))
    assert first != second and first != list(range(50))


@pytest.mark.parametrize("make", [np.random.default_rng, random.Random])
def test_a_seeded_generator_makes_shuffles_reproducible(make):
    def orders(seed):
        loader = DataLoader(range(20), batch_size=5, shuffle=True, generator=make(seed))
        return [[k for batch in loader for k in batch.tolist()] for _ in range(2)]

    assert orders(3) == orders(3)
    assert orders(3) != orders(4)


def test_manual_seed_makes_unseeded_shuffles_reproducible():
    def order():
        return [k for batch in DataLoader(range(20), batch_size=4, shuffle=True) for k in batch]

    minitorch.manual_seed(5)
    first = order()
    minitorch.manual_seed(5)
    assert order() == first
    assert sorted(first) == list(range(20)) and first != list(range(20))
    minitorch.manual_seed(6)
    assert order() != first, "the shuffle ignores the seed"


def test_generator_of_another_kind_is_a_type_error():
    with pytest.raises(TypeError, match="minitorch.Generator .* or a random.Random"):
        DataLoader(range(3), shuffle=True, generator=torch.Generator())


# ---- samplers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "drop_last"), [(3, False), (3, True), (5, False), (1, True)])
def test_batch_sampler_equals_torchs(size, drop_last):
    ours = BatchSampler(SequentialSampler(range(10)), size, drop_last)
    theirs = torch.utils.data.BatchSampler(
        torch.utils.data.SequentialSampler(range(10)), size, drop_last
    )
    assert list(ours) == list(theirs)
    assert len(ours) == len(theirs)


@pytest.mark.parametrize(("size", "drop_last"), [(0, False), (True, False), (2.0, False), (2, 1)])
def test_batch_sampler_errors_are_torchs(size, drop_last):
    with pytest.raises(ValueError) as expected:
        torch.utils.data.BatchSampler(range(4), size, drop_last)
    with pytest.raises(ValueError) as got:
        BatchSampler(range(4), size, drop_last)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("num_samples", [None, 3, 25])
def test_random_sampler_draws_whole_permutations(num_samples):
    sampler = RandomSampler(range(10), num_samples=num_samples, generator=random.Random(1))
    drawn = list(sampler)
    count = num_samples or 10
    assert len(drawn) == len(sampler) == count
    for start in range(0, count, 10):  # each block of 10 comes from one permutation
        block = drawn[start : start + 10]
        assert len(set(block)) == len(block)


def test_random_sampler_with_replacement_repeats_indices_in_range():
    drawn = list(RandomSampler(range(3), True, 60, generator=np.random.default_rng(0)))
    assert len(drawn) == 60 and set(drawn) == {0, 1, 2}
    # without replacement each block of 3 would be a permutation; drawn independently, 20
    # blocks without a repeat have probability (6/27)**20
    blocks = [drawn[k : k + 3] for k in range(0, 60, 3)]
    assert any(len(set(block)) < 3 for block in blocks), "replacement=True was ignored"


@pytest.mark.parametrize(("replacement", "num_samples"), [(1, None), (False, 0), (False, 2.5)])
def test_random_sampler_errors_are_torchs(replacement, num_samples):
    with pytest.raises((TypeError, ValueError)) as expected:
        torch.utils.data.RandomSampler(range(4), replacement, num_samples)
    with pytest.raises(expected.type) as got:
        RandomSampler(range(4), replacement, num_samples)
    assert str(got.value) == str(expected.value)


def test_subset_random_sampler_permutes_the_given_indices():
    sampler = SubsetRandomSampler([7, 3, 9, 4], generator=np.random.default_rng(2))
    assert sorted(sampler) == [3, 4, 7, 9] and len(sampler) == 4


# ---- Subset, ConcatDataset, random_split -------------------------------------------------------


def test_subset_and_concat_index_as_torch():
    parts = [range(3), range(10, 15)]
    ours, theirs = ConcatDataset(parts), torch.utils.data.ConcatDataset(parts)
    assert len(ours) == len(theirs) == 8
    assert ours.cumulative_sizes == theirs.cumulative_sizes
    assert [ours[k] for k in range(-8, 8)] == [theirs[k] for k in range(-8, 8)]
    subset = Subset(ours, [7, 0, 3])
    twin = torch.utils.data.Subset(theirs, [7, 0, 3])
    assert [subset[k] for k in range(3)] == [twin[k] for k in range(3)]
    assert len(subset) == len(twin) == 3


def test_a_subset_reads_a_list_of_indices_at_once_as_torch():
    ours, theirs = both_datasets()
    got = Subset(ours, [3, 0, 2])[[0, 2]]
    expected = torch.utils.data.Subset(theirs, [3, 0, 2])[[0, 2]]
    assert as_plain(got) == as_plain(expected)


def test_adding_datasets_concatenates_them():
    ours, _ = both_datasets()
    both = ours + ours
    assert isinstance(both, ConcatDataset) and len(both) == 8
    assert both[5][1].item() == LABELS[1]


def test_concat_errors_are_torchs():
    with pytest.raises(ValueError) as expected:
        torch.utils.data.ConcatDataset([range(3)])[-4]
    with pytest.raises(ValueError) as got:
        ConcatDataset([range(3)])[-4]
    assert str(got.value) == str(expected.value)
    with pytest.raises(AssertionError, match="should not be an empty iterable"):
        ConcatDataset([])


@pytest.mark.parametrize(
    "lengths", [[3, 7], [0.3, 0.7], [0.5, 0.25, 0.25], [1 / 3, 1 / 3, 1 / 3], [10]]
)
def test_random_split_sizes_equal_torchs_and_cover_the_data(lengths):
    data = range(10)
    ours = random_split(data, lengths, generator=np.random.default_rng(0))
    theirs = torch.utils.data.random_split(data, lengths)
    assert [len(part) for part in ours] == [len(part) for part in theirs]
    assert sorted(k for part in ours for k in (part[j] for j in range(len(part)))) == list(data)


def test_random_split_is_reproducible_with_a_generator():
    def split(seed):
        return [
            list(part.indices) for part in random_split(range(20), [5, 15], random.Random(seed))
        ]

    assert split(1) == split(1) and split(1) != split(2)


@pytest.mark.parametrize("lengths", [[3, 3], [0.5, 0.6], [-0.2, 1.2]])
def test_random_split_errors_are_torchs(lengths):
    with pytest.raises(ValueError) as expected:
        torch.utils.data.random_split(range(10), lengths)
    with pytest.raises(ValueError) as got:
        random_split(range(10), lengths)
    assert str(got.value) == str(expected.value)


def test_random_split_warns_of_an_empty_split_as_torch():
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(2), [0.9, 0.1])
