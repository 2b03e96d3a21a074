"""The exercise machinery shared by make_exercises.py, grade.py and check_exercises.py.

A task "M.N" is listed in `[tool.minitorch.tasks]` of pyproject.toml (title, tutorial). Its
solution is one or more marked regions inside function bodies under `minitorch/`:

    # BEGIN SOLUTION M.N
    ...
    # END SOLUTION M.N

and its tests carry the pytest marker `taskM_N`. This module reads the task table, finds and
validates the regions, replaces them with a `raise NotImplementedError(...)` stub, copies a
project, and runs one task's tests. Standard library only.
"""

from __future__ import annotations

import ast
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

PROJECT_ROOT = Path(__file__).resolve().parents[1]

# What a student copy contains (top-level entries of the project, copied when present) and what
# is left out of it at any depth.
PROJECT_ENTRIES = (
    "minitorch",
    "tests",
    "tutorials",
    "scripts",
    ".ci",
    "README.md",
    "LICENSE",
    "setup.cfg",
    "pyproject.toml",
    ".gitignore",
)
SKIPPED_NAMES = (
    ".git",
    ".venv",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".ruff_cache",
    ".ipynb_checkpoints",
    "*.egg-info",
    "build",
    "*.py[cod]",
    "*.nbi",
    "*.nbc",
)

TASK_ID = re.compile(r"\d+\.\d+")
MARKER = re.compile(r"# (?P<kind>BEGIN|END) SOLUTION (?P<task_id>\S+)")
# Anything that looks like an attempt at a marker, so that a typo is refused, not ignored.
MARKER_LIKE = re.compile(r"#\s*(begin|end)[\s_-]*solution\b", re.IGNORECASE)
TEST_MARKER = re.compile(r"task\d+_\d+")
# pytest's exit code when no test was collected (here: no test carries the task's marker).
PYTEST_NO_TESTS = 5


class ExerciseError(Exception):
    """A problem with the task table, the solution markers or the command line."""


@dataclass(frozen=True)
class Task:
    """One exercise task: id "M.N", a title and the tutorial that teaches it."""

    id: str
    title: str
    tutorial: str

    @property
    def module(self) -> str:
        return self.id.split(".")[0]

    @property
    def marker(self) -> str:
        """The pytest marker of the task's tests: "0.1" -> "task0_1"."""
        return "task" + self.id.replace(".", "_")


@dataclass(frozen=True)
class Region:
    """A solution region: lines `begin`..`end` (1-based, markers included) of file `path`."""

    task_id: str
    path: str  # relative to the project root, with forward slashes
    begin: int
    end: int
    indent: str


