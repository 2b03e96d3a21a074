"""Grading a student copy: what a curious student tries to get marks without the work (patched
runners, late plugins, forged reports, early exits, crashes, changed tests, stray processes),
and what grade.py does about each.

The tools run on small fake projects built in tmp_path (tests/exercise_projects.py).
"""

import os
import shutil
import subprocess
import sys
import time

import exercise_projects
import pytest
from exercise_projects import (
    TESTS,
    exercise_grading,
    grade,
    make_project,
    row,
    run_script,
    solve_add,
    student_copy,
)

# the fake project of exercise_projects, loaded by exercises.Project
project = exercise_projects.project

# --- grading a student copy: what a curious student tries -------------------------------------

# Prepended to the student's minitorch/ops.py (a stubbed copy of the fake project) by the tests
# below: each is a way to get marks without the work.
NOOP_RUNTEST = """\
import _pytest.python

_pytest.python.Function.runtest = lambda self: None
"""

# Registers a plugin from the package, after pytest started, that turns every report green.
LATE_PLUGIN = """\
import gc

import _pytest.config
import pytest


class _Green:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        report.outcome, report.longrepr = "passed", None


for _config in [o for o in gc.get_objects() if isinstance(o, _pytest.config.Config)]:
    _config.pluginmanager.register(_Green())
"""

CONFTEST_HOOK = """

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome, report.longrepr = "passed", None
"""

# A task body that writes a passing report where the grader might read one (a --junitxml path
# in argv, any open file descriptor), then leaves without pytest's session ending.
FORGED_EXIT = """\
    import os, sys
    passing = '<testsuites><testsuite><testcase classname="t" name="t"/></testsuite></testsuites>'
    for arg in sys.argv:
        if arg.startswith("--junitxml="):
            open(arg.split("=", 1)[1], "w").write(passing)
    finish = b'{"event": "finish", "exitstatus": 0}\\n'
    for fd in range(3, 64):
        try:
            os.write(fd, finish)
        except OSError:
            pass
    os._exit(0)
"""


def test_grade_refuses_in_one_line_without_pytest(tmp_path):
    # The main job's install: the package without the [test] extra, so no pytest.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    root = make_project(tmp_path / "project")
    graded = subprocess.run(
        [str(python), "scripts/grade.py", "--module", "0"], cwd=root, capture_output=True, text=True
    )
    assert graded.returncode == 3
    assert graded.stdout == ""
    assert graded.stderr.splitlines() == [
        "grade: cannot grade: pytest and hypothesis not installed; "
        "install the test tools with: pip install -e '.[test]'"
    ]


def test_untouched_student_copy_grades_its_stubs_as_failing(tmp_path):
    student = student_copy(tmp_path)
    graded = grade(student)
    assert graded.returncode == 1, graded.stdout + graded.stderr
    assert graded.stdout.splitlines() == [
        "Task  Title         Tests  Status",
        "0.1   Addition        0/2  FAIL",
        "Score: 0/1 tasks pass, 0/2 tests pass",
        "See one task's failures with: python -m pytest -m task0_1",
    ]


def test_noop_runtest_patched_from_a_solution_file_gets_no_score(tmp_path):
    student = student_copy(tmp_path)
    (student / "minitorch" / "ops.py").write_text(
        NOOP_RUNTEST + (student / "minitorch" / "ops.py").read_text()
    )
    graded = grade(student)
    assert graded.returncode == 3, graded.stdout + graded.stderr
    assert "TAMPERED" in row(graded) and "Function.runtest was replaced" in row(graded)
    assert "Score" not in graded.stdout
    assert "No score: pytest's machinery was replaced" in graded.stdout


def test_plugin_registered_from_the_package_gets_no_score(tmp_path):
    student = student_copy(tmp_path)
    solve_add(student, "    return 0\n", prefix=LATE_PLUGIN)
    graded = grade(student)
    assert graded.returncode == 3, graded.stdout + graded.stderr
    assert "TAMPERED" in row(graded)
    assert "hook pytest_runtest_makereport gained an implementation" in row(graded)


