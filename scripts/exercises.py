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


# The outcomes of one test, phase by phase, boil down to one of these.
OUTCOMES = ("passed", "failed", "error", "skipped")


@dataclass
class TaskResult:
    """The outcome of one task's tests, from the grading subprocess's result channel."""

    task: Task
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    exit_code: int | None = None  # the subprocess's; negative: killed by that signal
    failing: list[str] = field(default_factory=list)  # node ids of failures and errors
    collection_errors: list[str] = field(default_factory=list)  # "minitorch/x.py:3: Error: ..."
    detail: str = ""  # why the run gave no usable result, when it did not
    tampering: list[str] = field(default_factory=list)  # what was seen replaced or forged
    expected: int | None = None  # how many tests the task has, when known
    outcomes: dict[str, str] = field(default_factory=dict)  # node id -> one of OUTCOMES
    output: str = ""  # the end of what the tests printed (capped)
    elapsed: float = 0.0

    @property
    def total(self) -> int:
        """Tests that ran (skipped ones excluded)."""
        return self.passed + self.failed + self.errors

    @property
    def status(self) -> str:
        if self.tampering:
            return "TAMPERED"
        if self.detail or self.collection_errors:
            return "FAIL"
        if self.total == 0:
            return "NO TESTS"
        if self.passed > 0 and self.failed + self.errors == 0:
            return "PASS"
        return "FAIL"

    @property
    def reason(self) -> str:
        """One line: why the task is TAMPERED or FAIL without a failing test, or ""."""
        if self.tampering:
            return "; ".join(self.tampering)
        if self.detail:
            return self.detail
        if self.collection_errors:
            return "tests could not be collected: " + self.collection_errors[0]
        return ""

    def to_json(self) -> dict:
        return {
            "id": self.task.id,
            "title": self.task.title,
            "tutorial": self.task.tutorial,
            "marker": self.task.marker,
            "status": self.status,
            "passed": self.passed,
            "total": self.total,
            "expected": self.expected,
            "failed": self.failed,
            "errors": self.errors,
            "skipped": self.skipped,
            "failing": self.failing,
            "collection_errors": self.collection_errors,
            "detail": self.detail,
            "tampering": self.tampering,
            "seconds": round(self.elapsed, 2),
        }


# The program of each grading subprocess (it runs pytest with a reporting plugin).
RUNNER = Path(__file__).resolve().with_name("grade_runner.py")
# It is sent on stdin, so that the channel and the secret of the results appear in no argument.
# Python's safe-path mode (3.11+): the folder it starts in is not put first on its import path,
# so a `pytest.py` or `json.py` there cannot replace the real module. Python 3.10 has no `-P`:
# the program then drops that entry itself, as its first statement.
SAFE_PATH = ["-P"] if sys.version_info >= (3, 11) else []
BOOTSTRAP = (
    "import os, sys\n"
    "sys.path[:] = [entry for entry in sys.path if entry not in ('', '.')]\n"
    "source = sys.stdin.read()\n"
    "os.dup2(os.open(os.devnull, os.O_RDONLY), 0)\n"
    "exec(compile(source, 'grade_runner.py', 'exec'), {'__name__': 'grade_runner'})\n"
)
# What a task's run may print: the first and last OUTPUT_KEPT bytes are kept, the rest dropped
# as it arrives (a test printing megabytes per call must not fill the grader's memory).
OUTPUT_KEPT = 64 * 1024
# The result channel carries one short line per event; more than this is not pytest's doing.
CHANNEL_LIMIT = 64 * 1024 * 1024
CHANNEL_LINE_LIMIT = 16 * 1024 * 1024
# Environment variables that change what pytest runs or what Python imports first; the grading
# subprocess runs without them (and grades every backend).
DROPPED_ENV = (
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONINSPECT",
    "PYTEST_ADDOPTS",
    "PYTEST_PLUGINS",
    "MINITORCH_TEST_BACKENDS",
)
# The plugin of hypothesis (--hypothesis-profile), loaded by name: the grading run loads no
# other installed pytest plugin.
HYPOTHESIS_PLUGIN = "_hypothesis_pytestplugin"