@dataclass(frozen=True)
class Project:
    """A project tree and its settings from pyproject.toml."""

    root: Path
    tasks: dict[str, Task]  # in task order: 0.1, 0.2, ..., 1.10
    line_length: int

    @classmethod
    def load(cls, root: Path = PROJECT_ROOT) -> Project:
        root = Path(root).resolve()
        pyproject = root / "pyproject.toml"
        try:
            with open(pyproject, "rb") as f:
                config = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise ExerciseError(f"cannot read {pyproject}: {error}") from error
        table = config.get("tool", {}).get("minitorch", {}).get("tasks")
        if not table:
            raise ExerciseError(f"{pyproject} has no [tool.minitorch.tasks] table")
        tasks = {}
        for task_id, entry in table.items():
            if not TASK_ID.fullmatch(task_id):
                raise ExerciseError(f"{pyproject}: task id {task_id!r} is not of the form M.N")
            if not isinstance(entry, dict) or not {"title", "tutorial"} <= entry.keys():
                raise ExerciseError(f"{pyproject}: task {task_id} needs a title and a tutorial")
            tasks[task_id] = Task(task_id, entry["title"], entry["tutorial"])
        ordered = dict(sorted(tasks.items(), key=lambda item: task_sort_key(item[0])))
        line_length = config.get("tool", {}).get("ruff", {}).get("line-length", 88)
        return cls(root, ordered, line_length)

    def select(self, module: str | None = None, task_ids: list[str] | None = None) -> list[Task]:
        """The tasks of one module, the listed ones, or (neither given) all of them."""
        if module is not None:
            chosen = [task for task in self.tasks.values() if task.module == module]
            if not chosen:
                modules = ", ".join(sorted({t.module for t in self.tasks.values()}, key=int))
                raise ExerciseError(f"no tasks in module {module!r} (modules: {modules})")
            return chosen
        if task_ids is not None:
            if not task_ids:
                raise ExerciseError("no task ids given")
            unknown = [task_id for task_id in task_ids if task_id not in self.tasks]
            if unknown:
                raise ExerciseError(
                    f"unknown task {', '.join(unknown)} (tasks: {', '.join(self.tasks)})"
                )
            return [self.tasks[task_id] for task_id in dict.fromkeys(task_ids)]
        return list(self.tasks.values())

    def source_files(self) -> list[Path]:
        """Every `*.py` file under minitorch/, in a stable order."""
        package = self.root / "minitorch"
        return sorted(path for path in package.rglob("*.py") if "__pycache__" not in path.parts)

    def scan(self) -> list[Region]:
        """All solution regions of the project; every marker problem found raises one error."""
        regions, problems = [], []
        for path in self.source_files():
            relative = path.relative_to(self.root).as_posix()
            try:
                source = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError as error:
                problems.append(f"{relative}: not UTF-8 text ({error})")
                continue
            found, file_problems = scan_source(source, relative, self)
            regions += found
            problems += file_problems
        if problems:
            raise ExerciseError("\n".join(problems))
        return regions


def task_sort_key(task_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in task_id.split("."))


def parse_task_list(text: str) -> list[str]:
    """ "1.2, 1.3" -> ["1.2", "1.3"]."""
    return [part.strip() for part in text.split(",") if part.strip()]


