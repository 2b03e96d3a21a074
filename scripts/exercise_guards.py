"""What a grading process may meet: its environment, the test tools it needs (installed, and
importable as a grading process starts), and files of the project that would shadow a standard
or installed module on its import path. Standard library only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Python's safe-path mode (3.11+): the folder it starts in is not put first on its import path,
# so a `pytest.py` or `json.py` there cannot replace the real module. Python 3.10 has no `-P`:
# the grading program (exercise_grading.BOOTSTRAP) drops that entry itself, as its first statement.
SAFE_PATH = ["-P"] if sys.version_info >= (3, 11) else []
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
        problems = [f"python (exit code {process.returncode}: {last_lines(process.stderr)})"]
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


def last_lines(text: str, count: int = 3) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-count:])
