"""Grade the exercises of the project this script lives in, task by task.

Usage:
    python scripts/grade.py                                # every task
    python scripts/grade.py --module 1                     # the tasks of module 1
    python scripts/grade.py --tasks 1.2,1.3 --json scores.json

For each task M.N it runs `python -m pytest -m taskM_N` in the project root (the folder above
scripts/), so a student copy grades its own minitorch package even when another one is
installed, and prints a table: task, title, tests passed/total, status (PASS, FAIL, NO TESTS),
then the total score. --json FILE also writes the results as JSON.

Exit status: 0 when every selected task passes, 1 otherwise, 2 for an unknown task or module.
"""

import argparse
import json
import sys
from pathlib import Path

from exercises import (
    ExerciseError,
    Project,
    TaskResult,
    add_selection_arguments,
    marker_test_files,
    run_task_tests,
)

# The project this script lives in (in a student copy: the copy).
PROJECT_ROOT = Path(__file__).resolve().parents[1]


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
    args = parser.parse_args(argv)

    try:
        project = Project.load(PROJECT_ROOT)
    except ExerciseError as error:
        print(f"grade: {error}", file=sys.stderr)
        return 1
    try:
        tasks = project.select(args.module, args.tasks)
    except ExerciseError as error:
        print(f"grade: {error}", file=sys.stderr)
        return 2

    title_width = max(len(task.title) for task in tasks)
    print(f"{'Task':<5} {'Title':<{title_width}}  {'Tests':>9}  Status")
    results = []
    test_files = marker_test_files(project.root)
    for task in tasks:
        result = run_task_tests(
            project.root, task, test_files.get(task.marker), timeout=args.timeout
        )
        results.append(result)
        print(table_row(result, title_width), flush=True)

    tasks_passed = sum(result.status == "PASS" for result in results)
    tests_passed = sum(result.passed for result in results)
    tests_total = sum(result.total for result in results)
    print(
        f"Score: {tasks_passed}/{len(results)} tasks pass, {tests_passed}/{tests_total} tests pass"
    )
    failing = [result.task for result in results if result.status == "FAIL"]
    if failing:
        print(f"See one task's failures with: python -m pytest -m {failing[0].marker}")

    if args.json:
        report = {
            "project": str(project.root),
            "tasks": [result.to_json() for result in results],
            "tasks_passed": tasks_passed,
            "tasks_total": len(results),
            "tests_passed": tests_passed,
            "tests_total": tests_total,
        }
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 0 if tasks_passed == len(results) else 1


def table_row(result: TaskResult, title_width: int) -> str:
    """ "0.1   Basic scalar operators       12/12     PASS"."""
    task = result.task
    tests = f"{result.passed}/{result.total}"
    row = f"{task.id:<5} {task.title:<{title_width}}  {tests:>9}  {result.status}"
    if result.detail:
        row += f"  ({result.detail})"
    elif result.collection_errors:
        row += f"  (tests could not be collected: {result.collection_errors[0].splitlines()[0]})"
    elif result.skipped:
        row += f"  ({result.skipped} skipped)"
    return row


if __name__ == "__main__":
    sys.exit(main())
