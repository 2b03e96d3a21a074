"""Check that every exercise task is real (CI runs this).

Usage:
    python scripts/check_exercises.py                 # every task, one at a time
    python scripts/check_exercises.py -j 2            # two tasks at a time
    python scripts/check_exercises.py --tasks 1.2,1.3
    python scripts/check_exercises.py --module 0

Checks:
  1. every solution marker under minitorch/ is valid (balanced, not nested, inside a function,
     naming a task of [tool.minitorch.tasks]);
  2. every task has a solution region and tests carrying its marker, and every
     `mark.taskM_N` used in tests/ names a task of the table;
  3. with the solutions in place, every task's tests pass;
  4. for every task T, in a temporary copy of the project where only T's regions are stubbed,
     every one of T's tests fails (a test that still passes checks code the student is given:
     its marker is wrong, and the student would see it pass before doing any work).
It prints one line per task, e.g.

  0.1  Basic scalar operators  reference 12/12 pass  stubbed 0/12 pass  OK

then lists the tests that pass with their task stubbed, and, when ruff is installed, warns
about lint errors that stubbing creates in the student copy and the reference does not have (an
import used only inside a solution, say). Those are warnings, not failures.

Exit status: 0 when every check passes, 1 otherwise, 2 for an unknown task or module.
"""

import argparse
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from exercise_copies import make_student_copy
from exercise_grading import TaskResult, run_task_tests
from exercise_guards import grading_env
from exercises import (
    ExerciseError,
    Project,
    Task,
    add_selection_arguments,
    find_test_markers,
    marker_test_files,
)

# The project this script lives in (in a student copy: the copy).
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_selection_arguments(parser)
    parser.add_argument(
        "-j", "--jobs", type=int, default=1, help="test runs at a time (default: 1)"
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=float,
        default=600,
        help="limit for one task's test run (default: 600)",
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")

    started = time.monotonic()
    try:
        project = Project.load(PROJECT_ROOT)
    except ExerciseError as error:
        print(f"check_exercises: {error}", file=sys.stderr)
        return 1
    try:
        tasks = project.select(args.module, args.tasks)
    except ExerciseError as error:
        print(f"check_exercises: {error}", file=sys.stderr)
        return 2
    try:
        regions = project.scan()
    except ExerciseError as error:
        print(f"Invalid solution markers:\n{error}")
        return 1
    problems = marker_problems(project)
    tasks_with_regions = {region.task_id for region in regions}
    test_files = marker_test_files(project.root)

    warnings = []
    offenders = []  # tests that pass with their task stubbed
    tasks_ok = 0
    title_width = max(len(task.title) for task in tasks)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        runs = {}
        for task in tasks:
            files = test_files.get(task.marker)
            reference = pool.submit(run_task_tests, project.root, task, files, args.timeout)
            stubbed = None
            if task.id in tasks_with_regions:
                stubbed = pool.submit(check_stubbed, project, task, files, args.timeout)
            runs[task.id] = (reference, stubbed)
        for task in tasks:
            reference, stubbed = runs[task.id]
            stubbed_result, lint = stubbed.result() if stubbed else (None, [])
            reasons = task_problems(task, reference.result(), stubbed_result, tasks_with_regions)
            tasks_ok += not reasons
            print(task_line(task, title_width, reference.result(), stubbed_result, reasons))
            sys.stdout.flush()
            warnings += [f"task {task.id} stubbed: {line}" for line in lint]
            if stubbed_result is not None:
                offenders += [
                    f"  {node_id}  ({task.marker})"
                    for node_id, outcome in stubbed_result.outcomes.items()
                    if outcome == "passed"
                ]

    if offenders:
        print("Tests that pass with their task's solution removed (they test given code):")
        print("\n".join(offenders))
    for problem in problems:
        print(problem)
    for warning in warnings:
        print(f"warning: {warning}")
    print(
        f"{tasks_ok}/{len(tasks)} tasks OK, {len(problems)} other problems "
        f"({time.monotonic() - started:.0f} s)"
    )
    return 0 if tasks_ok == len(tasks) and not problems else 1


def marker_problems(project: Project) -> list[str]:
    """Task markers in tests/ that name no task, and test files that do not parse."""
    uses, problems = find_test_markers(project.root)
    known = {task.marker for task in project.tasks.values()}
    for path, line, marker in uses:
        if marker not in known:
            problems.append(
                f"{path}:{line}: marker {marker} names no task of [tool.minitorch.tasks]"
            )
    return problems


def check_stubbed(
    project: Project, task: Task, test_files: list[str] | None, timeout: float
) -> tuple[TaskResult, list[str]]:
    """Run `task`'s tests (in `test_files`) in a temporary copy where only its regions are stubbed.

    Returns the result and the lint errors (ruff) of the stubbed files.
    """
    with tempfile.TemporaryDirectory(prefix=f"minitorch-{task.marker}-") as scratch:
        copy = Path(scratch) / "project"
        regions = make_student_copy(project, copy, [task])
        seed_kernel_cache(project.root, copy)
        env = grading_env(copy, PYTHONDONTWRITEBYTECODE="1")
        for name in KERNEL_CACHE_VARIABLES:  # the copy's kernels stay beside its sources
            env.pop(name, None)
        # Every test must fail; don't let hypothesis shrink the failures (a stubbed task fails
        # on every example anyway).
        result = run_task_tests(
            copy, task, test_files, timeout, env, hypothesis_profile="exercise-check"
        )
        paths = sorted({region.path for region in regions})
        lint = new_lint_errors(lint_errors(project.root, paths), lint_errors(copy, paths))
    return result, lint


# Settings that move the kernel cache out of the source tree (README: compiled kernels).
KERNEL_CACHE_VARIABLES = ("MINITORCH_CACHE_DIR", "NUMBA_CACHE_DIR")
# Numba's files of compiled kernels, in the __pycache__ folders beside their sources.
KERNEL_CACHE_FILES = ("*.nbi", "*.nbc")


def seed_kernel_cache(root: Path, copy: Path) -> None:
    """Copy the compiled kernels of project `root` into its copy `copy`.

    A kernel whose code the stub left alone then loads instead of compiling again: Numba checks
    each source file's time and size (which the copy keeps, and a stubbed file does not), and
    minitorch's key has the code of the functions the kernel calls.
    """
    for pattern in KERNEL_CACHE_FILES:
        for path in (root / "minitorch").rglob(pattern):
            target = copy / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)


