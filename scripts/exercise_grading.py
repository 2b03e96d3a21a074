"""Running one task's tests in a grading subprocess (scripts/grade_runner.py, with a reporting
plugin) and reading its result channel into a TaskResult: passed, failed, skipped, crashed,
timed out or tampered with. Standard library only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from exercise_guards import HYPOTHESIS_PLUGIN, SAFE_PATH, grading_env, last_lines
from exercises import PYTEST_NO_TESTS, Task

# The outcomes of one test, phase by phase, boil down to one of these.
OUTCOMES = ("passed", "failed", "error", "skipped")


@dataclass
class TaskResult:
    """The outcome of one task's tests, from the grading subprocess's result channel."""

    task: Task
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    exit_code: int | None = None  # the subprocess's; negative: killed by that signal
    failing: list[str] = field(default_factory=list)  # node ids of failures and errors
    collection_errors: list[str] = field(default_factory=list)  # "minitorch/x.py:3: Error: ..."
    detail: str = ""  # why the run gave no usable result, when it did not
    tampering: list[str] = field(default_factory=list)  # what was seen replaced or forged
    expected: int | None = None  # how many tests the task has, when known
    outcomes: dict[str, str] = field(default_factory=dict)  # node id -> one of OUTCOMES
    output: str = ""  # the end of what the tests printed (capped)
    elapsed: float = 0.0

    @property
    def total(self) -> int:
        """Tests that ran (skipped ones excluded)."""
        return self.passed + self.failed + self.errors

    @property
    def status(self) -> str:
        if self.tampering:
            return "TAMPERED"
        if self.detail or self.collection_errors:
            return "FAIL"
        if self.total == 0:
            return "NO TESTS"
        if self.passed > 0 and self.failed + self.errors == 0:
            return "PASS"
        return "FAIL"

    @property
    def reason(self) -> str:
        """One line: why the task is TAMPERED or FAIL without a failing test, or ""."""
        if self.tampering:
            return "; ".join(self.tampering)
        if self.detail:
            return self.detail
        if self.collection_errors:
            return "tests could not be collected: " + self.collection_errors[0]
        return ""

    def to_json(self) -> dict:
        return {
            "id": self.task.id,
            "title": self.task.title,
            "tutorial": self.task.tutorial,
            "marker": self.task.marker,
            "status": self.status,
            "passed": self.passed,
            "total": self.total,
            "expected": self.expected,
            "failed": self.failed,
            "errors": self.errors,
            "skipped": self.skipped,
            "failing": self.failing,
            "collection_errors": self.collection_errors,
            "detail": self.detail,
            "tampering": self.tampering,
            "seconds": round(self.elapsed, 2),
        }


# The program of each grading subprocess (it runs pytest with a reporting plugin).
RUNNER = Path(__file__).resolve().with_name("grade_runner.py")
# It is sent on stdin, so that the channel and the secret of the results appear in no argument.
BOOTSTRAP = (
    "import os, sys\n"
    "sys.path[:] = [entry for entry in sys.path if entry not in ('', '.')]\n"
    "source = sys.stdin.read()\n"
    "os.dup2(os.open(os.devnull, os.O_RDONLY), 0)\n"
    "exec(compile(source, 'grade_runner.py', 'exec'), {'__name__': 'grade_runner'})\n"
)
# What a task's run may print: the first and last OUTPUT_KEPT bytes are kept, the rest dropped
# as it arrives (a test printing megabytes per call must not fill the grader's memory).
OUTPUT_KEPT = 64 * 1024
# The result channel carries one short line per event; more than this is not pytest's doing.
CHANNEL_LIMIT = 64 * 1024 * 1024
CHANNEL_LINE_LIMIT = 16 * 1024 * 1024


def run_task_tests(
    root: Path,
    task: Task,
    test_files: list[str] | None = None,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
    pytest_args: tuple[str, ...] = (),
    expected: int | None = None,
    hypothesis_profile: str | None = None,
) -> TaskResult:
    """Run the tests marked `task.marker` in project `root` in a fresh subprocess; count them.

    With `test_files` (paths relative to `root`; see `marker_test_files`) pytest collects only
    those files, which is much faster than importing the whole suite for every task. The
    subprocess runs in a process group of its own, killed whole after `timeout` seconds and
    when the run ends. `expected` is the number of tests the task has (the run fails when
    another number ran). See `interpret` for what makes a run fail or count as tampered.
    """
    args = ["-m", task.marker, "-p", "no:cacheprovider", "-q", "-s", "--tb=short"]
    if find_module(HYPOTHESIS_PLUGIN):
        args += ["-p", HYPOTHESIS_PLUGIN]
    if hypothesis_profile:
        args.append(f"--hypothesis-profile={hypothesis_profile}")
    args += [*pytest_args, *(test_files or [])]
    run = run_grading_subprocess(root, args, timeout, env or grading_env(root))
    result = interpret(task, run, timeout, expected)
    return result


def find_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


@dataclass
class GradingRun:
    """What one grading subprocess reported on its channel, and how it ended."""

    returncode: int | None = None
    timed_out: bool = False
    elapsed: float = 0.0
    output: str = ""
    started: bool = False
    finished: int | None = None  # pytest's exit status at the end of the session
    collected: list[str] | None = None
    collected_tasks: list[list[str]] = field(default_factory=list)
    running: str | None = None
    reports: dict[str, list[tuple[str, str, bool, str]]] = field(default_factory=dict)
    collect_errors: list[str] = field(default_factory=list)
    skips_from_package: dict[str, str] = field(default_factory=dict)
    tampered: list[str] = field(default_factory=list)
    forged_lines: int = 0
    channel_bytes: int = 0

    def receive(self, line: bytes, secret: str) -> None:
        import json

        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if not isinstance(event, dict) or event.get("secret") != secret:
            self.forged_lines += 1
            return
        kind = event.get("event")
        if kind == "start":
            self.started = True
        elif kind == "collected":
            self.collected = [str(i) for i in event.get("ids", [])]
            self.collected_tasks = event.get("tasks", [])
        elif kind == "running":
            self.running = str(event.get("id"))
        elif kind == "report":
            entry = (event["when"], event["outcome"], bool(event.get("xfail")), event["message"])
            self.reports.setdefault(str(event["id"]), []).append(entry)
        elif kind == "collect_error":
            self.collect_errors.append(f"{event['where']}: {event['error']}")
        elif kind == "skip_from_package":
            self.skips_from_package[str(event["id"])] = str(event["where"])
        elif kind == "tampered":
            what = str(event["what"])
            if what not in self.tampered:
                self.tampered.append(what)
        elif kind == "finish":
            self.finished = int(event["exitstatus"])


def run_grading_subprocess(
    root: Path, args: list[str], timeout: float | None, env: dict[str, str]
) -> GradingRun:
    """Run grade_runner.py with pytest arguments `args` in `root`; collect what it reports."""
    import secrets
    import signal
    import threading
    import time

    run = GradingRun()
    secret = secrets.token_hex(16)
    posix = os.name == "posix"
    if posix:
        # An inherited pipe: the subprocess's file descriptor `channel_write`.
        channel_read, channel_write = os.pipe()
        channel = {"fd": channel_write}
    else:
        # Windows cannot pass a pipe by number: a private temporary file, read at the end.
        channel_write, channel_path = tempfile.mkstemp(prefix="minitorch-grade-")
        os.close(channel_write)
        channel = {"path": channel_path}
    config = {**channel, "secret": secret, "root": str(root), "args": args}
    program = RUNNER.read_text(encoding="utf-8") + f"\nmain({config!r})\n"
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            [sys.executable, *SAFE_PATH, "-c", BOOTSTRAP],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(channel_write,) if posix else (),
            start_new_session=posix,
        )
    finally:
        if posix:
            os.close(channel_write)
    output = _BoundedOutput(OUTPUT_KEPT)

    def read_output() -> None:
        while chunk := process.stdout.read1(1 << 16):
            output.add(chunk)

    def read_channel(stream) -> None:
        with stream:
            while line := stream.readline(CHANNEL_LINE_LIMIT):
                run.channel_bytes += len(line)
                if run.channel_bytes > CHANNEL_LIMIT:
                    run.tampered.append("more than 64 MB arrived on the result channel")
                    break
                run.receive(line, secret)

    readers = [threading.Thread(target=read_output, daemon=True)]
    if posix:
        stream = os.fdopen(channel_read, "rb")
        readers.append(threading.Thread(target=read_channel, args=(stream,), daemon=True))
    for reader in readers:
        reader.start()
    try:
        process.stdin.write(program.encode("utf-8"))
        process.stdin.close()
    except OSError:
        pass  # it ended already; its output says why
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        run.timed_out = True
    # Whatever the tests started (a pool of workers, a forgotten child) goes too.
    if posix:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    else:
        process.kill()
    run.returncode = process.wait()
    for reader in readers:
        reader.join(timeout=10)
    if not posix:
        read_channel(open(channel_path, "rb"))
        os.unlink(channel_path)
    run.elapsed = time.monotonic() - started
    run.output = output.text()
    return run


class _BoundedOutput:
    """The first and last `kept` bytes of a stream, and how many were dropped in between."""

    def __init__(self, kept: int):
        self.kept = kept
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.kept - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.kept:
            excess = len(self.tail) - self.kept
            self.dropped += excess
            del self.tail[:excess]

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of output dropped ...]\n" if self.dropped else ""
        return (bytes(self.head).decode(errors="replace") + middle) + bytes(self.tail).decode(
            errors="replace"
        )


def interpret(task: Task, run: GradingRun, timeout: float | None, expected: int | None):
    """The TaskResult of a grading run.

    The run FAILs when it timed out, crashed or ended before pytest's session did (os._exit),
    when a test file could not be collected, when pytest stopped with an error of its own, or
    when the number of tests that ran is not `expected`. It is TAMPERED when the subprocess
    saw pytest's machinery replaced, or lines without the run's secret came on the channel.
    """
    import signal

    result = TaskResult(task, exit_code=run.returncode, expected=expected, output=run.output)
    result.elapsed = run.elapsed
    result.tampering = list(run.tampered)
    if run.forged_lines:
        result.tampering.append(
            f"{run.forged_lines} lines without the grader's secret came on the result channel"
        )
    for node_id, phases in run.reports.items():
        outcome = _outcome(phases)
        if node_id in run.skips_from_package and outcome == "skipped":
            outcome = "failed"
        result.outcomes[node_id] = outcome
        if outcome == "passed":
            result.passed += 1
        elif outcome == "skipped":
            result.skipped += 1
        else:
            result.failed += outcome == "failed"
            result.errors += outcome == "error"
            result.failing.append(node_id)
    result.collection_errors = list(run.collect_errors)
    during = f" during {run.running}" if run.running else ""
    if run.timed_out:
        result.detail = f"timed out after {timeout:g} s{during}"
    elif run.finished is None and not run.started:
        result.detail = f"pytest exited with code {run.returncode}: {last_lines(run.output)}"
    elif run.finished is None and run.returncode is not None and run.returncode < 0:
        try:
            name = signal.Signals(-run.returncode).name
        except ValueError:
            name = f"signal {-run.returncode}"
        result.detail = f"the test process crashed ({name}){during}"
    elif run.finished is None:
        result.detail = (
            f"the test process ended (exit code {run.returncode}) before pytest finished"
            f"{during}: os._exit() or a crash"
        )
    elif result.collection_errors:
        pass
    elif run.finished not in (0, 1, PYTEST_NO_TESTS):
        result.detail = f"pytest exited with code {run.finished}: {last_lines(run.output)}"
    elif run.collected is not None and len(result.outcomes) < len(run.collected):
        missing = len(run.collected) - len(result.outcomes)
        result.detail = f"{missing} of the {len(run.collected)} collected tests did not run"
    elif expected is not None and len(result.outcomes) != expected:
        result.detail = f"{len(result.outcomes)} tests ran; task {task.id} has {expected}"
    for node_id, where in run.skips_from_package.items():
        if result.outcomes.get(node_id) == "failed":
            result.detail = result.detail or f"a test was skipped from the package ({where})"
    return result


def _outcome(phases: list[tuple[str, str, bool, str]]) -> str:
    """One test's outcome from its (when, outcome, xfail, message) phase reports."""
    outcome = "passed"
    for when, phase_outcome, xfail, _ in phases:
        if phase_outcome == "failed":
            return "failed" if when == "call" else "error"
        if phase_outcome == "skipped" or xfail:
            outcome = "skipped"
    if not any(when == "call" for when, *_ in phases) and outcome == "passed":
        return "error"
    return outcome
