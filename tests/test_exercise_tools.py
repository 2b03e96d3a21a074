"""Tests of the exercise tooling in scripts/ (exercises.py and the three scripts using it).

The tools run on small fake projects built in tmp_path: each has its own task table, a copy of
tests/conftest.py and of the scripts, a toy `minitorch` package and marked tests.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"


def load_script(name: str):
    """Import scripts/<name>.py as module `name` (the scripts import each other by name)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


exercises = load_script("exercises")

PYPROJECT = """\
[tool.ruff]
line-length = 100

[tool.pytest.ini_options]
pythonpath = ["."]
testpaths = ["tests"]
addopts = "--strict-markers -q"

[tool.minitorch.tasks]
"0.1" = { title = "Addition", tutorial = "tutorials/module0.md" }
"0.2" = { title = "Multiplication", tutorial = "tutorials/module0.md" }
"0.3" = { title = "Negation", tutorial = "tutorials/module0.md" }
"""

OPS = '''\
"""Toy operators."""

import math


def add(x: float, y: float) -> float:
    """$f(x, y) = x + y$"""
    # BEGIN SOLUTION 0.1
    return math.fsum([x, y])
    # END SOLUTION 0.1


def mul(x: float, y: float) -> float:
    """$f(x, y) = x * y$"""
    # BEGIN SOLUTION 0.2
    return x * y
    # END SOLUTION 0.2


def neg(x: float) -> float:
    """$f(x) = -x$"""
    # BEGIN SOLUTION 0.3
    return -x
    # END SOLUTION 0.3
'''

TESTS = """\
import pytest

import minitorch


@pytest.mark.task0_1
def test_add():
    assert minitorch.add(2, 3) == 5


@pytest.mark.task0_1
def test_add_negative():
    assert minitorch.add(-2, 3) == 1


@pytest.mark.task0_2
def test_mul_square():
    assert minitorch.mul(2, 2) == 4


@pytest.mark.task0_2
def test_mul():
    assert minitorch.mul(2, 3) == 6


def test_not_graded():
    assert minitorch.neg(1) == -1
"""


def make_project(root: Path, files: dict[str, str] | None = None) -> Path:
    """A fake project in `root`; `files` (path -> text) adds files or replaces the defaults."""
    contents = {
        "pyproject.toml": PYPROJECT,
        "README.md": "# Fake project\n",
        "minitorch/__init__.py": "from .ops import add, mul, neg\n",
        "minitorch/ops.py": OPS,
        "tests/test_ops.py": TESTS,
        "tutorials/module0.md": "# Module 0\n",
    }
    contents.update(files or {})
    for name, text in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    shutil.copy(REPO / "tests" / "conftest.py", root / "tests" / "conftest.py")
    (root / "scripts").mkdir(exist_ok=True)
    for script in ("exercises", "grade_runner", "make_exercises", "grade", "check_exercises"):
        shutil.copy(SCRIPTS / f"{script}.py", root / "scripts" / f"{script}.py")
    return root


def run_script(root: Path, script: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(root / "scripts" / f"{script}.py"), *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, **env},
    )


@pytest.fixture
def project(tmp_path: Path) -> "exercises.Project":
    return exercises.Project.load(make_project(tmp_path / "project"))


def regions_of(project, source: str, path: str = "minitorch/ops.py"):
    return exercises.scan_source(source, path, project)


# --- the task table -------------------------------------------------------------------------


def test_task_table_in_numeric_order_with_markers(tmp_path):
    table = textwrap.dedent("""\
        [tool.minitorch.tasks]
        "1.10" = { title = "Ten", tutorial = "t.md" }
        "1.2" = { title = "Two", tutorial = "t.md" }
        "0.1" = { title = "One", tutorial = "t.md" }
    """)
    (tmp_path / "pyproject.toml").write_text(table)
    project = exercises.Project.load(tmp_path)
    assert list(project.tasks) == ["0.1", "1.2", "1.10"]
    assert project.tasks["1.10"].marker == "task1_10"
    assert project.line_length == 88, "ruff's default line length when none is configured"


