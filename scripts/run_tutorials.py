"""Run the code in the tutorials and check that it prints what the text shows.

Usage:
    python scripts/run_tutorials.py                          # every tutorials/*.md but README.md
    python scripts/run_tutorials.py tutorials/01_autodiff.md
    python scripts/run_tutorials.py --notebook OUTDIR        # write notebooks instead of running

A tutorial is a Markdown file. Its ```python blocks run in order, in one namespace per file,
with the project root as the working directory and first on sys.path (so the project's own
minitorch is the one imported). Each file runs in a fresh Python process.

When the fenced block right after a python block (nothing but blank lines between them) is a
```text block, the python block must print exactly that text, up to trailing spaces on each line
and trailing blank lines; a python block without one must print nothing. Every other fenced
block (```bash, or ```text after some prose) is for reading only.

A mismatch prints the file and line of the block with a unified diff of the expected and the
actual output; an exception prints its traceback (with the tutorial's own line numbers) and
stops that file. Every file ends with one summary line.

--notebook OUTDIR converts each tutorial into OUTDIR/<name>.ipynb (nbformat 4): the prose
becomes markdown cells, each python block a code cell with its text block as its output.

Exit status: 0 when every block of every file printed what the text shows, 1 otherwise,
2 when a file is missing or has an unclosed fence.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import os
import re
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class TutorialError(Exception):
    """A tutorial that cannot be read: missing, or with an unclosed fence."""


@dataclass(frozen=True)
class Fence:
    """A fenced block: its language (first word of the info string) and where it lies."""

    language: str
    line: int  # 1-based line of the opening fence
    body: str  # the lines between the fences, each ending in "\n"
    raw: str  # the block as written, fences included


@dataclass(frozen=True)
class Example:
    """A python block and the text block that shows its output (None: it prints nothing)."""

    code: Fence
    expected: Fence | None


def parse_markdown(text: str, path: str) -> list[str | Fence]:
    """Split Markdown into prose (str) and fenced blocks (Fence), in order.

    A fence is a line starting with three or more backticks or tildes; the block ends at a
    line of at least as many of the same character and nothing else.
    """
    segments: list[str | Fence] = []
    prose: list[str] = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = _fence_marker(line)
        if marker is None:
            prose.append(line)
            i += 1
            continue
        start = i
        info = line.strip()[len(marker) :].strip()
        i += 1
        while i < len(lines) and not _closes(lines[i], marker):
            i += 1
        if i == len(lines):
            raise TutorialError(f"{path}:{start + 1}: the fence {marker} is never closed")
        if prose:
            segments.append("".join(prose))
            prose = []
        language = info.split()[0].lower() if info else ""
        body = "".join(lines[start + 1 : i])
        if body and not body.endswith("\n"):
            body += "\n"
        segments.append(Fence(language, start + 1, body, "".join(lines[start : i + 1])))
        i += 1
    if prose:
        segments.append("".join(prose))
    return segments


def _fence_marker(line: str) -> str | None:
    stripped = line.rstrip("\n")
    for char in "`~":
        count = len(stripped) - len(stripped.lstrip(char))
        if count >= 3:
            return char * count
    return None


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(marker) and stripped == marker[0] * len(stripped)


def examples(segments: list[str | Fence]) -> list[Example]:
    """Pair each python block with the text block right after it, if there is one."""
    found = []
    for i, segment in enumerate(segments):
        if isinstance(segment, Fence) and segment.language == "python":
            j = _output_index(segments, i)
            found.append(Example(segment, None if j is None else segments[j]))
    return found


def _output_index(segments: list[str | Fence], i: int) -> int | None:
    """The index of the text block after segments[i] (only blank lines between), if any."""
    j = i + 1
    if j < len(segments) and isinstance(segments[j], str) and not segments[j].strip():
        j += 1
    if j < len(segments) and isinstance(segments[j], Fence) and segments[j].language == "text":
        return j
    return None


def normalize(text: str) -> list[str]:
    """The lines of `text` without trailing whitespace, and without trailing blank lines."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