def add_selection_arguments(parser) -> None:
    """The --module / --tasks options every exercise script takes."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--module", metavar="M", help="only the tasks of module M (e.g. 1)")
    group.add_argument(
        "--tasks", metavar="IDS", type=parse_task_list, help="only these tasks, e.g. 1.2,1.3"
    )


@dataclass(frozen=True)
class _Marker:
    kind: str  # "BEGIN" or "END"
    task_id: str
    line: int
    indent: str


def scan_source(source: str, path: str, project: Project) -> tuple[list[Region], list[str]]:
    """The regions of one file, and its marker problems as "path:line: message" strings."""
    try:
        ast.parse(source)
        markers, statement_starts = _read_tokens(source)
    except SyntaxError as error:
        return [], [f"{path}:{error.lineno}: not valid Python: {error.msg}"]
    except tokenize.TokenError as error:
        return [], [f"{path}:{error.args[1][0]}: not valid Python: {error.args[0]}"]

    problems = []
    lines = source.splitlines()
    well_formed = []
    for line_number, column, comment in markers:
        where = f"{path}:{line_number}"
        match = MARKER.fullmatch(comment.rstrip())
        indent = lines[line_number - 1][:column]
        if match is None:
            problems.append(
                f"{where}: malformed marker {comment!r}; "
                "expected '# BEGIN SOLUTION M.N' or '# END SOLUTION M.N'"
            )
        elif indent.strip():
            problems.append(f"{where}: a solution marker must be on a line of its own")
        elif match["kind"] == "BEGIN" and match["task_id"] not in project.tasks:
            problems.append(
                f"{where}: BEGIN SOLUTION {match['task_id']} names no task of "
                "[tool.minitorch.tasks] in pyproject.toml"
            )
        elif match["kind"] == "BEGIN" and not indent:
            problems.append(
                f"{where}: solution region at module level; it must sit inside a function body, "
                "or stubbing it breaks `import minitorch`"
            )
        else:
            well_formed.append(_Marker(match["kind"], match["task_id"], line_number, indent))
    if problems:
        return [], problems

    regions, problem = _pair_markers(well_formed, path)
    if problem:
        return [], [problem]
    for region in regions:
        problem = _check_region(region, source, lines, statement_starts, project)
        if problem:
            problems.append(problem)
    return ([], problems) if problems else (regions, [])


def _read_tokens(source: str) -> tuple[list[tuple[int, int, str]], set[int]]:
    """Marker-like comments (line, column, text) and the lines on which a statement starts."""
    markers = []
    statement_starts = set()
    depth = 0
    at_line_start = True
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        kind, text, (line_number, column) = token.type, token.string, token.start
        if kind == tokenize.COMMENT:
            if MARKER_LIKE.match(text):
                markers.append((line_number, column, text))
            continue
        if kind in (tokenize.NL, tokenize.NEWLINE):
            at_line_start = depth == 0
            continue
        if kind in (tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        if at_line_start:
            statement_starts.add(line_number)
            at_line_start = False
        if kind == tokenize.OP and text in ("(", "[", "{"):
            depth += 1
        elif kind == tokenize.OP and text in (")", "]", "}"):
            depth -= 1
    return markers, statement_starts


def _pair_markers(markers: list[_Marker], path: str) -> tuple[list[Region], str | None]:
    """BEGIN/END pairs as regions, or the first structural problem."""
    regions = []
    opened = None
    for marker in markers:
        where = f"{path}:{marker.line}"
        if marker.kind == "BEGIN":
            if opened is not None:
                return [], (
                    f"{where}: BEGIN SOLUTION {marker.task_id} inside the region "
                    f"BEGIN SOLUTION {opened.task_id} opened at line {opened.line} "
                    "(regions cannot nest)"
                )
            opened = marker
        elif opened is None:
            return [], f"{where}: END SOLUTION {marker.task_id} without a BEGIN SOLUTION"
        elif marker.task_id != opened.task_id:
            return [], (
                f"{where}: END SOLUTION {marker.task_id} closes "
                f"BEGIN SOLUTION {opened.task_id} of line {opened.line}"
            )
        elif marker.indent != opened.indent:
            return [], (
                f"{where}: END SOLUTION {marker.task_id} is indented differently from its "
                f"BEGIN at line {opened.line}"
            )
        else:
            regions.append(Region(opened.task_id, path, opened.line, marker.line, opened.indent))
            opened = None
    if opened is not None:
        return [], f"{path}:{opened.line}: BEGIN SOLUTION {opened.task_id} has no END SOLUTION"
    return regions, None


def _check_region(
    region: Region, source: str, lines: list[str], statement_starts: set[int], project: Project
) -> str | None:
    """A problem that stubbing this region would cause, or None."""
    where = f"{region.path}:{region.begin}"
    for line_number in range(region.begin + 1, region.end):
        if line_number in statement_starts and not lines[line_number - 1].startswith(region.indent):
            return (
                f"{region.path}:{line_number}: statement indented less than the "
                f"BEGIN SOLUTION {region.task_id} at line {region.begin}"
            )
    stubbed = stub_source(source, [region], project)
    try:
        tree = ast.parse(stubbed)
    except SyntaxError as error:
        return f"{where}: replacing this region with a stub gives invalid Python: {error.msg}"
    if _scope_of_raise(tree, region.begin) != "function":
        return (
            f"{where}: solution region outside a function body; "
            "stubbing it would raise at import time"
        )
    return None


def _scope_of_raise(tree: ast.AST, line_number: int) -> str | None:
    """ "function", "class" or "module": where the `raise` statement on that line runs."""

    def visit(node: ast.AST, scope: str) -> str | None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Raise) and child.lineno == line_number:
                return scope
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                found = visit(child, "function")
            elif isinstance(child, ast.ClassDef):
                found = visit(child, "class")
            else:
                found = visit(child, scope)
            if found:
                return found
        return None

    return visit(tree, "module")


def stub_lines(task: Task, indent: str, line_length: int) -> list[str]:
    """The `raise NotImplementedError(...)` that replaces a region of `task`, as lines.

    One line when it fits in `line_length`; otherwise the message is split in two string
    literals (the same text at run time) so that the student copy stays within the limit.
    """
    title = f"Task {task.id}: {task.title}"
    pointer = f" — see {task.tutorial}"
    one_line = f"{indent}raise NotImplementedError({_literal(title + pointer)})"
    if len(one_line) <= line_length:
        return [one_line]
    inner = indent + ("\t" if "\t" in indent else "    ")
    return [
        f"{indent}raise NotImplementedError(",
        f"{inner}{_literal(title)}",
        f"{inner}{_literal(pointer)}",
        f"{indent})",
    ]


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def stub_source(source: str, regions: list[Region], project: Project) -> str:
    """`source` with each of `regions` (all in this file) replaced by its stub."""
    lines = source.splitlines(keepends=True)
    out = []
    next_line = 1
    for region in sorted(regions, key=lambda r: r.begin):
        out += lines[next_line - 1 : region.begin - 1]
        begin_line = lines[region.begin - 1]
        newline = begin_line[len(begin_line.rstrip("\r\n")) :]
        task = project.tasks[region.task_id]
        out += [line + newline for line in stub_lines(task, region.indent, project.line_length)]
        next_line = region.end + 1
    out += lines[next_line - 1 :]
    return "".join(out)


def _skipped(directory: str, names: list[str]) -> set[str]:
    return shutil.ignore_patterns(*SKIPPED_NAMES)(directory, names)


def copy_project(root: Path, dest: Path) -> None:
    """Copy the project's entries (PROJECT_ENTRIES, without caches) from `root` into `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_ENTRIES:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=_skipped)
        elif source.is_file():
            shutil.copy2(source, dest / name)