def grading_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a grading subprocess in project `root` (see DROPPED_ENV)."""
    env = {name: value for name, value in os.environ.items() if name not in DROPPED_ENV}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.update(extra)
    return env


def missing_test_tools() -> list[str]:
    """The test tools grading needs that this Python cannot import."""
    import importlib.util

    return [name for name in ("pytest", "hypothesis") if importlib.util.find_spec(name) is None]


# Checked in a subprocess that starts as a grading one does: each name's import error, if any.
IMPORT_CHECK = (
    "import sys\n"
    "for name in sys.argv[1:]:\n"
    "    try:\n"
    "        __import__(name)\n"
    "    except BaseException as error:\n"
    "        message = ' '.join(str(error).split())\n"
    "        print(f'{name} ({type(error).__name__}: {message})')\n"
)


def unimportable_test_tools(root: Path, env: dict[str, str] | None = None) -> list[str]:
    """The test tools that are installed but fail to import in a grading subprocess of `root`,
    each as "pytest (ImportError: ...)"."""
    process = subprocess.run(
        [sys.executable, *SAFE_PATH, "-c", IMPORT_CHECK, "pytest", "hypothesis"],
        cwd=root,
        env=env or grading_env(root),
        capture_output=True,
        text=True,
    )
    problems = process.stdout.splitlines()
    if process.returncode != 0 and not problems:
        problems = [f"python (exit code {process.returncode}: {_last_lines(process.stderr)})"]
    return problems


# Folders of a project that are on the import path of a grading process: the root (the package
# under test is imported from there), tests/ (pytest puts a test file's folder first) and
# scripts/ (Python puts grade.py's folder first for grade.py itself).
IMPORT_FOLDERS = (".", "tests", "scripts")
# The project's own top-level names, which an installed copy of the project also has.
PROJECT_MODULES = ("minitorch", "tests", "scripts")


def guarded_modules() -> set[str]:
    """Top-level modules the grader and the tests may import: the standard library's and every
    installed distribution's (pytest, hypothesis, numpy...), the project's own aside."""
    from importlib.metadata import packages_distributions

    return (set(sys.stdlib_module_names) | set(packages_distributions())) - set(PROJECT_MODULES)


def modules_in(folder: Path) -> dict[str, str]:
    """The top-level modules that `folder` provides when it is on sys.path: name -> file."""
    import importlib.machinery

    suffixes = (
        importlib.machinery.SOURCE_SUFFIXES
        + importlib.machinery.BYTECODE_SUFFIXES
        + importlib.machinery.EXTENSION_SUFFIXES
    )
    found: dict[str, str] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.iterdir()):
        if path.is_dir():
            if any((path / f"__init__{suffix}").is_file() for suffix in suffixes):
                found.setdefault(path.name, path.name + "/")
            continue
        for suffix in suffixes:
            if path.name.endswith(suffix) and len(path.name) > len(suffix):
                found.setdefault(path.name[: -len(suffix)], path.name)
                break
    return found


def shadowing_files(root: Path, folders: tuple[str, ...] = IMPORT_FOLDERS) -> list[str]:
    """Files of project `root` that would replace a standard or installed module for the grader
    or the tests, e.g. "pytest.py shadows the installed module pytest"."""
    guarded = guarded_modules()
    problems = []
    for folder in folders:
        for name, file in modules_in(root / folder).items():
            if name in guarded and not name.startswith("__"):
                kind = "standard" if name in sys.stdlib_module_names else "installed"
                where = file if folder == "." else f"{folder}/{file}"
                problems.append(f"{where} shadows the {kind} module {name}")
    return problems


def run_task_tests(
    root: Path,
    task: Task,
    test_files: list[str] | None = None,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
    pytest_args: tuple[str, ...] = (),
    expected: int | None = None,
    hypothesis_profile: str | None = None,
) -> TaskResult:
    """Run the tests marked `task.marker` in project `root` in a fresh subprocess; count them.

    With `test_files` (paths relative to `root`; see `marker_test_files`) pytest collects only
    those files, which is much faster than importing the whole suite for every task. The
    subprocess runs in a process group of its own, killed whole after `timeout` seconds and
    when the run ends. `expected` is the number of tests the task has (the run fails when
    another number ran). See `interpret` for what makes a run fail or count as tampered.
    """
    args = ["-m", task.marker, "-p", "no:cacheprovider", "-q", "-s", "--tb=short"]
    if find_module(HYPOTHESIS_PLUGIN):
        args += ["-p", HYPOTHESIS_PLUGIN]
    if hypothesis_profile:
        args.append(f"--hypothesis-profile={hypothesis_profile}")
    args += [*pytest_args, *(test_files or [])]
    run = run_grading_subprocess(root, args, timeout, env or grading_env(root))
    result = interpret(task, run, timeout, expected)
    return result


def find_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


@dataclass
class GradingRun:
    """What one grading subprocess reported on its channel, and how it ended."""

    returncode: int | None = None
    timed_out: bool = False
    elapsed: float = 0.0
    output: str = ""
    started: bool = False
    finished: int | None = None  # pytest's exit status at the end of the session
    collected: list[str] | None = None
    collected_tasks: list[list[str]] = field(default_factory=list)
    running: str | None = None
    reports: dict[str, list[tuple[str, str, bool, str]]] = field(default_factory=dict)
    collect_errors: list[str] = field(default_factory=list)
    skips_from_package: dict[str, str] = field(default_factory=dict)
    tampered: list[str] = field(default_factory=list)
    forged_lines: int = 0
    channel_bytes: int = 0

    def receive(self, line: bytes, secret: str) -> None:
        import json

        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if not isinstance(event, dict) or event.get("secret") != secret:
            self.forged_lines += 1
            return
        kind = event.get("event")
        if kind == "start":
            self.started = True
        elif kind == "collected":
            self.collected = [str(i) for i in event.get("ids", [])]
            self.collected_tasks = event.get("tasks", [])
        elif kind == "running":
            self.running = str(event.get("id"))
        elif kind == "report":
            entry = (event["when"], event["outcome"], bool(event.get("xfail")), event["message"])
            self.reports.setdefault(str(event["id"]), []).append(entry)
        elif kind == "collect_error":
            self.collect_errors.append(f"{event['where']}: {event['error']}")
        elif kind == "skip_from_package":
            self.skips_from_package[str(event["id"])] = str(event["where"])
        elif kind == "tampered":
            what = str(event["what"])
            if what not in self.tampered:
                self.tampered.append(what)
        elif kind == "finish":
            self.finished = int(event["exitstatus"])


def run_grading_subprocess(
    root: Path, args: list[str], timeout: float | None, env: dict[str, str]
) -> GradingRun:
    """Run grade_runner.py with pytest arguments `args` in `root`; collect what it reports."""
    import secrets
    import signal
    import threading
    import time

    run = GradingRun()
    secret = secrets.token_hex(16)
    posix = os.name == "posix"
    if posix:
        # An inherited pipe: the subprocess's file descriptor `channel_write`.
        channel_read, channel_write = os.pipe()
        channel = {"fd": channel_write}
    else:
        # Windows cannot pass a pipe by number: a private temporary file, read at the end.
        channel_write, channel_path = tempfile.mkstemp(prefix="minitorch-grade-")
        os.close(channel_write)
        channel = {"path": channel_path}
    config = {**channel, "secret": secret, "root": str(root), "args": args}
    program = RUNNER.read_text(encoding="utf-8") + f"\nmain({config!r})\n"
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            [sys.executable, *SAFE_PATH, "-c", BOOTSTRAP],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(channel_write,) if posix else (),
            start_new_session=posix,
        )
    finally:
        if posix:
            os.close(channel_write)
    output = _BoundedOutput(OUTPUT_KEPT)

    def read_output() -> None:
        while chunk := process.stdout.read1(1 << 16):
            output.add(chunk)

    def read_channel(stream) -> None:
        with stream:
            while line := stream.readline(CHANNEL_LINE_LIMIT):
                run.channel_bytes += len(line)
                if run.channel_bytes > CHANNEL_LIMIT:
                    run.tampered.append("more than 64 MB arrived on the result channel")
                    break
                run.receive(line, secret)

    readers = [threading.Thread(target=read_output, daemon=True)]
    if posix:
        stream = os.fdopen(channel_read, "rb")
        readers.append(threading.Thread(target=read_channel, args=(stream,), daemon=True))
    for reader in readers:
        reader.start()
    try:
        process.stdin.write(program.encode("utf-8"))
        process.stdin.close()
    except OSError:
        pass  # it ended already; its output says why
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        run.timed_out = True
    # Whatever the tests started (a pool of workers, a forgotten child) goes too.
    if posix:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    else:
        process.kill()
    run.returncode = process.wait()
    for reader in readers:
        reader.join(timeout=10)
    if not posix:
        read_channel(open(channel_path, "rb"))
        os.unlink(channel_path)
    run.elapsed = time.monotonic() - started
    run.output = output.text()
    return run


class _BoundedOutput:
    """The first and last `kept` bytes of a stream, and how many were dropped in between."""

    def __init__(self, kept: int):
        self.kept = kept
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.kept - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.kept:
            excess = len(self.tail) - self.kept
            self.dropped += excess
            del self.tail[:excess]

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of output dropped ...]\n" if self.dropped else ""
        return (bytes(self.head).decode(errors="replace") + middle) + bytes(self.tail).decode(
            errors="replace"
        )


def _last_lines(text: str, count: int = 3) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-count:])


def interpret(task: Task, run: GradingRun, timeout: float | None, expected: int | None):
    """The TaskResult of a grading run.

    The run FAILs when it timed out, crashed or ended before pytest's session did (os._exit),
    when a test file could not be collected, when pytest stopped with an error of its own, or
    when the number of tests that ran is not `expected`. It is TAMPERED when the subprocess
    saw pytest's machinery replaced, or lines without the run's secret came on the channel.
    """
    import signal

    result = TaskResult(task, exit_code=run.returncode, expected=expected, output=run.output)
    result.elapsed = run.elapsed
    result.tampering = list(run.tampered)
    if run.forged_lines:
        result.tampering.append(
            f"{run.forged_lines} lines without the grader's secret came on the result channel"
        )
    for node_id, phases in run.reports.items():
        outcome = _outcome(phases)
        if node_id in run.skips_from_package and outcome == "skipped":
            outcome = "failed"
        result.outcomes[node_id] = outcome
        if outcome == "passed":
            result.passed += 1
        elif outcome == "skipped":
            result.skipped += 1
        else:
            result.failed += outcome == "failed"
            result.errors += outcome == "error"
            result.failing.append(node_id)
    result.collection_errors = list(run.collect_errors)
    during = f" during {run.running}" if run.running else ""
    if run.timed_out:
        result.detail = f"timed out after {timeout:g} s{during}"
    elif run.finished is None and not run.started:
        result.detail = f"pytest exited with code {run.returncode}: {_last_lines(run.output)}"
    elif run.finished is None and run.returncode is not None and run.returncode < 0:
        try:
            name = signal.Signals(-run.returncode).name
        except ValueError:
            name = f"signal {-run.returncode}"
        result.detail = f"the test process crashed ({name}){during}"
    elif run.finished is None:
        result.detail = (
            f"the test process ended (exit code {run.returncode}) before pytest finished"
            f"{during}: os._exit() or a crash"
        )
    elif result.collection_errors:
        pass
    elif run.finished not in (0, 1, PYTEST_NO_TESTS):
        result.detail = f"pytest exited with code {run.finished}: {_last_lines(run.output)}"
    elif run.collected is not None and len(result.outcomes) < len(run.collected):
        missing = len(run.collected) - len(result.outcomes)
        result.detail = f"{missing} of the {len(run.collected)} collected tests did not run"
    elif expected is not None and len(result.outcomes) != expected:
        result.detail = f"{len(result.outcomes)} tests ran; task {task.id} has {expected}"
    for node_id, where in run.skips_from_package.items():
        if result.outcomes.get(node_id) == "failed":
            result.detail = result.detail or f"a test was skipped from the package ({where})"
    return result


def _outcome(phases: list[tuple[str, str, bool, str]]) -> str:
    """One test's outcome from its (when, outcome, xfail, message) phase reports."""
    outcome = "passed"
    for when, phase_outcome, xfail, _ in phases:
        if phase_outcome == "failed":
            return "failed" if when == "call" else "error"
        if phase_outcome == "skipped" or xfail:
            outcome = "skipped"
    if not any(when == "call" for when, *_ in phases) and outcome == "passed":
        return "error"
    return outcome


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