def test_select_by_module_and_by_ids(project):
    assert [task.id for task in project.select()] == ["0.1", "0.2", "0.3"]
    assert [task.id for task in project.select(module="0")] == ["0.1", "0.2", "0.3"]
    assert [task.id for task in project.select(task_ids=["0.3", "0.1"])] == ["0.3", "0.1"]
    with pytest.raises(exercises.ExerciseError, match=r"unknown task 9\.9 \(tasks: 0\.1, 0\.2"):
        project.select(task_ids=["0.1", "9.9"])
    with pytest.raises(exercises.ExerciseError, match=r"no tasks in module '4' \(modules: 0\)"):
        project.select(module="4")
    with pytest.raises(exercises.ExerciseError, match="no task ids given"):
        project.select(task_ids=[])


def test_parse_task_list():
    assert exercises.parse_task_list("1.2, 1.3,") == ["1.2", "1.3"]


# --- finding and stubbing regions --------------------------------------------------------------


def test_regions_found_with_lines_and_indent(project):
    regions = project.scan()
    assert [(r.task_id, r.path, r.begin, r.end, r.indent) for r in regions] == [
        ("0.1", "minitorch/ops.py", 8, 10, "    "),
        ("0.2", "minitorch/ops.py", 15, 17, "    "),
        ("0.3", "minitorch/ops.py", 22, 24, "    "),
    ]


def test_stub_replaces_only_the_region(project):
    regions = [r for r in project.scan() if r.task_id == "0.2"]
    stubbed = exercises.stub_source(OPS, regions, project)
    expected = OPS.replace(
        "    # BEGIN SOLUTION 0.2\n    return x * y\n    # END SOLUTION 0.2\n",
        '    raise NotImplementedError("Task 0.2: Multiplication — see tutorials/module0.md")\n',
    )
    assert expected != OPS
    assert stubbed == expected


def test_stub_keeps_deeper_indentation_docstring_and_line_endings(project):
    source = (
        "class Adder:\r\n"
        "    def add(self, x):\r\n"
        '        """Add one.\r\n'
        "\r\n"
        "        # BEGIN SOLUTION 0.1 (in a docstring: not a marker)\r\n"
        '        """\r\n'
        "        if x:\r\n"
        "            # BEGIN SOLUTION 0.1\r\n"
        "            y = x + 1\r\n"
        "            return y\r\n"
        "            # END SOLUTION 0.1\r\n"
        "        return 1\r\n"
    )
    regions, problems = regions_of(project, source)
    assert problems == []
    assert [(r.begin, r.end, r.indent) for r in regions] == [(8, 11, " " * 12)]
    stubbed = exercises.stub_source(source, regions, project)
    assert stubbed == (
        "class Adder:\r\n"
        "    def add(self, x):\r\n"
        '        """Add one.\r\n'
        "\r\n"
        "        # BEGIN SOLUTION 0.1 (in a docstring: not a marker)\r\n"
        '        """\r\n'
        "        if x:\r\n"
        '            raise NotImplementedError("Task 0.1: Addition — see tutorials/module0.md")\r\n'
        "        return 1\r\n"
    )


def test_long_stub_split_in_two_literals_with_the_same_message(tmp_path):
    title = "A title long enough that the one-line stub does not fit in a hundred columns"
    pyproject = PYPROJECT.replace('title = "Addition"', f'title = "{title}"')
    project = exercises.Project.load(make_project(tmp_path, {"pyproject.toml": pyproject}))
    lines = exercises.stub_lines(project.tasks["0.1"], "    ", project.line_length)
    assert lines == [
        "    raise NotImplementedError(",
        f'        "Task 0.1: {title}"',
        '        " — see tutorials/module0.md"',
        "    )",
    ]
    assert all(len(line) <= 100 for line in lines), [len(line) for line in lines]
    namespace = {}
    exec("def f():\n" + "\n".join(lines) + "\n", namespace)
    with pytest.raises(NotImplementedError) as raised:
        namespace["f"]()
    assert str(raised.value) == f"Task 0.1: {title} — see tutorials/module0.md"


