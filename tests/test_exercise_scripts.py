"""The three scripts of the exercise tooling: make_exercises.py (a student copy),
grade.py (the table, the JSON, the exit codes) and check_exercises.py (every task fails when
stubbed).

The tools run on small fake projects built in tmp_path (tests/exercise_projects.py).
"""

import importlib.util
import json
import os
import subprocess
import sys

import exercise_projects
import pytest
from exercise_projects import (
    BAD_MARKERS,
    OPS,
    PYPROJECT,
    TESTS,
    exercise_grading,
    exercises,
    load_script,
    make_project,
    run_script,
)

# the fake project of exercise_projects, loaded by exercises.Project
project = exercise_projects.project

# --- make_exercises.py ------------------------------------------------------------------------


def test_make_exercises_stubs_selected_tasks_and_copies_the_project(tmp_path):
    root = make_project(tmp_path / "project")
    for junk in (".git/HEAD", "minitorch/__pycache__/ops.cpython.pyc", ".venv/bin/python"):
        (root / junk).parent.mkdir(parents=True, exist_ok=True)
        (root / junk).write_text("junk")
    out = tmp_path / "student"

    made = run_script(root, "make_exercises", "--out", str(out), "--tasks", "0.1,0.3")

    assert made.returncode == 0, made.stderr
    assert made.stdout.endswith("python scripts/grade.py --tasks 0.1,0.3\n"), made.stdout
    copied = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert copied == [
        "README.md",
        "exercise-manifest.json",
        "minitorch/__init__.py",
        "minitorch/ops.py",
        "pyproject.toml",
        "scripts/check_exercises.py",
        "scripts/exercise_copies.py",
        "scripts/exercise_grading.py",
        "scripts/exercise_guards.py",
        "scripts/exercises.py",
        "scripts/grade.py",
        "scripts/grade_runner.py",
        "scripts/make_exercises.py",
        "tests/conftest.py",
        "tests/test_ops.py",
        "tutorials/module0.md",
    ]
    ops = (out / "minitorch" / "ops.py").read_text()
    assert "# BEGIN SOLUTION 0.2\n    return x * y\n    # END SOLUTION 0.2\n" in ops
    assert "SOLUTION 0.1" not in ops and "SOLUTION 0.3" not in ops
    assert ops.count("raise NotImplementedError") == 2
    assert '"""$f(x) = -x$"""\n    raise NotImplementedError("Task 0.3: Negation' in ops
    assert (out / "tests" / "test_ops.py").read_text() == TESTS
    manifest = json.loads((out / "exercise-manifest.json").read_text())
    assert manifest["tests"] == {"0.1": 2, "0.2": 2}, "counted in the reference"
    assert sorted(manifest["sha256"]) == [
        "pyproject.toml",
        "tests/conftest.py",
        "tests/test_ops.py",
    ]