# --- what make_exercises.py records in a student copy, and grade.py checks -----------------

# The checksums of the files that decide what the tests check, and each task's test count.
MANIFEST = "exercise-manifest.json"
# Checksummed besides every file under tests/.
MANIFEST_FILES = ("pyproject.toml", "setup.cfg")
# Files that would change pytest's settings or hooks if someone added them.
MANIFEST_ABSENT = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "conftest.py")
CACHE_NAMES = ("__pycache__", ".hypothesis", ".pytest_cache")


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def guarded_files(root: Path) -> list[str]:
    """The files of `root` that the manifest checksums (relative, forward slashes)."""
    names = [name for name in MANIFEST_FILES if (root / name).is_file()]
    tests = root / "tests"
    if tests.is_dir():
        for path in sorted(tests.rglob("*")):
            relative = path.relative_to(root)
            if path.is_file() and not set(relative.parts) & set(CACHE_NAMES):
                names.append(relative.as_posix())
    return names


def write_manifest(root: Path, counts: dict[str, int] | None) -> Path:
    """Write MANIFEST into project `root`: checksums of `guarded_files`, test counts per task."""
    import json

    manifest = {
        "about": (
            "Written by scripts/make_exercises.py. scripts/grade.py refuses to grade when these "
            "files differ, and fails a task when another number of tests ran."
        ),
        "sha256": {name: _sha256(root / name) for name in guarded_files(root)},
        "absent": list(MANIFEST_ABSENT),
        "tests": counts,
    }
    path = root / MANIFEST
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return path


