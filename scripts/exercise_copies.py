"""Copies of a project: a student copy (the regions of the chosen tasks stubbed), the manifest
make_exercises.py records in it and grade.py checks (checksums, each task's test count), and
the tree a reference run grades. Standard library only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from exercise_grading import find_module, run_grading_subprocess
from exercise_guards import HYPOTHESIS_PLUGIN, grading_env, last_lines
from exercises import (
    PROJECT_ENTRIES,
    SKIPPED_NAMES,
    ExerciseError,
    Project,
    Region,
    Task,
    marker_test_files,
    stub_source,
    task_sort_key,
)


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
        why = "; ".join(run.collect_errors) or last_lines(run.output)
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