def test_make_exercises_refuses_non_empty_out_unless_forced(tmp_path):
    root = make_project(tmp_path / "project")
    out = tmp_path / "student"
    (out / ".git").mkdir(parents=True)
    (out / "minitorch").mkdir()
    (out / "minitorch" / "stale.py").write_text("")

    refused = run_script(root, "make_exercises", "--out", str(out))
    assert refused.returncode == 1
    assert "is not empty (use --force" in refused.stderr
    assert not (out / "minitorch" / "ops.py").exists()

    forced = run_script(root, "make_exercises", "--out", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert (out / ".git").is_dir(), "--force replaces the project's entries, nothing else"
    assert not (out / "minitorch" / "stale.py").exists()
    assert (out / "minitorch" / "ops.py").read_text().count("raise NotImplementedError") == 3


@pytest.mark.parametrize(
    "selection, message",
    [(["--tasks", "0.1,4.2"], "unknown task 4.2"), (["--module", "5"], "no tasks in module '5'")],
)
def test_make_exercises_unknown_selection_exits_2(tmp_path, selection, message):
    root = make_project(tmp_path / "project")
    made = run_script(root, "make_exercises", "--out", str(tmp_path / "out"), *selection)
    assert made.returncode == 2
    assert message in made.stderr
    assert not (tmp_path / "out").exists()


def test_make_exercises_refuses_bad_markers_with_file_and_line(tmp_path):
    root = make_project(tmp_path / "project", {"minitorch/bad.py": BAD_MARKERS["mismatched id"][0]})
    made = run_script(root, "make_exercises", "--out", str(tmp_path / "out"))
    assert made.returncode == 1
    assert "minitorch/bad.py:4: END SOLUTION 0.2 closes BEGIN SOLUTION 0.1" in made.stderr


def test_make_exercises_reports_a_copy_that_does_not_import(tmp_path):
    init = "from .ops import add, mul, neg\n\nTWO = add(1, 1)\n"
    root = make_project(tmp_path / "project", {"minitorch/__init__.py": init})
    made = run_script(root, "make_exercises", "--out", str(tmp_path / "out"), "--tasks", "0.1")
    assert made.returncode == 1
    assert "does not import" in made.stderr and "Task 0.1: Addition" in made.stderr


def test_a_student_copy_of_this_project_collects_every_test(tmp_path):
    # grade.py's hint, `python -m pytest -m task4_1`, collects the whole suite of the copy:
    # every file a test reads (ARCHITECTURE.md, docs/) must be in the copy
    out = tmp_path / "student"
    made = run_script(exercise_projects.REPO, "make_exercises", "--out", str(out), "--tasks", "0.1")
    assert made.returncode == 0, made.stderr
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=out,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    assert "error" not in collected.stdout.splitlines()[-1], collected.stdout[-3000:]


# --- grade.py -----------------------------------------------------------------------------------


def test_grade_table_json_and_exit_code(tmp_path):
    root = make_project(
        tmp_path / "project", {"minitorch/ops.py": OPS.replace("return x * y", "return x + y")}
    )
    # Another minitorch earlier on PYTHONPATH must not be the one graded.
    decoy = tmp_path / "decoy" / "minitorch"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("def add(x, y):\n    return 0\n\nmul = neg = add\n")
    report = tmp_path / "scores.json"

    graded = run_script(
        root, "grade", "--without-manifest", "--json", str(report), PYTHONPATH=str(decoy.parent)
    )

    assert graded.returncode == 1, graded.stdout + graded.stderr
    lines = graded.stdout.splitlines()
    assert lines[0:5] == [
        "Task  Title               Tests  Status",
        "0.1   Addition              2/2  PASS",
        "0.2   Multiplication        1/2  FAIL",
        "0.3   Negation              0/0  NO TESTS",
        "Score: 1/3 tasks pass, 3/4 tests pass",
    ]
    scores = json.loads(report.read_text())
    assert [(t["id"], t["status"], t["passed"], t["total"]) for t in scores["tasks"]] == [
        ("0.1", "PASS", 2, 2),
        ("0.2", "FAIL", 1, 2),
        ("0.3", "NO TESTS", 0, 0),
    ]
    assert scores["tasks"][1]["failing"] == ["tests/test_ops.py::test_mul"]
    assert (scores["tasks_passed"], scores["tests_passed"], scores["tests_total"]) == (1, 3, 4)


def test_grade_selected_tasks_exit_0_when_all_pass(tmp_path):
    # Only the files that use a task's marker are collected for it: this one is not.
    broken = "import a_module_that_is_not_installed\n"
    root = make_project(tmp_path / "project", {"tests/test_unrelated.py": broken})
    graded = run_script(root, "grade", "--without-manifest", "--tasks", "0.2")
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert graded.stdout.splitlines()[1:] == [
        "0.2   Multiplication        2/2  PASS",
        "Score: 1/1 tasks pass, 2/2 tests pass",
    ]


def test_pytest_that_cannot_start_fails_the_task(tmp_path):
    pyproject = PYPROJECT.replace('addopts = "--strict-markers -q"', 'addopts = "--no-such-option"')
    project = exercises.Project.load(make_project(tmp_path, {"pyproject.toml": pyproject}))
    result = exercise_grading.run_task_tests(project.root, project.tasks["0.1"])
    assert (result.status, result.exit_code) == ("FAIL", 4), result
    assert result.detail.startswith("pytest exited with code 4: "), result.detail


def test_tests_running_too_long_fail_the_task(project):
    result = exercise_grading.run_task_tests(project.root, project.tasks["0.1"], timeout=0.01)
    assert (result.status, result.detail) == ("FAIL", "timed out after 0.01 s")
    assert result.exit_code == -9, "killed"


def test_grade_unknown_task_exits_2(tmp_path):
    graded = run_script(make_project(tmp_path / "project"), "grade", "--tasks", "3.1")
    assert graded.returncode == 2
    assert "unknown task 3.1" in graded.stderr


# --- check_exercises.py -------------------------------------------------------------------------


def test_check_exercises_reports_each_task(tmp_path):
    pyproject = PYPROJECT + '"0.4" = { title = "Division", tutorial = "tutorials/module0.md" }\n'
    # 0.2's tests do not call mul, so they cannot notice its stub.
    tests = TESTS.replace("minitorch.mul(2, 3)", "2 * 3").replace("minitorch.mul(2, 2)", "2 * 2")
    tests += "\n\n@pytest.mark.task0_3\ndef test_neg():\n    assert minitorch.neg(2) == -2\n"
    # The package calls neg while it is imported: stubbing 0.3 breaks `import minitorch`.
    init = "from .ops import add, mul, neg\n\nMINUS_ONE = neg(1)\n"
    # A lint error the reference has already: not the stub's doing, so not reported.
    ops = OPS.replace("import math\n", "import math\nimport os\n")
    files = {"pyproject.toml": pyproject, "tests/test_ops.py": tests, "minitorch/__init__.py": init}
    root = make_project(tmp_path / "project", {**files, "minitorch/ops.py": ops})

    checked = run_script(root, "check_exercises", "-j", "2")

    assert checked.returncode == 1, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    assert lines[0].split() == "0.1 Addition reference 2/2 pass stubbed 0/2 pass OK".split()
    assert lines[1].split()[:7] == "0.2 Multiplication reference 2/2 pass stubbed 2/2".split()
    assert lines[1].endswith("FAIL: no test fails with the solution removed")
    assert lines[2].split()[:5] == "0.3 Negation reference 1/1 pass".split()
    assert (
        "FAIL: stubbing it breaks test collection: minitorch/ops.py:23: "
        "NotImplementedError: Task 0.3: Negation"
    ) in lines[2]
    assert lines[3].split()[:5] == "0.4 Division reference no tests".split()
    assert lines[3].endswith(
        "FAIL: no solution region in minitorch/; no test carries @pytest.mark.task0_4"
    )
    assert lines[-1].startswith("1/4 tasks OK, 0 other problems")
    if importlib.util.find_spec("ruff"):
        # `math` is used only inside the solution of 0.1: unused once it is stubbed.
        assert "warning: task 0.1 stubbed: minitorch/ops.py:3:8: F401" in checked.stdout
        assert "`os` imported but unused" not in checked.stdout


def test_check_exercises_passes_a_sound_project(tmp_path):
    root = make_project(tmp_path / "project")
    checked = run_script(root, "check_exercises", "--tasks", "0.2", "-j", "2")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # every test of the task runs on the stub, and each must fail
    assert checked.stdout.splitlines()[0].split() == (
        "0.2 Multiplication reference 2/2 pass stubbed 0/2 pass OK".split()
    )


def test_unknown_test_marker_is_a_problem(project):
    check_exercises = load_script("check_exercises")
    stray = "import pytest\n\n\n@pytest.mark.task8_1\ndef test_other():\n    pass\n"
    (project.root / "tests" / "test_stray.py").write_text(stray)
    assert check_exercises.marker_problems(project) == [
        "tests/test_stray.py:4: marker task8_1 names no task of [tool.minitorch.tasks]"
    ]