def read_manifest(root: Path) -> dict | None:
    """The MANIFEST of `root`, or None when it has none; ExerciseError when it is unreadable."""
    import json

    path = root / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(manifest.get("sha256"), dict):
            raise ValueError("no sha256 table")
    except (OSError, ValueError, AttributeError) as error:
        raise ExerciseError(f"{path} is not a valid exercise manifest: {error}") from error
    return manifest


def manifest_problems(root: Path, manifest: dict) -> list[str]:
    """How project `root` differs from its manifest: changed, removed or added files."""
    problems = []
    recorded = manifest["sha256"]
    for name, digest in recorded.items():
        path = root / name
        if not path.is_file():
            problems.append(f"{name} was removed")
        elif _sha256(path) != digest:
            problems.append(f"{name} was changed")
    for name in guarded_files(root):
        if name not in recorded:
            problems.append(f"{name} was added")
    for name in manifest.get("absent", MANIFEST_ABSENT):
        if (root / name).exists():
            problems.append(f"{name} was added (it would change pytest's settings)")
    return problems


def settings_files_added(root: Path) -> list[str]:
    """Files of MANIFEST_ABSENT in `root`: pytest settings or hooks that no project has."""
    return [
        f"{name} was added (it would change pytest's settings)"
        for name in MANIFEST_ABSENT
        if (root / name).exists()
    ]


