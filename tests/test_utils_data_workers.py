"""DataLoader with worker processes: the batches of num_workers=0, the workers' seeds and
`get_worker_info()`, iterable datasets shared out by worker, and the failures (an exception in
a worker, a worker that dies, a timeout, a dataset that cannot be pickled) raised in the main
process without a hang or a child process left behind.

The expected values come from the rules torch documents (the batches of a single-process
loader, `seed = base_seed + worker id`, the error texts of torch/utils/data/dataloader.py), and
the NumPy seeds from torch 2.13's `_generate_state`, recorded below and recomputed live where
torch is installed. The datasets are defined at the top level: workers receive them pickled.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import random
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

ROOT = Path(__file__).resolve().parents[1]


class Numbers(Dataset):
    """Example `k` is `k` as a float tensor; reading example `fail_at` raises a ValueError."""

    def __init__(self, size: int = 10, fail_at: int = -1) -> None:
        self.size, self.fail_at = size, fail_at

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int):
        if index == self.fail_at:
            raise ValueError(f"example {index} is unreadable")
        return minitorch.tensor(float(index))


class WhoReads(Dataset):
    """Example `k`: `k`, the reading worker's info and what its generators draw first."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int):
        info = get_worker_info()
        return {
            "index": index,
            "id": info.id,
            "num_workers": info.num_workers,
            "seed": info.seed,
            "dataset is a WhoReads": isinstance(info.dataset, WhoReads),
            "pid": os.getpid(),
            "random": random.random(),
            "numpy": float(np.random.random()),
            "minitorch": minitorch.rand(1).item(),
            "init": INITIALISED[0],
        }


INITIALISED = [None]


def remember_worker(worker_id: int) -> None:
    INITIALISED[0] = ("initialised", worker_id)


class Dies(Dataset):
    """Reading example 1 ends the worker's process at once."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int):
        if index == 1:
            os._exit(3)
        return index


class Sleepy(Dataset):
    """Example 1 takes 1.5 seconds to read."""

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int):
        time.sleep(1.5 * index)
        return index


class Locked(Dataset):
    """A dataset holding a lock, which cannot be pickled."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int):
        return index


