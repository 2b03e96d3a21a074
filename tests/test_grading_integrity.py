"""What grade.py refuses before it grades, and what its test processes check: files of the
project that shadow a standard or testing module, a student copy without its manifest, a root
conftest.py, test tools that are installed but do not import.

The fake projects and scripts are those of tests/exercise_projects.py.
"""

import subprocess
import sys
from pathlib import Path

import pytest
from exercise_projects import (
    exercise_grading,
    exercise_guards,
    exercises,
    grade,
    load_script,
    make_project,
    row,
    student_copy,
)


def refused(graded: subprocess.CompletedProcess) -> str:
    """The output of a grade.py run that refused to grade (exit 3, no table, no score)."""
    assert graded.returncode == 3, graded.stdout + graded.stderr
    assert "Score" not in graded.stdout and "Task  Title" not in graded.stdout, graded.stdout
    return graded.stdout + graded.stderr


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("pytest.py", "pytest.py shadows the installed module pytest"),
        ("json.py", "json.py shadows the standard module json"),
        ("scripts/signal.py", "scripts/signal.py shadows the standard module signal"),
        ("hypothesis/__init__.py", "hypothesis/ shadows the installed module hypothesis"),
    ],
)
def test_a_file_that_shadows_a_module_is_tampering(tmp_path, name, what):
    student = student_copy(tmp_path)
    (student / name).parent.mkdir(exist_ok=True)
    (student / name).write_text("raise SystemExit('the real module was replaced')\n")
    output = refused(grade(student))
    assert "TAMPERED" in output and f"\n  {what}\n" in output, output


def test_a_test_folder_file_that_shadows_a_module_is_tampering_without_a_manifest(tmp_path):
    # With the manifest, any file added to tests/ is refused already.
    student = student_copy(tmp_path)
    (student / "exercise-manifest.json").unlink()
    (student / "tests" / "secrets.py").write_text("def token_hex(n):\n    return '0'\n")
    output = refused(grade(student, "--without-manifest"))
    assert "TAMPERED" in output, output
    assert "\n  tests/secrets.py shadows the standard module secrets\n" in output, output


def test_the_grading_process_does_not_import_from_its_own_folder(tmp_path):
    # Without safe-path mode the runner's own `import pytest` would load this file.
    root = make_project(tmp_path / "project", {"pytest.py": "raise SystemExit(7)\n"})
    project = exercises.Project.load(root)
    result = exercise_grading.run_task_tests(root, project.tasks["0.1"])
    assert (result.status, result.passed) == ("PASS", 2), result


def test_a_module_imported_from_the_project_under_a_standard_name_is_tampering(tmp_path):
    # Hidden where the files of the root are not looked at: found when it is imported.
    init = (
        "import sys\nfrom pathlib import Path\n\n"
        "sys.path.insert(0, str(Path(__file__).parent / 'vendor'))\n"
        "import colorsys  # noqa: E402\n\n"
        "from .ops import add, mul, neg  # noqa: E402\n"
    )
    files = {"minitorch/__init__.py": init, "minitorch/vendor/colorsys.py": "HIDDEN = 1\n"}
    project = exercises.Project.load(make_project(tmp_path / "project", files))
    result = exercise_grading.run_task_tests(project.root, project.tasks["0.1"])
    assert result.status == "TAMPERED", result
    assert "minitorch/vendor/colorsys.py was imported as the module colorsys" in result.reason


def test_a_student_copy_without_its_manifest_is_refused(tmp_path):
    student = student_copy(tmp_path)
    (student / "exercise-manifest.json").unlink()
    output = refused(grade(student))
    assert "has no exercise-manifest.json" in output and "--without-manifest" in output, output


def test_a_root_conftest_is_refused_with_or_without_the_manifest(tmp_path):
    student = student_copy(tmp_path)
    (student / "conftest.py").write_text("def pytest_runtest_call(item):\n    pass\n")
    with_manifest = refused(grade(student))
    assert "conftest.py was added (it would change pytest's settings)" in with_manifest
    (student / "exercise-manifest.json").unlink()
    without = refused(grade(student, "--without-manifest"))
    assert "TAMPERED" in without, without
    assert "conftest.py was added (it would change pytest's settings)" in without


def test_the_instructor_flag_grades_a_project_without_a_manifest(tmp_path):
    student = student_copy(tmp_path)
    (student / "exercise-manifest.json").unlink()
    graded = grade(student, "--without-manifest")
    assert graded.returncode == 1, graded.stdout + graded.stderr
    assert "0/2  FAIL" in row(graded)


def test_a_test_tool_that_does_not_import_is_named(tmp_path):
    broken = tmp_path / "site" / "hypothesis"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('a file of the install is missing')\n")
    root = make_project(tmp_path / "project")
    env = {**exercise_guards.grading_env(root), "PYTHONPATH": str(broken.parent)}
    assert exercise_guards.unimportable_test_tools(root, env) == [
        "hypothesis (ImportError: a file of the install is missing)"
    ]
    assert exercise_guards.unimportable_test_tools(root) == []


def test_grade_exits_3_with_the_repair_when_pytest_does_not_import(tmp_path, monkeypatch, capsys):
    grade_script = load_script("grade")
    monkeypatch.setattr(
        grade_script, "unimportable_test_tools", lambda root: ["pytest (ImportError: no pluggy)"]
    )
    student = student_copy(tmp_path)
    assert grade_script.main(["--project", str(student), "--tasks", "0.1"]) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "grade: cannot grade: pytest (ImportError: no pluggy): installed but does not import; "
        "repair the test tools with: pip install --force-reinstall -e '.[test]'"
    ]


def test_the_grading_subprocess_starts_in_safe_path_mode():
    assert sys.version_info < (3, 11) or exercise_guards.SAFE_PATH == ["-P"]
    assert Path(exercise_grading.RUNNER).is_file()