@dataclass
class FileReport:
    path: str
    blocks: int
    run: int = 0
    ok: int = 0

    @property
    def passed(self) -> bool:
        return self.ok == self.blocks

    def summary(self) -> str:
        parts = [f"{self.path}: {self.run} blocks run, {self.ok} ok"]
        if self.run > self.ok:
            parts.append(f", {self.run - self.ok} failed")
        if self.blocks > self.run:
            parts.append(f", {self.blocks - self.run} not run after the error")
        return "".join(parts) + ("" if self.passed else " — FAILED")


def display_path(path: Path) -> str:
    """`path` relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def read_tutorial(path: Path) -> tuple[str, list[str | Fence]]:
    shown = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise TutorialError(f"{shown}: cannot read: {error.strerror}") from error
    return shown, parse_markdown(text, shown)


def run_file(path: Path, out: io.TextIOBase | None = None) -> FileReport:
    """Run one tutorial's python blocks in a fresh namespace; report problems to `out`."""
    out = out or sys.stdout
    shown, segments = read_tutorial(path)
    found = examples(segments)
    report = FileReport(shown, len(found))
    namespace: dict[str, object] = {"__name__": "__main__", "__file__": str(path)}
    if str(PROJECT_ROOT) not in sys.path[:1]:
        sys.path.insert(0, str(PROJECT_ROOT))
    previous_cwd = os.getcwd()
    os.chdir(PROJECT_ROOT)
    try:
        for example in found:
            report.run += 1
            where = f"{shown}:{example.code.line}"
            printed = io.StringIO()
            # Blank lines in front keep the tutorial's line numbers in tracebacks.
            source = "\n" * example.code.line + example.code.body
            try:
                with contextlib.redirect_stdout(printed):
                    exec(compile(source, str(path), "exec"), namespace)
            except Exception as error:
                frames = error.__traceback__.tb_next if error.__traceback__ else None
                print(f"{where}: the block raised {type(error).__name__}: {error}", file=out)
                if printed.getvalue():
                    print("It printed before that:\n" + printed.getvalue().rstrip(), file=out)
                print("".join(traceback.format_exception(type(error), error, frames)), file=out)
                break
            if _output_matches(where, example, printed.getvalue(), out):
                report.ok += 1
    finally:
        os.chdir(previous_cwd)
    return report


def _output_matches(where: str, example: Example, printed: str, out: io.TextIOBase) -> bool:
    actual = normalize(printed)
    if example.expected is None:
        if not actual:
            return True
        print(
            f"{where}: the block printed {len(actual)} line(s) but no ```text block follows it",
            file=out,
        )
        label = "expected (nothing: no text block)"
        expected: list[str] = []
    else:
        expected = normalize(example.expected.body)
        if actual == expected:
            return True
        text_line = example.expected.line
        print(f"{where}: the output differs from the text block at line {text_line}", file=out)
        label = f"expected (line {text_line})"
    diff = difflib.unified_diff(expected, actual, fromfile=label, tofile="actual", lineterm="")
    print("\n".join(diff), file=out)
    return False


# ---------------------------------------------------------------------------
# Notebooks
# ---------------------------------------------------------------------------


MARKDOWN_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def notebook_link_rewriter(source: Path, outdir: Path, converted: set[str]) -> Callable[[str], str]:
    """A function that fixes the relative links of `source`'s prose for a notebook in `outdir`:
    a link to a tutorial converted in the same run points to its notebook, any other
    relative link (an image, the README) to the same file as before, seen from `outdir`."""

    def rewrite(match: re.Match) -> str:
        target = match.group(2)
        if "://" in target or target.startswith(("#", "/", "mailto:")):
            return match.group(0)
        path, _, anchor = target.partition("#")
        if Path(path).suffix == ".md" and Path(path).stem in converted:
            new = Path(path).stem + ".ipynb"
        else:
            new = os.path.relpath(source.parent.resolve() / path, outdir.resolve())
            new = Path(new).as_posix()
        return match.group(1) + new + ("#" + anchor if anchor else "") + match.group(3)

    return lambda text: MARKDOWN_LINK.sub(rewrite, text)