def test_stub_escapes_quotes_and_backslashes(tmp_path):
    pyproject = PYPROJECT.replace('title = "Addition"', r'title = "The \"add\" op \\ sum"')
    project = exercises.Project.load(make_project(tmp_path, {"pyproject.toml": pyproject}))
    (line,) = exercises.stub_lines(project.tasks["0.1"], "", project.line_length)
    with pytest.raises(NotImplementedError, match=r'Task 0.1: The "add" op \\ sum — see'):
        exec(line)


BAD_MARKERS = {
    "begin without end": (
        "def f():\n    # BEGIN SOLUTION 0.1\n    return 1\n",
        "ops.py:2: BEGIN SOLUTION 0.1 has no END SOLUTION",
    ),
    "end without begin": (
        "def f():\n    return 1\n    # END SOLUTION 0.1\n",
        "ops.py:3: END SOLUTION 0.1 without a BEGIN SOLUTION",
    ),
    "nested": (
        "def f():\n    # BEGIN SOLUTION 0.1\n    # BEGIN SOLUTION 0.2\n    return 1\n"
        "    # END SOLUTION 0.2\n    # END SOLUTION 0.1\n",
        "ops.py:3: BEGIN SOLUTION 0.2 inside the region BEGIN SOLUTION 0.1 opened at line 2",
    ),
    "mismatched id": (
        "def f():\n    # BEGIN SOLUTION 0.1\n    return 1\n    # END SOLUTION 0.2\n",
        "ops.py:4: END SOLUTION 0.2 closes BEGIN SOLUTION 0.1 of line 2",
    ),
    "mismatched indentation": (
        "def f(x):\n    # BEGIN SOLUTION 0.1\n    if x:\n        return 1\n"
        "        # END SOLUTION 0.1\n    return 2\n",
        "ops.py:5: END SOLUTION 0.1 is indented differently from its BEGIN at line 2",
    ),
    "unknown task": (
        "def f():\n    # BEGIN SOLUTION 7.7\n    return 1\n    # END SOLUTION 7.7\n",
        "ops.py:2: BEGIN SOLUTION 7.7 names no task of [tool.minitorch.tasks]",
    ),
    "module level": (
        "# BEGIN SOLUTION 0.1\nX = 1\n# END SOLUTION 0.1\n",
        "ops.py:1: solution region at module level",
    ),
    "class body": (
        "class A:\n    # BEGIN SOLUTION 0.1\n    X = 1\n    # END SOLUTION 0.1\n",
        "ops.py:2: solution region outside a function body",
    ),
    "malformed": (
        "def f():\n    #BEGIN SOLUTION 0.1\n    return 1\n    # END SOLUTION 0.1\n",
        "ops.py:2: malformed marker '#BEGIN SOLUTION 0.1'",
    ),
    "missing id": (
        "def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION 0.1\n",
        "ops.py:2: malformed marker '# BEGIN SOLUTION'",
    ),
    "after code": (
        "def f():\n    x = 1  # BEGIN SOLUTION 0.1\n    return x\n    # END SOLUTION 0.1\n",
        "ops.py:2: a solution marker must be on a line of its own",
    ),
    "statement outside the block": (
        "def f(x):\n    if x:\n        # BEGIN SOLUTION 0.1\n        x = 1\n    x = 2\n"
        "        # END SOLUTION 0.1\n    return x\n",
        "ops.py:5: statement indented less than the BEGIN SOLUTION 0.1 at line 3",
    ),
    "stub leaves invalid code": (
        "def f(x):\n    # BEGIN SOLUTION 0.1\n    if x:\n        return 1\n"
        "    # END SOLUTION 0.1\n    else:\n        return 2\n",
        "ops.py:2: replacing this region with a stub gives invalid Python",
    ),
}


