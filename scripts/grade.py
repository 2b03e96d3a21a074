"""Grade the exercises of a project (by default, the one this script lives in), task by task.

Usage:
    python scripts/grade.py                                # every task
    python scripts/grade.py --module 1                     # the tasks of module 1
    python scripts/grade.py --tasks 1.2,1.3 --json scores.json
    python scripts/grade.py --project ../alice --reference ../pristine   # an instructor

Each task M.N runs its tests (those marked taskM_N) in a fresh Python subprocess, in a process
group of its own that is killed whole when the task ends or runs past --timeout. The results
come back on a private channel of that subprocess, not from its output or a report file. The
table shows, per task: tests passed/total and PASS, FAIL, NO TESTS or TAMPERED, with the reason
of a FAIL that is not a failing test: a timeout, a crash or os._exit() before pytest finished, a
test file that could not be collected (with the file and line of the error), or another number
of tests than the task has.

Hypothesis runs with the profile "exercise-check" of tests/conftest.py (no shrinking of failing
examples, no deadline), so that a first grade with every test failing is quick; choose another
with --hypothesis-profile (e.g. "default" for pytest's usual minimal failing examples).

A student copy written by make_exercises.py holds exercise-manifest.json: the checksums of
tests/, pyproject.toml and setup.cfg, and each task's number of tests. grade.py refuses to grade
a copy whose files differ or that has no manifest (--without-manifest grades an instructor's
full project, which has none; a root conftest.py or pytest.ini is refused there too), and gives
no score when the test subprocess saw pytest's machinery replaced (TAMPERED). It also refuses
(TAMPERED) a file of the root, tests/ or scripts/ named like a standard or installed module (a
`pytest.py`, `json.py`): the test subprocesses start in Python's safe-path mode (`-P`), but
those folders are on some grading process's import path. With --reference DIR it grades the
package (minitorch/) of --project with the tests, conftest.py and settings of the pristine copy
DIR instead of the project's own.

Exit status: 0 when every selected task passes, 1 otherwise, 2 for an unknown task or module or
a bad option, 3 when it cannot grade: pytest or hypothesis is missing or installed but does not
import (with how to repair it), the manifest is missing, or the tests or pytest were tampered
with.
"""

import sys

if __name__ == "__main__":
    # Python puts this script's folder first on its import path. Moved last, a file there named
    # like a standard or installed module (scripts/json.py) cannot replace it for the grader;
    # shadowing_files() then reports the file.
    sys.path.append(sys.path.pop(0))

import argparse  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from exercise_copies import (  # noqa: E402
    MANIFEST,
    count_task_tests,
    graded_tree,
    manifest_problems,
    read_manifest,
    remove_test_caches,
    settings_files_added,
)
from exercise_grading import TaskResult, run_task_tests  # noqa: E402
from exercise_guards import missing_test_tools, shadowing_files, unimportable_test_tools  # noqa: E402
from exercises import ExerciseError, Project, add_selection_arguments, marker_test_files  # noqa: E402

