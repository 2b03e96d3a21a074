"""Small fake projects for the tests of the exercise tooling in scripts/ (exercises.py, the
exercise_*.py modules beside it and the three scripts using them), built in tmp_path: each
has its own task table, a copy of tests/conftest.py and of the scripts, a toy `minitorch`
package and marked tests; and the steps of grading a student copy of one.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
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
exercise_guards = load_script("exercise_guards")
exercise_grading = load_script("exercise_grading")
exercise_copies = load_script("exercise_copies")

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
    for script in (
        "exercises",
        "exercise_guards",
        "exercise_grading",
        "exercise_copies",
        "grade_runner",
        "make_exercises",
        "grade",
        "check_exercises",
    ):
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


# Sources whose markers the tooling refuses: case -> (source, what it says)
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
