"""Write a student copy of this project with the solution of each selected task removed.

Usage:
    python scripts/make_exercises.py --out DIR                  # every task
    python scripts/make_exercises.py --out DIR --module 1       # the tasks of module 1
    python scripts/make_exercises.py --out DIR --tasks 1.2,1.3  # these tasks
    python scripts/make_exercises.py --out DIR --force          # overwrite a non-empty DIR

Each `# BEGIN SOLUTION M.N` ... `# END SOLUTION M.N` region of a selected task becomes
`raise NotImplementedError("Task M.N: <title> — see <tutorial>")`; the regions of the other tasks
are copied as they are. The student grades the copy with `python scripts/grade.py` inside it.

The copy also gets exercise-manifest.json: the checksums of its tests/, pyproject.toml and
setup.cfg and the number of tests of each task (collected here, in this project), which grade.py
checks. Without pytest installed here the counts are left out (with a warning).

Exit status: 0 on success, 1 when the markers are invalid, DIR is not empty (without --force)
or the copy does not import, 2 for an unknown task or module.
"""

import argparse
import sys
from pathlib import Path

from exercise_copies import count_task_tests, import_problem, make_student_copy, write_manifest
from exercise_guards import missing_test_tools
from exercises import ExerciseError, Project, add_selection_arguments

# The project this script lives in (in a student copy: the copy).
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True, type=Path, help="folder for the student copy")
    parser.add_argument("--force", action="store_true", help="overwrite a non-empty --out")
    add_selection_arguments(parser)
    args = parser.parse_args(argv)

    try:
        project = Project.load(PROJECT_ROOT)
    except ExerciseError as error:
        print(f"make_exercises: {error}", file=sys.stderr)
        return 1
    try:
        tasks = project.select(args.module, args.tasks)
    except ExerciseError as error:
        print(f"make_exercises: {error}", file=sys.stderr)
        return 2
    try:
        regions = make_student_copy(project, args.out, tasks, args.force)
    except ExerciseError as error:
        print(f"make_exercises: {error}", file=sys.stderr)
        return 1
    stubbed_tasks = {region.task_id for region in regions}
    for task in tasks:
        if task.id not in stubbed_tasks:
            print(
                f"make_exercises: warning: task {task.id} has no solution region", file=sys.stderr
            )

    problem = import_problem(args.out.resolve())
    if problem:
        print(
            f"make_exercises: the copy in {args.out} does not import:\n{problem}", file=sys.stderr
        )
        return 1
    counts = None
    if missing_test_tools():
        print(
            "make_exercises: warning: pytest or hypothesis is not installed here, so the copy's "
            "manifest has no test counts",
            file=sys.stderr,
        )
    else:
        try:
            counts = count_task_tests(project.root)
        except ExerciseError as error:
            print(f"make_exercises: {error}", file=sys.stderr)
            return 1
    write_manifest(args.out.resolve(), counts)
    files = sorted({region.path for region in regions})
    print(f"Wrote {args.out}: {len(regions)} solution regions of {len(tasks)} tasks stubbed in:")
    for path in files:
        print(f"  {path}")
    selection = f" --module {args.module}" if args.module else ""
    selection += f" --tasks {','.join(args.tasks)}" if args.tasks else ""
    print(f"Grade it with: cd {args.out} && python scripts/grade.py{selection}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