@pytest.mark.parametrize(
    "change, problem",
    [
        ("conftest hook", "tests/conftest.py was changed"),
        ("new test", "tests/test_mine.py was added"),
        ("pytest.ini", "pytest.ini was added"),
        ("pyproject", "pyproject.toml was changed"),
    ],
)
def test_changed_tests_or_settings_are_refused(tmp_path, change, problem):
    student = student_copy(tmp_path)
    if change == "conftest hook":
        with open(student / "tests" / "conftest.py", "a") as conftest:
            conftest.write(CONFTEST_HOOK)
    elif change == "new test":
        (student / "tests" / "test_mine.py").write_text(
            "import pytest\n\n\n@pytest.mark.task0_1\ndef test_mine():\n    pass\n"
        )
    elif change == "pytest.ini":
        (student / "pytest.ini").write_text("[pytest]\naddopts = -p no:python\n")
    else:
        pyproject = student / "pyproject.toml"
        pyproject.write_text(pyproject.read_text().replace("--strict-markers ", ""))
    graded = grade(student)
    assert graded.returncode == 3, graded.stdout + graded.stderr
    assert f"\n  this copy: {problem}" in graded.stdout
    assert "Score" not in graded.stdout and "Task" not in graded.stdout


def test_reference_mode_grades_with_the_pristine_tests(tmp_path):
    student = student_copy(tmp_path)
    pristine = tmp_path / "pristine"
    shutil.copytree(student, pristine)
    # The student's copy: a conftest hook that makes every test pass, no manifest to catch it.
    with open(student / "tests" / "conftest.py", "a") as conftest:
        conftest.write(CONFTEST_HOOK)
    (student / "exercise-manifest.json").unlink()
    own = grade(student, "--without-manifest")
    assert "0.1   Addition        2/2  PASS" in own.stdout, "the loophole this mode closes"

    # What an instructor runs: their own grade.py, the student's package, the pristine tests.
    graded = run_script(
        pristine, "grade", "--project", str(student), "--reference", str(pristine), "--tasks", "0.1"
    )
    assert graded.returncode == 1, graded.stdout + graded.stderr
    assert "0.1   Addition        0/2  FAIL" in graded.stdout
    solve_add(student, "    return x + y\n")
    graded = run_script(
        pristine, "grade", "--project", str(student), "--reference", str(pristine), "--tasks", "0.1"
    )
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert "0.1   Addition        2/2  PASS" in graded.stdout


def test_forged_junit_and_channel_then_os_exit(tmp_path):
    student = student_copy(tmp_path)
    solve_add(student, FORGED_EXIT)
    graded = grade(student)
    assert graded.returncode == 3, graded.stdout + graded.stderr
    assert "TAMPERED" in row(graded)
    assert "lines without the grader's secret came on the result channel" in row(graded)


def test_os_exit_in_a_task_body_fails_the_task(tmp_path):
    student = student_copy(tmp_path)
    solve_add(student, "    import os\n    os._exit(0)\n")
    graded = grade(student)
    assert graded.returncode == 1
    assert row(graded) == (
        "0.1   Addition        0/1  FAIL  (the test process ended (exit code 0) before pytest "
        "finished during tests/test_ops.py::test_add: os._exit() or a crash)"
    )


def test_a_crash_fails_the_task(tmp_path):
    student = student_copy(tmp_path)
    solve_add(student, "    import os, signal\n    os.kill(os.getpid(), signal.SIGSEGV)\n")
    graded = grade(student)
    assert graded.returncode == 1
    assert row(graded).endswith(
        "FAIL  (the test process crashed (SIGSEGV) during tests/test_ops.py::test_add)"
    )


def test_syntax_error_is_reported_at_the_students_file_and_line(tmp_path):
    student = student_copy(tmp_path)
    solve_add(student, "    return x +* y\n")
    graded = grade(student)
    assert graded.returncode == 1
    assert row(graded) == (
        "0.1   Addition        0/0  FAIL  (tests could not be collected: "
        "minitorch/ops.py:8: SyntaxError: invalid syntax)"
    )


def test_skip_raised_from_the_package_fails(tmp_path):
    student = student_copy(tmp_path)
    solve_add(student, "    import pytest\n    pytest.skip('later')\n")
    graded = grade(student)
    assert graded.returncode == 1
    assert row(graded).startswith("0.1   Addition        0/2  FAIL"), row(graded)