def remove_test_caches(root: Path) -> None:
    """Delete the bytecode caches under tests/ (a planted .pyc would run instead of the test)."""
    tests = root / "tests"
    if tests.is_dir():
        for cache in sorted(tests.rglob("__pycache__"), reverse=True):
            shutil.rmtree(cache, ignore_errors=True)


def count_task_tests(root: Path, timeout: float | None = 600) -> dict[str, int]:
    """How many tests carry each task marker in project `root` ("0.1" -> 12), by collecting them.

    Collection imports the package of `root`: run it on a trusted copy (the reference).
    """
    files = sorted({path for paths in marker_test_files(root).values() for path in paths})
    if not files:
        return {}
    args = ["--collect-only", "-q", "-p", "no:cacheprovider"]
    if find_module(HYPOTHESIS_PLUGIN):
        args += ["-p", HYPOTHESIS_PLUGIN]
    run = run_grading_subprocess(root, args + files, timeout, grading_env(root))
    if run.finished != 0 or run.collected is None or run.collect_errors or run.tampered:
        why = "; ".join(run.collect_errors) or _last_lines(run.output)
        raise ExerciseError(f"cannot collect the tests of {root}: {why}")
    counts: dict[str, int] = {}
    for markers in run.collected_tasks:
        for marker in markers:
            task_id = marker.removeprefix("task").replace("_", ".")
            counts[task_id] = counts.get(task_id, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: task_sort_key(item[0])))


def graded_tree(project: Path, reference: Path, dest: Path) -> Path:
    """A project in `dest` with the package of `project` and everything else of `reference`.

    So a student's package is graded with the instructor's tests, conftest.py and settings.
    """
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_ENTRIES:
        if name == "minitorch":
            continue
        source = reference / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=_skipped)
        elif source.is_file():
            shutil.copy2(source, dest / name)
    if (reference / MANIFEST).is_file():
        shutil.copy2(reference / MANIFEST, dest / MANIFEST)
    shutil.copytree(project / "minitorch", dest / "minitorch", ignore=_skipped)
    return dest
