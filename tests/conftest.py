"""Shared pytest configuration: registers one marker per exercise task."""

from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def task_table() -> dict[str, dict[str, str]]:
    """The `[tool.minitorch.tasks]` table of pyproject.toml: id -> {title, tutorial}."""
    with open(PROJECT_ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["minitorch"]["tasks"]


def pytest_configure(config):
    for task_id, task in task_table().items():
        marker = "task" + task_id.replace(".", "_")
        config.addinivalue_line("markers", f"{marker}: Task {task_id} — {task['title']}")
