"""The main process's side of a `DataLoader` with `num_workers > 0`.

Batch `b` of an epoch (its indices drawn from the sampler here, in the main process) goes to
worker `b mod num_workers`, skipping workers whose iterable dataset is exhausted; at most
`prefetch_factor * num_workers` batches are asked for ahead of the one being read. Results
come back on one queue in any order; with `in_order=True` they are handed out by batch
number, so the batches are those, in the order, of `num_workers=0`.

A worker's exception is raised again here with its traceback; a worker that dies, or no
batch within `timeout` seconds, is a `RuntimeError`. The workers are stopped at the end of
the epoch (unless `persistent_workers`), when the iterator is dropped (a `break` out of the
loop, an exception such as `KeyboardInterrupt`) and at interpreter exit.
"""

from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.util
import queue
import time
import weakref

from .worker import Exhausted, Ready, Resume, WorkerFailure, receive, worker_loop

# How long (seconds) the main process waits for a batch before checking the workers are alive.
STATUS_CHECK_INTERVAL = 0.1
# How long a stopping worker may take to exit before it is terminated.
JOIN_TIMEOUT = 5.0
PICKLE_HINT = (
    "DataLoader: a worker process started by {!r} receives the dataset, collate_fn and "
    "worker_init_fn pickled; define them at the top level of a module (not lambdas or "
    "local classes) and keep unpicklable members (locks, open files) out of them"
)