def to_notebook(segments: list[str | Fence], link: Callable[[str], str] = str) -> dict:
    """An nbformat-4 notebook: prose and other blocks as markdown, python blocks as code cells
    with their text block attached as the stdout stream; `link` rewrites the prose's links."""
    cells: list[dict] = []
    markdown: list[str] = []
    skip_until = -1  # segments up to this index are a code cell's output

    def flush_markdown() -> None:
        text = link("".join(markdown).strip("\n"))
        markdown.clear()
        if text:
            cells.append({"cell_type": "markdown", "metadata": {}, "source": _lines(text)})

    for i, segment in enumerate(segments):
        if i <= skip_until:
            continue
        if isinstance(segment, str):
            markdown.append(segment)
            continue
        if segment.language != "python":
            markdown.append(segment.raw)
            continue
        flush_markdown()
        outputs = []
        j = _output_index(segments, i)
        if j is not None:
            skip_until = j
            text = "".join(line + "\n" for line in normalize(segments[j].body))
            if text:
                outputs.append({"output_type": "stream", "name": "stdout", "text": _lines(text)})
        cells.append(
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": outputs,
                "source": _lines(segment.body.rstrip("\n")),
            }
        )
    flush_markdown()
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _lines(text: str) -> list[str]:
    """Notebook source format: a list of lines, each but the last ending in a newline."""
    return text.splitlines(keepends=True) if text else []


def write_notebooks(paths: list[Path], outdir: Path) -> int:
    outdir.mkdir(parents=True, exist_ok=True)
    converted = {path.stem for path in paths}
    for path in paths:
        shown, segments = read_tutorial(path)
        target = outdir / f"{path.stem}.ipynb"
        notebook = to_notebook(segments, notebook_link_rewriter(path, outdir, converted))
        target.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"{shown} -> {display_path(target)} ({len(notebook['cells'])} cells)")
    return 0


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def tutorial_files(root: Path) -> list[Path]:
    """Every tutorials/*.md under `root` except the index README.md, sorted."""
    return sorted(p for p in (root / "tutorials").glob("*.md") if p.name != "README.md")


def run_isolated(paths: list[Path]) -> int:
    """Run each file in a fresh Python process, so no state leaks from one to the next."""
    status = 0
    for path in paths:
        command = [sys.executable, str(Path(__file__).resolve()), "--same-process", str(path)]
        sys.stdout.flush()
        status = max(status, subprocess.run(command, check=False).returncode)
    return status


def run_here(paths: list[Path]) -> int:
    all_passed = True
    for path in paths:
        report = run_file(path)
        print(report.summary())
        all_passed = all_passed and report.passed
    return 0 if all_passed else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("files", nargs="*", type=Path, help="tutorials (default: all of them)")
    parser.add_argument("--notebook", metavar="OUTDIR", type=Path, help="write .ipynb files here")
    parser.add_argument(
        "--same-process",
        action="store_true",
        help="run the files one after another in this process (each still in a fresh namespace)",
    )
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.files] or tutorial_files(PROJECT_ROOT)
    if not paths:
        print(f"run_tutorials: no tutorials in {PROJECT_ROOT / 'tutorials'}", file=sys.stderr)
        return 2
    missing = [p for p in paths if not p.is_file()]
    if missing:
        print(f"run_tutorials: no such file: {display_path(missing[0])}", file=sys.stderr)
        return 2
    try:
        if args.notebook:
            return write_notebooks(paths, args.notebook)
        if args.same_process or len(paths) == 1:
            return run_here(paths)
        return run_isolated(paths)
    except TutorialError as error:
        print(f"run_tutorials: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