@pytest.mark.parametrize("case", BAD_MARKERS, ids=list(BAD_MARKERS))
def test_bad_markers_refused_with_file_and_line(project, case):
    source, expected = BAD_MARKERS[case]
    regions, problems = regions_of(project, source)
    assert regions == []
    assert len(problems) == 1 and problems[0].startswith("minitorch/" + expected), problems


def test_scan_reports_problems_of_every_file(project):
    (project.root / "minitorch" / "more.py").write_text(BAD_MARKERS["unknown task"][0])
    (project.root / "minitorch" / "sub").mkdir()
    (project.root / "minitorch" / "sub" / "deep.py").write_text(BAD_MARKERS["nested"][0])
    with pytest.raises(exercises.ExerciseError) as raised:
        project.scan()
    lines = str(raised.value).splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        "minitorch/more.py:2",
        "minitorch/sub/deep.py:3",
    ]


def test_find_test_markers_ignores_strings(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import pytest\nfrom pytest import mark\n\n"
        "pytestmark = pytest.mark.task0_1\n\n"
        "@mark.task9_9\ndef test_x():\n    assert '@pytest.mark.task5_5'\n"
    )
    uses, problems = exercises.find_test_markers(tmp_path)
    assert uses == [("tests/test_a.py", 4, "task0_1"), ("tests/test_a.py", 6, "task9_9")]
    assert problems == []
    assert exercises.marker_test_files(tmp_path) == {
        "task0_1": ["tests/test_a.py"],
        "task9_9": ["tests/test_a.py"],
    }


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
    result = exercises.run_task_tests(project.root, project.tasks["0.1"])
    assert (result.status, result.exit_code) == ("FAIL", 4), result
    assert result.detail.startswith("pytest exited with code 4: "), result.detail


def test_tests_running_too_long_fail_the_task(project):
    result = exercises.run_task_tests(project.root, project.tasks["0.1"], timeout=0.01)
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


def student_copy(tmp_path: Path, tasks: str = "0.1") -> Path:
    """A student copy (with its manifest) of the fake project, with `tasks` stubbed."""
    root = make_project(tmp_path / "project")
    out = tmp_path / "student"
    made = run_script(root, "make_exercises", "--out", str(out), "--tasks", tasks)
    assert made.returncode == 0, made.stderr
    return out


def solve_add(student: Path, body: str, prefix: str = "") -> None:
    """Replace the stub of add() in the student's ops.py by `body` (indented 4), `prefix` on top."""
    ops = student / "minitorch" / "ops.py"
    text = ops.read_text()
    stub = '    raise NotImplementedError("Task 0.1: Addition — see tutorials/module0.md")\n'
    assert stub in text
    ops.write_text(prefix + text.replace(stub, body))


def grade(student: Path, *args: str) -> subprocess.CompletedProcess:
    return run_script(student, "grade", "--tasks", "0.1", "--timeout", "60", *args)


def row(graded: subprocess.CompletedProcess, task: str = "0.1") -> str:
    (line,) = [line for line in graded.stdout.splitlines() if line.startswith(task + " ")]
    return line


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
    result = exercises.run_task_tests(project.root, project.tasks["0.1"], expected=3)
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
        "import exercises\n"
        f"project = exercises.Project.load({str(student)!r})\n"
        "result = exercises.run_task_tests(project.root, project.tasks['0.1'], timeout=120)\n"
        "print(result.status, len(result.output), result.output.count('bytes of output dropped'))\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
    )
    ran = subprocess.run([sys.executable, "-c", measure], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    status_line, peak_mb = ran.stdout.splitlines()
    status, kept, dropped = status_line.split()
    assert status == "FAIL"
    assert int(kept) < 3 * exercises.OUTPUT_KEPT and dropped == "1"
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