def default_context() -> multiprocessing.context.BaseContext:
    """`forkserver`, its server loading minitorch (and `warm_start`'s kernels) once so
    that each worker forked from it starts with them; `spawn` where there is no forkserver.

    The server is a fresh interpreter that runs no parallel kernel, so it has no OpenMP
    threads and its forked children are safe, whatever the main process has run. Its
    preload list is process-wide: it keeps the standard `__main__` and adds ours.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["__main__", "minitorch", f"{__package__}.warm_start"])
    return context


def stop_workers(workers, tasks, results) -> None:
    """Ask each worker to exit, wait a little, terminate the ones that do not."""
    for worker, inbox in zip(workers, tasks, strict=True):
        if worker.is_alive():
            inbox.put(None)
    deadline = time.monotonic() + JOIN_TIMEOUT
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            worker.terminate()
            worker.join()
    for inbox in (*tasks, results):
        inbox.cancel_join_thread()
        inbox.close()


class MultiProcessIter:
    """An epoch over a `DataLoader` read by worker processes."""

    def __init__(self, loader, base_seed: int) -> None:
        # A persistent iterator is kept by its loader: a weak reference back breaks the cycle
        # (a cycle outliving the interpreter's exit leaves the queues' semaphores behind).
        self.loader = weakref.ref(loader)
        self.index_sampler = loader.index_sampler
        self.num_workers = loader.num_workers
        self.prefetch = loader.prefetch_factor * loader.num_workers
        self.timeout = loader.timeout
        self.in_order = loader.in_order
        self.persistent = loader.persistent_workers
        context = loader.multiprocessing_context or default_context()
        self.results = context.Queue()
        self.tasks, self.workers = [], []
        self.started = 0
        # Runs when the iterator is collected, or at exit before multiprocessing terminates
        # daemonic children (finalizers of priority >= 0 run first; higher ones earlier than
        # the queues' own), so the workers exit cleanly.
        self.stopper = multiprocessing.util.Finalize(
            self, stop_workers, (self.workers, self.tasks, self.results), exitpriority=20
        )
        for worker_id in range(self.num_workers):
            inbox = context.Queue()
            worker = context.Process(
                target=worker_loop,
                args=(
                    loader.iterable,
                    loader.dataset,
                    inbox,
                    self.results,
                    loader.auto_collation,
                    loader.collate_fn,
                    loader.drop_last,
                    base_seed,
                    loader.worker_init_fn,
                    worker_id,
                    self.num_workers,
                ),
                daemon=True,
            )
            try:
                worker.start()
            except Exception as error:
                inbox.close()
                self.stopper()
                error.add_note(PICKLE_HINT.format(context.get_start_method()))
                raise
            self.tasks.append(inbox)
            self.workers.append(worker)
        self.reset(first=True)

    def reset(self, first: bool = False) -> None:
        """Start an epoch: a new pass of the sampler, every worker active again."""
        self.batches = iter(self.index_sampler)
        self.sent = self.received = 0
        self.pending: dict[int, list] = {}  # batch number -> [worker id] or [worker id, data]
        self.active = [True] * self.num_workers
        self.per_worker = [0] * self.num_workers
        self.turns = itertools.cycle(range(self.num_workers))
        if not first:
            for inbox in self.tasks:
                inbox.put(Resume())
            acknowledged = 0
            while acknowledged < self.num_workers:  # results of an abandoned epoch are dropped
                acknowledged += isinstance(self.get()[0], Resume)
        for _ in range(self.prefetch):
            self.ask()

    def __iter__(self) -> MultiProcessIter:
        return self

    def __len__(self) -> int:
        return len(self.loader())

    def ask(self) -> None:
        """Send the sampler's next batch of indices to the next active worker."""
        try:
            indices = next(self.batches)
        except StopIteration:
            return
        share = self.prefetch // max(1, sum(self.active))
        for _ in range(self.num_workers):
            worker_id = next(self.turns)
            if self.active[worker_id] and (self.in_order or self.per_worker[worker_id] < share):
                break
        else:
            return
        self.tasks[worker_id].put((self.sent, indices))
        self.pending[self.sent] = [worker_id]
        self.per_worker[worker_id] += 1
        self.sent += 1

    def get(self):
        """The next `(batch number, result)` from any worker, watching the workers and,
        once they have all started, the timeout while waiting."""
        start = time.monotonic()
        while True:
            wait = STATUS_CHECK_INTERVAL
            if self.timeout > 0:
                wait = min(wait, self.timeout - (time.monotonic() - start))
            try:
                message = receive(self.results.get(timeout=max(wait, 0.0)))
            except queue.Empty:
                message = None
            if message is not None and not isinstance(message[0], Ready):
                return message
            if message is not None:
                self.started += 1
                start = time.monotonic()
                continue
            dead = [w for k, w in enumerate(self.workers) if self.active[k] and not w.is_alive()]
            if dead:
                for worker in dead:
                    self.active[self.workers.index(worker)] = False
                pids = ", ".join(str(w.pid) for w in dead)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")
            waited = time.monotonic() - start
            if 0 < self.timeout <= waited and self.started == self.num_workers:
                raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds")

    def retire(self, worker_id: int) -> None:
        """Stop giving batches to a worker whose iterable dataset is exhausted.

        The worker stays, idle, until the epoch ends (`stop_workers`). Ended now, it could
        exit between writing its last result and releasing the results queue's write lock,
        which every worker shares: the others could then never send another batch.
        """
        self.active[worker_id] = False

    def __next__(self):
        while True:
            while self.received < self.sent:  # skip batches an exhausted worker never made
                task = self.pending.get(self.received)
                if task is not None and (len(task) == 2 or self.active[task[0]]):
                    break
                self.pending.pop(self.received, None)
                self.received += 1
            else:
                if not self.persistent:
                    self.stopper()
                raise StopIteration
            task = self.pending[self.received]
            if len(task) == 2:
                del self.pending[self.received]
                self.received += 1
                return self.hand_out(*task)
            number, data = self.get()
            if isinstance(data, Exhausted):
                self.retire(data.worker_id)
                self.ask()
                continue
            if number == self.received or not self.in_order:
                worker_id = self.pending.pop(number)[0]
                self.received += number == self.received
                return self.hand_out(worker_id, data)
            self.pending[number].append(data)

    def hand_out(self, worker_id: int, data):
        self.per_worker[worker_id] -= 1
        self.ask()
        if isinstance(data, WorkerFailure):
            data.reraise()
        return data