# The project this script lives in (in a student copy: the copy).
PROJECT_ROOT = Path(__file__).resolve().parents[1]
# The folder of this script, on its own import path.
GRADER_FOLDER = Path(__file__).resolve().parent
CANNOT_GRADE = 3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_selection_arguments(parser)
    parser.add_argument("--json", metavar="FILE", type=Path, help="also write the results here")
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=float,
        default=600,
        help="a task whose tests run longer fails (default: 600)",
    )
    parser.add_argument(
        "--hypothesis-profile",
        metavar="NAME",
        default="exercise-check",
        help="hypothesis settings profile (default: exercise-check, which does not shrink)",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        type=Path,
        default=PROJECT_ROOT,
        help="the project to grade (default: the one this script is in)",
    )
    parser.add_argument(
        "--reference",
        metavar="DIR",
        type=Path,
        help="grade the project's minitorch/ with the tests and settings of this pristine copy",
    )
    parser.add_argument(
        "--without-manifest",
        action="store_true",
        help="grade a project that has no exercise-manifest.json (an instructor's full project): "
        "its tests are not checked against one",
    )
    args = parser.parse_args(argv)

    missing = missing_test_tools()
    if missing:
        print(
            f"grade: cannot grade: {' and '.join(missing)} not installed; "
            "install the test tools with: pip install -e '.[test]'",
            file=sys.stderr,
        )
        return CANNOT_GRADE

    project_root = args.project.resolve()
    with tempfile.TemporaryDirectory(prefix="minitorch-grade-") as scratch:
        try:
            if args.reference is not None:
                reference = args.reference.resolve()
                problems = tampering(reference, "the reference copy")
                if problems:
                    return refuse(problems)
                root = graded_tree(project_root, reference, Path(scratch) / "graded")
            else:
                problems = tampering(project_root, "this copy")
                if problems:
                    return refuse(problems)
                root = project_root
            project = Project.load(root)
        except ExerciseError as error:
            print(f"grade: {error}", file=sys.stderr)
            return 1
        shadows = shadowing_files(root) + shadowing_files(GRADER_FOLDER, (".",))
        if shadows:
            return refuse_tampered(shadows)
        broken = unimportable_test_tools(root)
        if broken:
            print(
                f"grade: cannot grade: {' and '.join(broken)}: installed but does not import; "
                "repair the test tools with: pip install --force-reinstall -e '.[test]'",
                file=sys.stderr,
            )
            return CANNOT_GRADE
        try:
            tasks = project.select(args.module, args.tasks)
        except ExerciseError as error:
            print(f"grade: {error}", file=sys.stderr)
            return 2
        try:
            expected = expected_counts(root, args.reference)
        except ExerciseError as error:
            print(f"grade: {error}", file=sys.stderr)
            return 1
        if read_manifest(root) is None and args.reference is None:
            if not args.without_manifest:
                return refuse_unchecked(root)
            added = settings_files_added(root)
            if added:
                return refuse_tampered(added)
        remove_test_caches(root)
        results = grade(root, tasks, expected, args.timeout, args.hypothesis_profile)

    tampered = [result for result in results if result.status == "TAMPERED"]
    tasks_passed = sum(result.status == "PASS" for result in results)
    tests_passed = sum(result.passed for result in results)
    tests_total = sum(result.total for result in results)
    if tampered:
        print(
            "No score: pytest's machinery was replaced while the tests ran "
            f"(task {', '.join(result.task.id for result in tampered)}); "
            "remove the code that does it and grade again."
        )
    else:
        print(
            f"Score: {tasks_passed}/{len(results)} tasks pass, "
            f"{tests_passed}/{tests_total} tests pass"
        )
        failing = [result.task for result in results if result.status == "FAIL"]
        if failing:
            print(f"See one task's failures with: python -m pytest -m {failing[0].marker}")

    if args.json:
        report = {
            "project": str(project_root),
            "reference": str(args.reference.resolve()) if args.reference else None,
            "hypothesis_profile": args.hypothesis_profile,
            "tasks": [result.to_json() for result in results],
            "tampered": bool(tampered),
            "tasks_passed": None if tampered else tasks_passed,
            "tasks_total": len(results),
            "tests_passed": None if tampered else tests_passed,
            "tests_total": tests_total,
        }
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if tampered:
        return CANNOT_GRADE
    return 0 if tasks_passed == len(results) else 1


def tampering(root: Path, which: str) -> list[str]:
    """How `root` differs from its exercise manifest ([] when it has none)."""
    manifest = read_manifest(root)
    if manifest is None:
        return []
    return [f"{which}: {problem}" for problem in manifest_problems(root, manifest)]


def refuse_tampered(problems: list[str]) -> int:
    print("grade: cannot grade: TAMPERED: files of the project would change what is graded:")
    for problem in problems:
        print(f"  {problem}")
    print("Remove them and grade again; your own code belongs in minitorch/.")
    return CANNOT_GRADE


def refuse_unchecked(root: Path) -> int:
    print(
        f"grade: cannot grade: {root} has no {MANIFEST}, so its tests cannot be checked. A copy "
        "made by make_exercises.py has one: restore it (e.g. from a fresh copy). An instructor "
        "grading a full project passes --without-manifest."
    )
    return CANNOT_GRADE


def refuse(problems: list[str]) -> int:
    print("grade: cannot grade: the tests or their settings differ from the exercise's:")
    for problem in problems:
        print(f"  {problem}")
    print(
        "Restore them (e.g. copy them from a fresh make_exercises.py copy); "
        "your own code belongs in minitorch/."
    )
    return CANNOT_GRADE


def expected_counts(root: Path, reference: Path | None) -> dict[str, int] | None:
    """Each task's number of tests: from the manifest, or (--reference) by collecting them."""
    manifest = read_manifest(root)
    if manifest is not None and manifest.get("tests") is not None:
        return manifest["tests"]
    if reference is not None:
        # Collected in the reference itself: the student's package does not take part.
        return count_task_tests(reference.resolve())
    return None


def grade(
    root: Path,
    tasks: list,
    expected: dict[str, int] | None,
    timeout: float,
    hypothesis_profile: str,
) -> list[TaskResult]:
    """Run each task's tests in its own subprocess; print its row as soon as it is known."""
    title_width = max(len(task.title) for task in tasks)
    print(f"{'Task':<5} {'Title':<{title_width}}  {'Tests':>9}  Status", flush=True)
    test_files = marker_test_files(root)
    results = []
    for task in tasks:
        result = run_task_tests(
            root,
            task,
            test_files.get(task.marker),
            timeout=timeout,
            expected=None if expected is None else expected.get(task.id, 0),
            hypothesis_profile=hypothesis_profile,
        )
        results.append(result)
        print(table_row(result, title_width), flush=True)
    return results


def table_row(result: TaskResult, title_width: int) -> str:
    """ "0.1   Basic scalar operators       12/12     PASS"."""
    task = result.task
    tests = f"{result.passed}/{result.total}"
    row = f"{task.id:<5} {task.title:<{title_width}}  {tests:>9}  {result.status}"
    if result.reason:
        row += f"  ({result.reason})"
    elif result.skipped:
        row += f"  ({result.skipped} skipped)"
    return row


if __name__ == "__main__":
    sys.exit(main())
