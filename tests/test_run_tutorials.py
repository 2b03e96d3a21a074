"""Tests of scripts/run_tutorials.py on small fake tutorials written in tmp_path."""

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "run_tutorials.py"

spec = importlib.util.spec_from_file_location("run_tutorials", SCRIPT)
run_tutorials = importlib.util.module_from_spec(spec)
sys.modules["run_tutorials"] = run_tutorials  # dataclasses look their module up here
spec.loader.exec_module(run_tutorials)

FENCE = "```"


def write(tmp_path: Path, text: str, name: str = "lesson.md") -> Path:
    """Write a tutorial; `~~~` in `text` stands for a backtick fence (easier to read here)."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).replace("~~~", FENCE), encoding="utf-8")
    return path


def run(capsys, *args: object) -> tuple[int, str]:
    """Run the script's main in this process; return its exit status and all it printed."""
    status = run_tutorials.main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def line_of(path: Path, text: str) -> int:
    """The 1-based number of the first line of `path` that equals `text`."""
    return path.read_text().splitlines().index(text) + 1


def test_matching_output_passes(tmp_path, capsys):
    path = write(
        tmp_path,
        """\
        # A lesson

        ~~~python
        x = 6 * 7
        print(x)
        print("two", "lines")
        ~~~

        ~~~text
        42
        two lines
        ~~~

        ~~~python
        print(x + 1)  # the namespace carries over between blocks
        ~~~
        ~~~text
        43
        ~~~
        """,
    )
    status, out = run(capsys, path, "--same-process")
    assert status == 0, out
    assert out.strip().endswith("lesson.md: 2 blocks run, 2 ok"), out


def test_trailing_spaces_and_blank_lines_are_ignored_but_leading_spaces_are_not(tmp_path, capsys):
    ok = write(
        tmp_path,
        """\
        ~~~python
        print("a   ")
        print()
        print()
        ~~~

        ~~~text
        a
        ~~~
        """,
        "ok.md",
    )
    assert run(capsys, ok)[0] == 0
    indented = write(
        tmp_path,
        """\
        ~~~python
        print("  a")
        ~~~

        ~~~text
        a
        ~~~
        """,
        "indented.md",
    )
    status, out = run(capsys, indented)
    assert status == 1, out
    assert "+  a" in out and "-a" in out, out


def test_wrong_output_fails_with_file_line_and_diff(tmp_path, capsys):
    path = write(
        tmp_path,
        """\
        Some prose.

        ~~~python
        print(1 + 1)
        print("same")
        ~~~

        ~~~text
        3
        same
        ~~~

        ~~~python
        print("still runs")
        ~~~

        ~~~text
        still runs
        ~~~
        """,
    )
    status, out = run(capsys, path)
    assert status == 1, out
    code_line = line_of(path, FENCE + "python")
    text_line = line_of(path, FENCE + "text")
    assert f"lesson.md:{code_line}: the output differs from the text block at line {text_line}" in (
        out
    )
    assert "--- expected" in out and "+++ actual" in out, out
    diff_lines = out.splitlines()
    assert "-3" in diff_lines and "+2" in diff_lines and " same" in diff_lines, out
    # A mismatch does not stop the file: the second block still ran and passed.
    assert "lesson.md: 2 blocks run, 1 ok, 1 failed — FAILED" in out, out


def test_exception_fails_with_traceback_into_the_tutorial_and_stops_the_file(tmp_path, capsys):
    marker = tmp_path / "later_block_ran"
    path = write(
        tmp_path,
        f"""\
        ~~~python
        print("before")
        ~~~

        ~~~text
        before
        ~~~

        ~~~python
        value = 1
        value / 0
        ~~~

        ~~~python
        open({str(marker)!r}, "w").close()
        ~~~
        """,
    )
    status, out = run(capsys, path)
    assert status == 1, out
    block_line = line_of(path, "value = 1") - 1
    assert f"lesson.md:{block_line}: the block raised ZeroDivisionError" in out, out
    # The traceback points at the failing line of the Markdown file itself.
    assert re.search(rf'lesson\.md", line {line_of(path, "value / 0")}\b', out), out
    assert "lesson.md: 2 blocks run, 1 ok, 1 failed, 1 not run after the error — FAILED" in out
    assert not marker.exists(), "a block after the exception ran"


