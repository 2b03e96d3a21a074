"""The exercise machinery shared by make_exercises.py, grade.py and check_exercises.py.

A task "M.N" is listed in `[tool.minitorch.tasks]` of pyproject.toml (title, tutorial). Its
solution is one or more marked regions inside function bodies under `minitorch/`:

    # BEGIN SOLUTION M.N
    ...
    # END SOLUTION M.N

and its tests carry the pytest marker `taskM_N`. This module reads the task table, finds and
validates the regions, replaces them with a `raise NotImplementedError(...)` stub, and finds
the tests' markers; exercise_copies.py copies a project (a student copy and its manifest),
exercise_grading.py runs one task's tests, exercise_guards.py checks what a grading process
may import. Standard library only.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
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
    "ARCHITECTURE.md",
    "docs",
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
