"""ARCHITECTURE.md and the README's layer table name files that exist, and describe every folder.

A path in backticks (`ops/public.py`, `backends/`, `tests/test_public_api.py`) is
looked up from the project root, then inside `minitorch/`; a bare file name
(`unary.py`) must be a file somewhere in `minitorch/`, `scripts/` or `tests/`.
Every package folder of `minitorch/` must be named in ARCHITECTURE.md, so a new
folder comes with its description.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "minitorch"
# a backticked token that names a file or folder: letters, digits, _, ., / and a file ending
PATH = re.compile(r"`([\w./-]+(?:\.(?:py|pyi|md|toml|cfg|sh|json)|/))`")
SEARCHED = (PACKAGE, ROOT / "scripts", ROOT / "tests", ROOT / "tutorials")


def named_paths(text: str) -> set[str]:
    return {m for m in PATH.findall(text) if not m.startswith(("runs/", "data/", "."))}


def exists(name: str) -> bool:
    for base in (ROOT, PACKAGE):
        if (base / name).exists():
            return True
    if "/" not in name.rstrip("/"):
        return any(any(base.rglob(name.rstrip("/"))) for base in SEARCHED)
    # a path relative to a folder of minitorch/ (`modules/conv.py` inside `nn/`)
    return any(PACKAGE.rglob(name.rstrip("/")))


def readme_layer_table() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## Layers, files, tutorials and exercises")
    return text[start : text.index("\n## ", start + 1)]


@pytest.mark.parametrize(
    "document, text",
    [
        ("ARCHITECTURE.md", (ROOT / "ARCHITECTURE.md").read_text()),
        ("README.md's layer table", readme_layer_table()),
    ],
)
def test_every_named_path_exists(document, text):
    missing = sorted(name for name in named_paths(text) if not exists(name))
    assert not missing, f"{document} names paths that do not exist: {missing}"


def test_every_folder_of_the_package_is_described():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    folders = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_dir() and (path / "__init__.py").exists()
    )
    undescribed = [
        f for f in folders if f"{f}/" not in text and f"`{f.split('/')[-1]}/`" not in text
    ]
    assert not undescribed, f"ARCHITECTURE.md does not describe these folders: {undescribed}"


def test_the_check_can_fail():
    """A made-up path is reported missing, a real one found."""
    assert not exists("ops/no_such_family.py") and not exists("no_such_folder/")
    assert exists("ops/public.py") and exists("unary.py") and exists("backends/")