def make_student_copy(
    project: Project, dest: Path, tasks: list[Task], force: bool = False
) -> list[Region]:
    """Write a copy of `project` into `dest` with the regions of `tasks` stubbed.

    Every marker of the project is validated first. A non-empty `dest` is refused unless
    `force`, which replaces the project's entries in `dest` and leaves anything else there
    (a .git folder, say) alone. Returns the stubbed regions.
    """
    dest = Path(dest).resolve()
    root = project.root
    if dest == root or dest in root.parents:
        raise ExerciseError(f"{dest} holds the project itself; choose another folder")
    for name in PROJECT_ENTRIES:
        if dest.is_relative_to(root / name):
            raise ExerciseError(f"{dest} is inside the project's {name}; choose another folder")
    if dest.exists() and not dest.is_dir():
        raise ExerciseError(f"{dest} is not a folder")
    regions = project.scan()
    if dest.is_dir() and any(dest.iterdir()):
        if not force:
            raise ExerciseError(f"{dest} is not empty (use --force to overwrite it)")
        for name in PROJECT_ENTRIES:
            target = dest / name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif target.exists() or target.is_symlink():
                target.unlink()

    chosen = {task.id for task in tasks}
    stubbed = [region for region in regions if region.task_id in chosen]
    copy_project(root, dest)
    by_file: dict[str, list[Region]] = {}
    for region in stubbed:
        by_file.setdefault(region.path, []).append(region)
    for path, file_regions in by_file.items():
        source = (root / path).read_bytes().decode("utf-8")
        (dest / path).write_bytes(stub_source(source, file_regions, project).encode("utf-8"))
    return stubbed


def project_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment for a subprocess that must import the `minitorch` of `root`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def import_problem(root: Path) -> str | None:
    """The error that `import minitorch` raises in project `root`, or None if it imports."""
    process = subprocess.run(
        [sys.executable, "-c", "import minitorch"],
        cwd=root,
        env=project_env(root),
        capture_output=True,
        text=True,
    )
    if process.returncode == 0:
        return None
    return process.stderr.strip() or f"exit code {process.returncode}"


