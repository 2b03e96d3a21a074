"""What runs inside a `DataLoader` worker process, and what it tells the main process.

A worker is started with a copy of the dataset, the collate function and `worker_init_fn`
(pickled to it), seeds its random number generators as torch's workers do, then loops:
it takes a task `(batch number, indices)` from its own index queue, fetches and collates that
batch, and puts `(batch number, batch)` on the results queue shared by all workers. `None`
on the index queue ends it; so does the main process going away (it checks its parent).

Seeds: the main process draws `base_seed` from the loader's generator once per iterator;
worker `k` uses `seed = base_seed + k` for Python's `random` and minitorch's default
generator, and NumPy's global generator gets the four 32-bit words of
`SeedSequence([k, base_seed mod 2**32, base_seed // 2**32, 0])` (the state torch computes,
so that NumPy's and `random`'s streams differ though both start from the same numbers).
"""

from __future__ import annotations

import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler

import numba
import numpy as np

from ...tensors.creation import manual_seed
from .fetch import make_fetcher

# How often (seconds) a waiting worker checks that the main process still exists.
PARENT_CHECK_INTERVAL = 1.0
MASK32 = 0xFFFFFFFF


@dataclass(frozen=True)
class WorkerInfo:
    """What `get_worker_info()` tells code running in a worker: its `id` in
    `range(num_workers)`, the `seed` it was given and its own copy of the `dataset`."""

    id: int
    num_workers: int
    seed: int
    dataset: object


CURRENT: list[WorkerInfo | None] = [None]


def get_worker_info() -> WorkerInfo | None:
    """The `WorkerInfo` of this worker process; `None` in the main process.

    An `IterableDataset` reads it in `__iter__` to give each worker its own share.
    """
    return CURRENT[0]


def numpy_seed(base_seed: int, worker_id: int) -> list[int]:
    """The seed of NumPy's global generator in worker `worker_id`."""
    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    return np.random.SeedSequence(entropy).generate_state(4).tolist()


class MessageOfKeyError(str):
    """A `KeyError`'s text shown as it is: `KeyError` shows the repr of its argument."""

    def __repr__(self) -> str:
        return str(self)


@dataclass
class WorkerFailure:
    """An exception raised in a worker, as its type and its formatted traceback."""

    kind: type
    text: str
    where: str

    @classmethod
    def current(cls, where: str) -> WorkerFailure:
        kind, value, trace = sys.exc_info()
        return cls(kind, "".join(traceback.format_exception(kind, value, trace)), where)

    def reraise(self):
        """Raise the same kind of exception in the main process, the worker's traceback in it
        (a `RuntimeError` when that kind cannot be built from one message)."""
        message = f"Caught {self.kind.__name__} {self.where}.\nOriginal {self.text}"
        if self.kind is KeyError:
            message = MessageOfKeyError(message)
        try:
            error = self.kind(message)
        except Exception:
            raise RuntimeError(message) from None
        raise error


@dataclass
class Exhausted:
    """A worker's iterable dataset has no more examples."""

    worker_id: int


@dataclass
class Ready:
    """A worker has started (its start-up does not count in the `timeout` for a batch)."""


@dataclass
class Resume:
    """Start a new epoch with the same (persistent) workers: the worker answers with it."""


def seed_worker(base_seed: int, worker_id: int) -> int:
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(numpy_seed(base_seed, worker_id))
    return seed


def send(results, batch_number, data, where: str) -> None:
    """Put a result on the queue, pickled here so that a result that cannot be pickled
    becomes an error the main process sees, not one printed by the queue's thread."""
    try:
        payload = ForkingPickler.dumps(data)
    except Exception:
        payload = ForkingPickler.dumps(WorkerFailure.current(where))
    results.put((batch_number, bytes(payload)))


def receive(message):
    """The main process's side of `send`: `(batch number, result)`."""
    batch_number, payload = message
    return batch_number, pickle.loads(payload)


def worker_loop(
    iterable: bool,
    dataset,
    tasks,
    results,
    auto_collation: bool,
    collate_fn,
    drop_last: bool,
    base_seed: int,
    init_fn,
    worker_id: int,
    num_workers: int,
) -> None:
    """The body of worker `worker_id` (see the module docstring)."""
    parent = os.getppid()
    where = f"in DataLoader worker process {worker_id}"
    try:
        numba.set_num_threads(1)  # the workers, not the threads, share out the cores
        seed = seed_worker(base_seed, worker_id)
        CURRENT[0] = WorkerInfo(worker_id, num_workers, seed, dataset)
        send(results, Ready(), None, where)
        failure = fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            failure = WorkerFailure.current(where)
        exhausted = False
        while True:
            try:
                task = tasks.get(timeout=PARENT_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent:
                    break
                continue
            if task is None:
                break
            if isinstance(task, Resume):
                send(results, task, None, where)
                exhausted = False
                fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                continue
            if exhausted:
                continue
            batch_number, indices = task
            if failure is not None:
                data, failure = failure, None
            else:
                try:
                    data = fetcher.fetch(indices)
                except StopIteration:
                    if not iterable:
                        data = WorkerFailure.current(where)
                    else:
                        data, exhausted = Exhausted(worker_id), True
                except Exception:
                    data = WorkerFailure.current(where)
            send(results, batch_number, data, where)
            del data
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches the whole process group: the main process reports it
    # What is still in the queue's buffer is not waited for: the main process has what it needs.
    results.cancel_join_thread()
    results.close()