def test_silent_block_without_text_passes(tmp_path, capsys):
    path = write(
        tmp_path,
        """\
        ~~~python
        import math
        radius = 2.0
        ~~~

        A text block after prose is for reading only, not an expected output:

        ~~~text
        this is never compared
        ~~~
        """,
    )
    status, out = run(capsys, path)
    assert status == 0, out
    assert "1 blocks run, 1 ok" in out, out


def test_printing_block_without_text_fails(tmp_path, capsys):
    path = write(
        tmp_path,
        """\
        ~~~python
        print("unexpected")
        ~~~

        Prose between the code and the text block: the text is not its output.

        ~~~text
        unexpected
        ~~~
        """,
    )
    status, out = run(capsys, path)
    assert status == 1, out
    assert "lesson.md:1: the block printed 1 line(s) but no ```text block follows it" in out, out
    assert "+unexpected" in out.splitlines(), out


def test_other_languages_do_not_run(tmp_path, capsys):
    path = write(
        tmp_path,
        """\
        ~~~bash
        exit 1
        ~~~

        ~~~
        raise SystemExit(1)
        ~~~
        """,
    )
    status, out = run(capsys, path)
    assert status == 0, out
    assert "0 blocks run, 0 ok" in out, out


def test_unclosed_fence_is_refused_with_its_line(tmp_path, capsys):
    path = write(tmp_path, "Intro.\n\n~~~python\nprint(1)\n")
    status, out = run(capsys, path)
    assert status == 2, out
    assert "lesson.md:3: the fence ``` is never closed" in out, out


def test_missing_file_is_refused(tmp_path, capsys):
    status, out = run(capsys, tmp_path / "nope.md")
    assert status == 2
    assert "no such file" in out and "nope.md" in out, out


def test_blocks_run_in_the_project_root_with_its_own_minitorch(tmp_path):
    # Another `minitorch` first on PYTHONPATH must not be the one the tutorial imports.
    decoy = tmp_path / "decoy" / "minitorch"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("")
    path = write(
        tmp_path,
        f"""\
        ~~~python
        import os
        from pathlib import Path

        import minitorch

        print(Path(os.getcwd()) == Path({str(REPO)!r}))
        print(Path(minitorch.__file__).resolve().parent == Path({str(REPO / "minitorch")!r}))
        ~~~

        ~~~text
        True
        True
        ~~~
        """,
    )
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(decoy.parent)},
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_runner_restores_the_working_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, "~~~python\nx = 1\n~~~\n")
    assert run(capsys, path)[0] == 0
    assert Path.cwd() == tmp_path


def test_each_file_gets_a_fresh_process_and_namespace(tmp_path):
    first = write(
        tmp_path,
        """\
        ~~~python
        import sys
        shared = 1
        sys.modules["leaked_module"] = sys
        ~~~
        """,
        "a.md",
    )
    second = write(
        tmp_path,
        """\
        ~~~python
        import sys
        print("shared" in globals(), "leaked_module" in sys.modules)
        ~~~

        ~~~text
        False False
        ~~~
        """,
        "b.md",
    )
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(first), str(second)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "a.md: 1 blocks run, 1 ok" in result.stdout, result.stdout
    assert "b.md: 1 blocks run, 1 ok" in result.stdout, result.stdout


def test_one_failing_file_fails_the_run_and_the_others_still_run(tmp_path):
    bad = write(tmp_path, "~~~python\nprint(1)\n~~~\n\n~~~text\n2\n~~~\n", "a.md")
    good = write(tmp_path, "~~~python\nprint(1)\n~~~\n\n~~~text\n1\n~~~\n", "b.md")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(bad), str(good)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "a.md: 1 blocks run, 0 ok, 1 failed — FAILED" in result.stdout, result.stdout
    assert "b.md: 1 blocks run, 1 ok" in result.stdout, result.stdout


def test_default_files_are_the_tutorials_without_the_index(tmp_path):
    (tmp_path / "tutorials").mkdir()
    for name in ("README.md", "module1_b.md", "module0_a.md", "notes.txt"):
        (tmp_path / "tutorials" / name).write_text("")
    names = [p.name for p in run_tutorials.tutorial_files(tmp_path)]
    assert names == ["module0_a.md", "module1_b.md"]