def lint_errors(root: Path, paths: list[str]) -> list[str]:
    """ruff's findings in these files of project `root` ([] when ruff is not installed)."""
    if not paths or importlib.util.find_spec("ruff") is None:
        return []
    command = [sys.executable, "-m", "ruff", "check", "--no-cache", "--quiet"]
    command += ["--output-format", "concise", *paths]
    process = subprocess.run(command, cwd=root, capture_output=True, text=True)
    return process.stdout.strip().splitlines()


def new_lint_errors(before: list[str], after: list[str]) -> list[str]:
    """The findings of `after` that `before` does not have, line numbers aside.

    A finding reads "path:line:column: CODE message"; stubbing moves lines, so findings are
    compared by path, code and message.
    """
    unmatched = Counter(_without_position(finding) for finding in before)
    new = []
    for finding in after:
        key = _without_position(finding)
        if unmatched[key]:
            unmatched[key] -= 1
        else:
            new.append(finding)
    return new


def _without_position(finding: str) -> str:
    return re.sub(r":\d+:\d+:", ":", finding, count=1)


def task_problems(
    task: Task,
    reference: TaskResult,
    stubbed: TaskResult | None,
    tasks_with_regions: set[str],
) -> list[str]:
    """Why `task` is not a real exercise ([] when it is)."""
    problems = []
    if task.id not in tasks_with_regions:
        problems.append("no solution region in minitorch/")
    if reference.status == "NO TESTS" and reference.skipped:
        problems.append(f"all {reference.skipped} tests of {task.marker} were skipped")
    elif reference.status == "NO TESTS":
        problems.append(f"no test carries @pytest.mark.{task.marker}")
    elif reference.status == "FAIL":
        problems.append("reference fails: " + _why_failed(reference))
    if stubbed is not None and reference.status == "PASS":
        if stubbed.collection_errors:
            first_line = stubbed.collection_errors[0].splitlines()[0]
            problems.append(f"stubbing it breaks test collection: {first_line}")
        elif stubbed.detail:
            problems.append(f"stubbed run: {stubbed.detail}")
        elif stubbed.failed + stubbed.errors == 0:
            problems.append("no test fails with the solution removed")
        elif stubbed.passed:
            problems.append(
                f"{stubbed.passed} of its tests pass with the solution removed "
                "(their marker is wrong: see the list below)"
            )
    return problems


def _why_failed(result: TaskResult) -> str:
    if result.detail:
        return result.detail
    if result.collection_errors:
        return result.collection_errors[0].splitlines()[0]
    shown = ", ".join(result.failing[:3])
    more = len(result.failing) - 3
    return shown + (f" and {more} more" if more > 0 else "")


def _count(result: TaskResult) -> str:
    if result.status == "NO TESTS":
        return "no tests"
    return f"{result.passed}/{result.total} pass"


def task_line(
    task: Task,
    title_width: int,
    reference: TaskResult,
    stubbed: TaskResult | None,
    problems: list[str],
) -> str:
    """ "0.1  Basic scalar operators  reference 12/12 pass  stubbed 0/12 pass  OK"."""
    reference_text = f"reference {_count(reference)}"
    stubbed_text = f"stubbed {_count(stubbed)}" if stubbed else "stubbed -"
    verdict = "FAIL: " + "; ".join(problems) if problems else "OK"
    return (
        f"{task.id:<5} {task.title:<{title_width}}  {reference_text:<24}  {stubbed_text:<22}  "
        f"{verdict}"
    )


if __name__ == "__main__":
    sys.exit(main())
