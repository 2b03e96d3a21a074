"""IterableDataset, ChainDataset, StackDataset, WeightedRandomSampler and DistributedSampler,
the DataLoader's options for workers, and `generator=` taking a `minitorch.Generator`.

What torch gives for the deterministic cases (the examples, the indices, the lengths, the
error types and texts) is recorded in tests/data/test_utils_data_iterables_and_samplers.json
(scripts/record_torch_answers.py) and compared without torch; the random draws are checked
by their laws (frequencies, no repeats, reproducible from a seed).
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import (
    assert_outcome_as_recorded,
    assert_recorded_are_torchs,
    outcome_answers,
    recorded_answers,
)

import minitorch
from minitorch.utils.data import (
    DataLoader,
    DistributedSampler,
    RandomSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
    random_split,
)

ROOT = Path(__file__).resolve().parents[1]


def plain(value):
    """Batches and examples as nested lists, dicts as sorted (key, value) pairs."""
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):
        return ["tensor", str(value.dtype).split(".")[-1], value.tolist()]
    if isinstance(value, dict):
        return [[key, plain(part)] for key, part in sorted(value.items())]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [plain(part) for part in value]]
    return value


def counting(lib, start: int, end: int):
    """An iterable dataset of `start, ..., end - 1` built from `lib`'s IterableDataset."""

    class Counting(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(start, end))

        def __len__(self):
            return end - start

    return Counting()


def stacked(lib, named: bool):
    data = lib.utils.data
    first = data.TensorDataset(lib.arange(4.0).reshape(2, 2))
    second = [10, 20]
    return data.StackDataset(x=first, y=second) if named else data.StackDataset(first, second)


def loader_over(lib, options: dict):
    return [plain(batch) for batch in lib.utils.data.DataLoader(counting(lib, 2, 9), **options)]


LOADER_OPTIONS = [
    {"batch_size": 2},
    {"batch_size": 3, "drop_last": True},
    {"batch_size": None},
]
DISTRIBUTED = [
    (10, 3, 0, False),
    (10, 3, 2, False),
    (10, 3, 2, True),
    (5, 2, 1, False),
    (4, 4, 3, True),
    (2, 5, 4, False),
]


WORKER_OPTIONS = [
    {"prefetch_factor": 2},
    {"num_workers": 1, "prefetch_factor": -1},
    {"persistent_workers": True},
    {"multiprocessing_context": "spawn"},
    {"num_workers": 1, "multiprocessing_context": "no such method"},
    {"num_workers": 1, "multiprocessing_context": 5},
]


def distributed(lib, size, replicas, rank, drop_last):
    sampler = lib.utils.data.DistributedSampler(
        range(size), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last
    )
    return list(sampler), len(sampler), sampler.total_size


def set_after_init(lib, name: str):
    setattr(lib.utils.data.DataLoader(range(3)), name, 2)


TABLES = {
    "chain": {
        "examples": lambda lib: list(
            lib.utils.data.ChainDataset([counting(lib, 0, 2), counting(lib, 5, 7)])
        ),
        "len": lambda lib: len(counting(lib, 0, 2) + counting(lib, 5, 8)),
        "map-style inside": lambda lib: list(lib.utils.data.ChainDataset([range(3)])),
    },
    "stack": {
        "tuple": lambda lib: plain(stacked(lib, False)[1]),
        "dict": lambda lib: plain(stacked(lib, True)[0]),
        "tuple batch": lambda lib: plain(stacked(lib, False).__getitems__([1, 0])),
        "dict batch": lambda lib: plain(stacked(lib, True).__getitems__([1, 1])),
        "len": lambda lib: len(stacked(lib, True)),
        "loader": lambda lib: plain(list(lib.utils.data.DataLoader(stacked(lib, True), 2))),
        "both kinds": lambda lib: lib.utils.data.StackDataset(range(2), y=range(2)),
        "none": lambda lib: lib.utils.data.StackDataset(),
        "sizes": lambda lib: lib.utils.data.StackDataset(range(2), range(3)),
    },
    "iterable loader": {
        **{
            str(options): lambda lib, options=options: loader_over(lib, options)
            for options in LOADER_OPTIONS
        },
        **{
            f"len {options}": lambda lib, options=options: len(
                lib.utils.data.DataLoader(counting(lib, 2, 9), **options)
            )
            for options in LOADER_OPTIONS
        },
        "shuffle": lambda lib: lib.utils.data.DataLoader(counting(lib, 0, 2), shuffle=True),
        "sampler": lambda lib: lib.utils.data.DataLoader(counting(lib, 0, 2), sampler=[0, 1]),
        "batch_sampler": lambda lib: lib.utils.data.DataLoader(
            counting(lib, 0, 2), batch_sampler=[[0]]
        ),
    },
    "distributed": {
        **{str(case): lambda lib, case=case: distributed(lib, *case) for case in DISTRIBUTED},
        "rank too large": lambda lib: distributed(lib, 4, 2, 2, False),
        "negative rank": lambda lib: distributed(lib, 4, 2, -1, False),
    },
    "weighted": {
        "num_samples 0": lambda lib: lib.utils.data.WeightedRandomSampler([1.0], 0),
        "num_samples bool": lambda lib: lib.utils.data.WeightedRandomSampler([1.0], True),
        "replacement 1": lambda lib: lib.utils.data.WeightedRandomSampler([1.0], 2, 1),
        "2-d weights": lambda lib: lib.utils.data.WeightedRandomSampler([[1.0, 2.0]], 2),
        "too many without replacement": lambda lib: list(
            lib.utils.data.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)
        ),
        "len": lambda lib: len(lib.utils.data.WeightedRandomSampler([1.0, 2.0], 5)),
    },
    "worker options": {
        str(options): lambda lib, options=options: lib.utils.data.DataLoader(range(4), **options)
        for options in WORKER_OPTIONS
    },
    "frozen": {
        name: lambda lib, name=name: set_after_init(lib, name) for name in ("batch_size", "sampler")
    },
}
ANSWERS = recorded_answers(__file__)