def test_another_number_of_tests_than_expected_fails(project):
    result = exercise_grading.run_task_tests(project.root, project.tasks["0.1"], expected=3)
    assert (result.status, result.passed, result.detail) == (
        "FAIL",
        2,
        "2 tests ran; task 0.1 has 3",
    )


def test_huge_output_is_dropped_as_it_arrives(tmp_path):
    student = student_copy(tmp_path)
    solve_add(student, "    for _ in range(10):\n        print('x' * 20_000_000)\n    return 0\n")
    # Peak memory of the test process: pytest capturing 200 MB per test would hold it all.
    measure = (
        "import resource, sys\n"
        f"sys.path.insert(0, {str(student / 'scripts')!r})\n"
        "import exercise_grading, exercises\n"
        f"project = exercises.Project.load({str(student)!r})\n"
        "task = project.tasks['0.1']\n"
        "result = exercise_grading.run_task_tests(project.root, task, timeout=120)\n"
        "print(result.status, len(result.output), result.output.count('bytes of output dropped'))\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
    )
    ran = subprocess.run([sys.executable, "-c", measure], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    status_line, peak_mb = ran.stdout.splitlines()
    status, kept, dropped = status_line.split()
    assert status == "FAIL"
    assert int(kept) < 3 * exercise_grading.OUTPUT_KEPT and dropped == "1"
    assert int(peak_mb) < 150, f"the test process peaked at {peak_mb} MB"


@pytest.mark.parametrize("ending", ["timeout", "normal"])
def test_processes_started_by_the_tests_are_killed(tmp_path, ending):
    student = student_copy(tmp_path)
    pid_file = tmp_path / "child.pid"
    body = (
        "    import subprocess, time\n"
        "    child = subprocess.Popen(['sleep', '300'])\n"
        f"    open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        + ("    time.sleep(300)\n" if ending == "timeout" else "    return x + y\n")
    )
    solve_add(student, body)
    graded = run_script(student, "grade", "--tasks", "0.1", "--timeout", "5")
    if ending == "timeout":
        assert row(graded).endswith(
            "FAIL  (timed out after 5 s during tests/test_ops.py::test_add)"
        )
    else:
        assert "2/2  PASS" in row(graded)
    pid = int(pid_file.read_text())
    for _ in range(50):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                alive = stat.read().split(")")[-1].split()[0] != "Z"
        except FileNotFoundError:
            alive = False
        if not alive:
            break
        time.sleep(0.1)
    assert not alive, "the tests' child process outlived the grading"


HYPOTHESIS_TEST = """\
import pytest
from hypothesis import Phase, given, settings, strategies

import minitorch


@pytest.mark.task0_1
@given(strategies.integers(-1000, 1000))
def test_add_zero(x):
    assert minitorch.add(x, 0) == x
    assert Phase.shrink not in settings().phases, "graded without shrinking"
"""


def test_grading_does_not_shrink_unless_asked(tmp_path):
    root = make_project(tmp_path / "project", {"tests/test_ops.py": HYPOTHESIS_TEST})
    assert "1/1  PASS" in row(run_script(root, "grade", "--without-manifest", "--tasks", "0.1"))
    asked = run_script(
        root, "grade", "--without-manifest", "--tasks", "0.1", "--hypothesis-profile", "default"
    )
    assert "0/1  FAIL" in row(asked)


def test_check_exercises_lists_tests_that_pass_on_their_stub(tmp_path):
    # test_add_negative does not call add: it passes with 0.1 stubbed, so its marker is wrong.
    tests = TESTS.replace("assert minitorch.add(-2, 3) == 1", "assert -2 + 3 == 1")
    root = make_project(tmp_path / "project", {"tests/test_ops.py": tests})
    checked = run_script(root, "check_exercises", "--tasks", "0.1")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    assert lines[0].split()[:7] == "0.1 Addition reference 2/2 pass stubbed 1/2".split()
    why = "(their marker is wrong: see the list below)"
    assert lines[0].endswith(f"FAIL: 1 of its tests pass with the solution removed {why}")
    assert lines[1:3] == [
        "Tests that pass with their task's solution removed (they test given code):",
        "  tests/test_ops.py::test_add_negative  (task0_1)",
    ]