@dataclass
class TaskResult:
    """The outcome of one task's tests."""

    task: Task
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    exit_code: int | None = None
    failing: list[str] = field(default_factory=list)  # "classname::name" of failures, errors
    collection_errors: list[str] = field(default_factory=list)  # messages
    detail: str = ""  # why pytest gave no usable result, when it did not

    @property
    def total(self) -> int:
        """Tests that ran (skipped ones excluded)."""
        return self.passed + self.failed + self.errors

    @property
    def status(self) -> str:
        if self.exit_code == PYTEST_NO_TESTS or (self.total == 0 and not self.detail):
            return "NO TESTS"
        if self.exit_code == 0 and self.passed > 0 and self.failed + self.errors == 0:
            return "PASS"
        return "FAIL"

    def to_json(self) -> dict:
        return {
            "id": self.task.id,
            "title": self.task.title,
            "tutorial": self.task.tutorial,
            "marker": self.task.marker,
            "status": self.status,
            "passed": self.passed,
            "total": self.total,
            "failed": self.failed,
            "errors": self.errors,
            "skipped": self.skipped,
            "failing": self.failing,
            "detail": self.detail,
        }


def run_task_tests(
    root: Path,
    task: Task,
    test_files: list[str] | None = None,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
    pytest_args: tuple[str, ...] = (),
) -> TaskResult:
    """Run the tests marked `task.marker` in project `root` and count the outcomes.

    With `test_files` (paths relative to `root`; see `marker_test_files`) pytest collects
    only those files, which is much faster than importing the whole suite for every task;
    without, it collects the whole suite.
    """
    result = TaskResult(task)
    with tempfile.TemporaryDirectory(prefix="minitorch-grade-") as scratch:
        junit = Path(scratch) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-m", task.marker]
        command += ["-p", "no:cacheprovider", "-q", f"--junitxml={junit}", *pytest_args]
        command += test_files or []
        try:
            process = subprocess.run(
                command,
                cwd=root,
                env=env or project_env(root),
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            result.detail = f"timed out after {timeout:g} s"
            return result
        result.exit_code = process.returncode
        if process.returncode == PYTEST_NO_TESTS:
            return result
        if junit.exists():
            _count_junit(junit, result)
    # Exit codes other than 0 (all passed) and 1 (some failed) without a failed test: pytest
    # itself stopped (internal or usage error), so the counts say nothing.
    if process.returncode not in (0, 1) and result.failed + result.errors == 0:
        last_lines = (process.stdout + process.stderr).strip().splitlines()[-3:]
        result.detail = f"pytest exited with code {process.returncode}: " + " | ".join(last_lines)
    return result


def _count_junit(junit: Path, result: TaskResult) -> None:
    for case in ElementTree.parse(junit).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        error = case.find("error")
        if case.find("failure") is not None:
            result.failed += 1
            result.failing.append(name)
        elif error is not None:
            result.errors += 1
            if error.get("message") == "collection failure":
                result.collection_errors.append(f"{case.get('name')}: {error.text or ''}".strip())
            else:
                result.failing.append(name)
        elif case.find("skipped") is not None:
            result.skipped += 1
        else:
            result.passed += 1


def find_test_markers(root: Path) -> tuple[list[tuple[str, int, str]], list[str]]:
    """Uses of `mark.taskM_N` in tests/ as (path, line, marker), and files that do not parse."""
    uses, problems = [], []
    for path in sorted((root / "tests").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(path.read_bytes(), filename=relative)
        except SyntaxError as error:
            problems.append(f"{relative}:{error.lineno}: not valid Python: {error.msg}")
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and TEST_MARKER.fullmatch(node.attr)
                and _is_mark(node.value)
            ):
                uses.append((relative, node.lineno, node.attr))
    return uses, problems


def marker_test_files(root: Path) -> dict[str, list[str]]:
    """For each task marker, the files of tests/ that use it (`@pytest.mark.taskM_N`)."""
    uses, _ = find_test_markers(root)
    files: dict[str, dict[str, None]] = {}
    for path, _, marker in uses:
        files.setdefault(marker, {})[path] = None
    return {marker: list(paths) for marker, paths in files.items()}


def _is_mark(node: ast.AST) -> bool:
    """`mark` or `<anything>.mark` (as in `pytest.mark`)."""
    return (isinstance(node, ast.Name) and node.id == "mark") or (
        isinstance(node, ast.Attribute) and node.attr == "mark"
    )