def torch_answers(torch) -> dict[str, dict]:
    """What `torch` gives for each case (recorded by scripts/record_torch_answers.py)."""
    return outcome_answers(torch, TABLES, torch_names=True)


@pytest.mark.parametrize(
    ("table", "case"), [(table, case) for table, cases in TABLES.items() for case in cases]
)
def test_as_torch(table, case):
    assert_outcome_as_recorded(ANSWERS, table, case, TABLES[table][case], torch_names=True)


def test_recorded_answers_are_torchs(torch):
    assert_recorded_are_torchs(sys.modules[__name__], torch)


# ---- random draws ------------------------------------------------------------------------------


def test_weighted_sampler_draws_in_proportion_to_the_weights():
    sampler = WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=minitorch.Generator())
    counts = collections.Counter(sampler)
    assert counts[0] == 0 and counts[1] + counts[2] == 4000
    # P(index 2) = 3/4: 4000 draws put the count within 5 standard deviations (27) of 3000
    assert abs(counts[2] - 3000) < 5 * (4000 * 0.75 * 0.25) ** 0.5


def test_weighted_sampler_without_replacement_never_repeats():
    drawn = list(WeightedRandomSampler([1.0, 5.0, 2.0, 0.5], 4, replacement=False))
    assert sorted(drawn) == [0, 1, 2, 3]


def shuffles(make, seed):
    """Two passes of the sampler `make(generator)` built with a generator seeded `seed`."""
    sampler = make(minitorch.Generator().manual_seed(seed))
    return [list(sampler), list(sampler)]


@pytest.mark.parametrize(
    "make",
    [
        lambda g: RandomSampler(range(20), generator=g),
        lambda g: RandomSampler(range(20), replacement=True, generator=g),
        lambda g: SubsetRandomSampler(list(range(5, 25)), generator=g),
        lambda g: WeightedRandomSampler([1.0] * 20, 20, generator=g),
        lambda g: DataLoader(range(20), None, True, generator=g),
    ],
    ids=["random", "with replacement", "subset", "weighted", "loader"],
)
def test_a_minitorch_generator_makes_every_sampler_reproducible(make):
    first = shuffles(make, 3)
    assert first == shuffles(make, 3)
    assert first != shuffles(make, 4)
    assert first[0] != first[1], "each pass draws anew"


def test_random_split_takes_a_minitorch_generator():
    def split(seed):
        parts = random_split(range(12), [0.5, 0.5], minitorch.Generator().manual_seed(seed))
        return [list(part.indices) for part in parts]

    assert split(1) == split(1) != split(2)
    assert sorted(split(1)[0] + split(1)[1]) == list(range(12))


def test_distributed_shuffle_is_shared_by_the_replicas_and_changes_with_the_epoch():
    def epoch(number, seed=0):
        samplers = [DistributedSampler(range(10), 3, rank, seed=seed) for rank in range(3)]
        for sampler in samplers:
            sampler.set_epoch(number)
        return [list(sampler) for sampler in samplers]

    first = epoch(0)
    every = sorted(k for part in first for k in part)
    assert len(every) == 12 and sorted(set(every)) == list(range(10))  # two repeated to pad
    assert first == epoch(0) and first != epoch(1) and first != epoch(0, seed=1)
    assert sorted(k for part in first for k in part) != [k for part in first for k in part]


def test_distributed_sampler_needs_the_replicas_without_a_process_group():
    # torch asks its default process group; minitorch has no distributed package (torch's
    # error where that package is not available)
    with pytest.raises(RuntimeError, match="^Requires distributed package to be available$"):
        DistributedSampler(range(4))
    with pytest.raises(RuntimeError, match="^Requires distributed package to be available$"):
        DistributedSampler(range(4), num_replicas=2)


def test_worker_info_is_frozen_and_absent_in_the_main_process():
    from minitorch.utils.data import get_worker_info
    from minitorch.utils.data.worker import WorkerInfo

    info = WorkerInfo(id=0, num_workers=1, seed=5, dataset=None)
    with pytest.raises(AttributeError):
        info.id = 2
    assert get_worker_info() is None


def test_importing_minitorch_reaches_datasets_without_scikit_learn():
    check = (
        "import sys, minitorch; minitorch.datasets.Digits; minitorch.datasets.MNIST; "
        "print('sklearn' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", check],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_pin_memory_and_its_device_are_accepted_on_the_cpu():
    loader = DataLoader(np.arange(4.0), batch_size=2, pin_memory=True, pin_memory_device="cpu")
    assert [batch.tolist() for batch in loader] == [[0.0, 1.0], [2.0, 3.0]]