def test_notebook_conversion(tmp_path, capsys):
    path = write(
        tmp_path,
        """\
        # Title

        Intro with $x^2$.

        ~~~python
        print("hi")
        print("there")
        ~~~

        ~~~text
        hi
        there
        ~~~

        Shell, kept in the prose:

        ~~~bash
        python run.py
        ~~~

        ~~~python
        y = 1
        ~~~

        The end.
        """,
    )
    outdir = tmp_path / "notebooks"
    status, out = run(capsys, path, "--notebook", outdir)
    assert status == 0, out
    notebook = json.loads((outdir / "lesson.ipynb").read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4 and notebook["nbformat_minor"] >= 4
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    cells = notebook["cells"]
    kinds = [cell["cell_type"] for cell in cells]
    assert kinds == ["markdown", "code", "markdown", "code", "markdown"], kinds
    sources = ["".join(cell["source"]) for cell in cells]
    assert sources[0] == "# Title\n\nIntro with $x^2$."
    assert sources[1] == 'print("hi")\nprint("there")'
    assert sources[2] == "Shell, kept in the prose:\n\n```bash\npython run.py\n```"
    assert sources[3] == "y = 1"
    assert sources[4] == "The end."
    assert cells[1]["outputs"] == [
        {"output_type": "stream", "name": "stdout", "text": ["hi\n", "there\n"]}
    ]
    assert cells[3]["outputs"] == []
    for cell in cells:
        assert isinstance(cell["source"], list) and cell["metadata"] == {}
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", cell["id"]), cell["id"]
        if cell["cell_type"] == "code":
            assert cell["execution_count"] is None
    assert len({cell["id"] for cell in cells}) == len(cells), "cell ids must be unique"
    assert "lesson.md" in out and "5 cells" in out, out


def test_notebook_links_point_to_notebooks_and_other_files_stay_reachable(tmp_path, capsys):
    lessons = tmp_path / "lessons"
    (lessons / "images").mkdir(parents=True)
    (lessons / "images" / "graph.png").write_bytes(b"png")
    first = write(
        lessons,
        """\
        See [the next lesson](second.md#part-2), ![a graph](images/graph.png),
        [the README](../README.md), [PyTorch](https://pytorch.org/docs) and [below](#end).
        """,
    )
    second = lessons / "second.md"
    second.write_text("# Second\n", encoding="utf-8")
    outdir = tmp_path / "out" / "notebooks"
    status, out = run(capsys, first, second, "--notebook", outdir)
    assert status == 0, out
    cells = json.loads((outdir / "lesson.ipynb").read_text(encoding="utf-8"))["cells"]
    text = "".join(cells[0]["source"])
    assert "[the next lesson](second.ipynb#part-2)" in text, text
    assert "![a graph](../../lessons/images/graph.png)" in text, text
    assert (outdir / "../../lessons/images/graph.png").read_bytes() == b"png"
    assert "[the README](../../README.md)" in text, text
    assert "(https://pytorch.org/docs)" in text and "[below](#end)" in text, text


def test_notebook_of_a_real_tutorial_is_valid(tmp_path, capsys):
    import nbformat

    tutorial = REPO / "tutorials" / "00_operators.md"
    assert run(capsys, tutorial, "--notebook", tmp_path)[0] == 0
    nbformat.validate(nbformat.read(tmp_path / "00_operators.ipynb", as_version=4))


@pytest.mark.parametrize("tutorial", run_tutorials.tutorial_files(REPO), ids=lambda p: p.name)
def test_every_task_is_listed_in_the_exercises_of_its_tutorial(tutorial):
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    with open(REPO / "pyproject.toml", "rb") as f:
        tasks = tomllib.load(f)["tool"]["minitorch"]["tasks"]
    text = tutorial.read_text(encoding="utf-8")
    assert "## Exercises" in text, f"{tutorial.name} has no Exercises section"
    exercises = text.split("## Exercises", 1)[1]
    own_tasks = {i: t for i, t in tasks.items() if REPO / t["tutorial"] == tutorial}
    for task_id, task in own_tasks.items():
        row = f"| {task_id} | {task['title']} |"
        assert row in exercises, f"task {task_id} is not in the exercise table of {tutorial.name}"