class Range(IterableDataset):
    """`start, ..., end - 1`, each worker yielding its own contiguous share."""

    def __init__(self, start: int, end: int, shard: bool = True) -> None:
        self.start, self.end, self.shard = start, end, shard

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.start, self.end))
        per_worker = -(-(self.end - self.start) // info.num_workers)
        first = self.start + info.id * per_worker
        return iter(range(first, min(first + per_worker, self.end)))


class Uneven(IterableDataset):
    """Worker 0 yields one number, every other worker `length` numbers."""

    def __init__(self, length: int) -> None:
        self.length = length

    def __iter__(self):
        info = get_worker_info()
        return iter(range(1 if info.id == 0 else self.length))


def values(loader) -> list:
    return [batch.tolist() for batch in loader]


def no_children_left() -> bool:
    gc.collect()
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not multiprocessing.active_children()


@pytest.mark.parametrize(
    "options",
    [
        {"batch_size": 3},
        {"batch_size": 3, "drop_last": True, "prefetch_factor": 1},
        {"batch_size": 4, "shuffle": True},
        {"batch_size": None},
        {"batch_size": 2, "in_order": False},
    ],
    ids=["in order", "drop last", "shuffled", "unbatched", "any order"],
)
def test_workers_give_the_batches_of_the_main_process(options):
    def epochs(num_workers):
        generator = minitorch.Generator().manual_seed(7)
        chosen = {k: v for k, v in options.items() if num_workers or k != "prefetch_factor"}
        loader = DataLoader(Numbers(), num_workers=num_workers, generator=generator, **chosen)
        return [values(loader) for _ in range(2)], len(loader)

    (expected, size), (got, got_size) = epochs(0), epochs(2)
    if options.get("in_order", True):
        assert got == expected
    else:  # in_order=False: the same batches, in the order they are ready
        assert [sorted(map(str, epoch)) for epoch in got] == [
            sorted(map(str, epoch)) for epoch in expected
        ]
    assert got_size == size == len(expected[0])
    if options.get("shuffle"):
        assert expected[0] != expected[1], "each epoch draws a new order"
    assert no_children_left()


def test_each_worker_is_seeded_from_the_epochs_base_seed():
    loader = DataLoader(
        WhoReads(),
        batch_size=None,
        num_workers=2,
        generator=minitorch.Generator().manual_seed(11),
        worker_init_fn=remember_worker,
    )
    examples = list(loader)
    # torch draws base_seed as one int64 from the loader's generator when an epoch starts
    base_seed = minitorch.randint(
        0, 2**63 - 1, (1,), generator=minitorch.Generator().manual_seed(11)
    ).item()
    assert [e["index"] for e in examples] == [0, 1, 2, 3]
    assert [e["id"] for e in examples] == [0, 1, 0, 1]  # batch k goes to worker k mod 2
    assert len({e["pid"] for e in examples} | {os.getpid()}) == 3
    for example in examples:
        worker = example["id"]
        assert example["num_workers"] == 2 and example["dataset is a WhoReads"]
        assert example["seed"] == base_seed + worker
        assert example["init"] == ["initialised", worker]  # tuples come back as lists
    for example in examples[:2]:  # each worker's first draws
        seed = base_seed + example["id"]
        assert example["random"] == random.Random(seed).random()
        assert (
            example["minitorch"]
            == minitorch.rand(1, generator=minitorch.Generator().manual_seed(seed)).item()
        )
        numpy_state = np.random.SeedSequence(
            [example["id"], base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
        ).generate_state(4)
        assert example["numpy"] == np.random.RandomState(numpy_state).random()
    assert get_worker_info() is None
    assert no_children_left()


# What torch 2.13's torch.utils.data._utils.worker._generate_state(base_seed, worker_id) gives:
# the seed of NumPy's global generator in a worker.
TORCH_NUMPY_SEEDS = {
    (0, 0): [2968811710, 3677149159, 745650761, 2884920346],
    (123456789012345, 3): [3999280408, 2418223825, 1775828080, 3641838301],
    (2**63 - 5, 1): [4020811208, 1092876386, 795424436, 3386973929],
}


@pytest.mark.parametrize("case", TORCH_NUMPY_SEEDS)
def test_numpy_seeds_are_torchs(case):
    from minitorch.utils.data.worker import numpy_seed

    assert numpy_seed(*case) == TORCH_NUMPY_SEEDS[case]


def test_recorded_numpy_seeds_are_torchs(torch):
    from torch.utils.data._utils.worker import _generate_state

    for case, expected in TORCH_NUMPY_SEEDS.items():
        assert _generate_state(*case) == expected


@pytest.mark.parametrize("shard", [True, False])
def test_an_iterable_dataset_is_shared_out_with_worker_info(shard):
    got = sorted(
        k
        for batch in DataLoader(Range(3, 14, shard), batch_size=2, num_workers=2)
        for k in batch.tolist()
    )
    expected = list(range(3, 14))
    # without sharding every worker yields the whole range, as in torch
    assert got == (expected if shard else sorted(expected * 2))
    assert values(DataLoader(Range(3, 8), batch_size=2)) == [[3, 4], [5, 6], [7]]
    assert no_children_left()


def test_persistent_workers_restart_an_iterable_dataset_each_epoch():
    loader = DataLoader(Range(0, 9), batch_size=2, num_workers=2, persistent_workers=True)
    # worker 0 yields 0..4 and worker 1 5..8; their batches are taken in turn
    expected = [[0, 1], [5, 6], [2, 3], [7, 8], [4]]
    assert values(loader) == expected and values(loader) == expected
    del loader
    assert no_children_left()


def test_persistent_workers_are_reused_across_epochs():
    loader = DataLoader(WhoReads(), batch_size=None, num_workers=2, persistent_workers=True)
    first = {e["pid"] for e in loader}
    second = {e["pid"] for e in loader}
    assert first == second and len(first) == 2
    del loader
    assert no_children_left()


def test_an_exception_in_a_worker_is_raised_with_its_traceback():
    loader = DataLoader(Numbers(fail_at=5), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as caught:
        list(loader)
    message = str(caught.value)
    del caught, loader  # the traceback holds the iterator, and so its workers
    assert message.startswith(
        "Caught ValueError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
    )
    assert "in __getitem__" in message and message.endswith("example 5 is unreadable\n")
    assert no_children_left()


def test_a_key_error_in_a_worker_keeps_its_text_readable():
    loader = DataLoader([{"a": 1}], batch_size=None, num_workers=1, collate_fn=pick_b)
    with pytest.raises(KeyError) as caught:
        list(loader)
    message = str(caught.value)
    del caught, loader
    assert message.startswith("Caught KeyError in DataLoader worker process 0.")
    assert message.endswith("KeyError: 'b'\n")
    assert no_children_left()


def pick_b(example):
    return example["b"]


def test_a_worker_that_dies_is_a_runtime_error():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexp"):
        list(DataLoader(Dies(), batch_size=1, num_workers=2))
    assert time.monotonic() - start < 10
    assert no_children_left()


def test_no_batch_within_the_timeout_is_torchs_runtime_error():
    batches = iter(DataLoader(Sleepy(), num_workers=1, timeout=0.3))
    assert next(batches).tolist() == [0]  # the workers' start-up is not counted
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"):
        next(batches)
    assert time.monotonic() - start < 1.2, "the timeout did not interrupt the wait"
    del batches
    assert no_children_left()


@pytest.mark.parametrize(
    "options",
    [{"dataset": Locked()}, {"dataset": Numbers(), "collate_fn": lambda batch: batch}],
    ids=["dataset", "collate_fn"],
)
def test_what_cannot_be_pickled_to_a_worker_fails_at_once_and_says_why(options):
    with pytest.raises((TypeError, pickle.PicklingError, AttributeError), match="pickle") as got:
        iter(DataLoader(num_workers=2, **options))
    assert "top level of a module" in "".join(getattr(got.value, "__notes__", []))
    del got
    assert no_children_left()


def test_breaking_out_or_an_interrupt_stops_the_workers():
    for _ in DataLoader(Numbers(), num_workers=2):
        break
    assert no_children_left()
    with pytest.raises(KeyboardInterrupt):
        for _ in DataLoader(Numbers(), num_workers=2):
            raise KeyboardInterrupt
    assert no_children_left()


def test_workers_end_with_the_interpreter(tmp_path):
    script = tmp_path / "stops_early.py"  # a file: workers import the dataset's class from it
    script.write_text(
        textwrap.dedent(
            """
            import os, sys
            from minitorch.utils.data import DataLoader

            class Pids:
                def __len__(self):
                    return 100

                def __getitem__(self, index):
                    return os.getpid()

            if __name__ == "__main__":
                batches = iter(DataLoader(Pids(), batch_size=None, num_workers=2))
                print(next(batches), next(batches), flush=True)
                sys.exit(0)  # the iterator is still alive
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    pids = [int(p) for p in done.stdout.split()]
    assert len(set(pids)) == 2
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_the_start_method_can_be_chosen(method):
    loader = DataLoader(Numbers(4), batch_size=2, num_workers=1, multiprocessing_context=method)
    assert values(loader) == [[0.0, 1.0], [2.0, 3.0]]
    assert loader.multiprocessing_context.get_start_method() == method
    assert no_children_left()


def test_an_exhausted_worker_stays_until_the_epoch_ends():
    """Ended mid-epoch, a worker could exit holding the results queue's write lock (its
    feeder thread between sending and releasing), and the other workers could never send
    again: an exhausted worker idles until the loader stops every worker at the end."""
    batches = iter(DataLoader(Uneven(40), batch_size=1, num_workers=2))
    seen = [next(batches).item() for _ in range(12)]  # worker 0's end is long handled
    time.sleep(0.5)
    assert len(multiprocessing.active_children()) == 2
    seen += [batch.item() for batch in batches]
    assert sorted(seen) == sorted([0, *range(40)])
    del batches
    assert no_children_left()
