"""The exercise tooling's model (scripts/exercises.py): the task table, and finding and
stubbing the solution regions of a task, with the errors of bad markers.

The tools run on small fake projects built in tmp_path (tests/exercise_projects.py).
"""

import textwrap

import exercise_projects
import pytest
from exercise_projects import BAD_MARKERS, OPS, PYPROJECT, exercises, make_project

# the fake project of exercise_projects, loaded by exercises.Project
project = exercise_projects.project


def regions_of(project, source: str, path: str = "minitorch/ops.py"):
    return exercises.scan_source(source, path, project)


# --- the task table -------------------------------------------------------------------------


def test_task_table_in_numeric_order_with_markers(tmp_path):
    table = textwrap.dedent("""\
        [tool.minitorch.tasks]
        "1.10" = { title = "Ten", tutorial = "t.md" }
        "1.2" = { title = "Two", tutorial = "t.md" }
        "0.1" = { title = "One", tutorial = "t.md" }
    """)
    (tmp_path / "pyproject.toml").write_text(table)
    project = exercises.Project.load(tmp_path)
    assert list(project.tasks) == ["0.1", "1.2", "1.10"]
    assert project.tasks["1.10"].marker == "task1_10"
    assert project.line_length == 88, "ruff's default line length when none is configured"


def test_select_by_module_and_by_ids(project):
    assert [task.id for task in project.select()] == ["0.1", "0.2", "0.3"]
    assert [task.id for task in project.select(module="0")] == ["0.1", "0.2", "0.3"]
    assert [task.id for task in project.select(task_ids=["0.3", "0.1"])] == ["0.3", "0.1"]
    with pytest.raises(exercises.ExerciseError, match=r"unknown task 9\.9 \(tasks: 0\.1, 0\.2"):
        project.select(task_ids=["0.1", "9.9"])
    with pytest.raises(exercises.ExerciseError, match=r"no tasks in module '4' \(modules: 0\)"):
        project.select(module="4")
    with pytest.raises(exercises.ExerciseError, match="no task ids given"):
        project.select(task_ids=[])


def test_parse_task_list():
    assert exercises.parse_task_list("1.2, 1.3,") == ["1.2", "1.3"]


# --- finding and stubbing regions --------------------------------------------------------------


def test_regions_found_with_lines_and_indent(project):
    regions = project.scan()
    assert [(r.task_id, r.path, r.begin, r.end, r.indent) for r in regions] == [
        ("0.1", "minitorch/ops.py", 8, 10, "    "),
        ("0.2", "minitorch/ops.py", 15, 17, "    "),
        ("0.3", "minitorch/ops.py", 22, 24, "    "),
    ]


def test_stub_replaces_only_the_region(project):
    regions = [r for r in project.scan() if r.task_id == "0.2"]
    stubbed = exercises.stub_source(OPS, regions, project)
    expected = OPS.replace(
        "    # BEGIN SOLUTION 0.2\n    return x * y\n    # END SOLUTION 0.2\n",
        '    raise NotImplementedError("Task 0.2: Multiplication — see tutorials/module0.md")\n',
    )
    assert expected != OPS
    assert stubbed == expected


def test_stub_keeps_deeper_indentation_docstring_and_line_endings(project):
    source = (
        "class Adder:\r\n"
        "    def add(self, x):\r\n"
        '        """Add one.\r\n'
        "\r\n"
        "        # BEGIN SOLUTION 0.1 (in a docstring: not a marker)\r\n"
        '        """\r\n'
        "        if x:\r\n"
        "            # BEGIN SOLUTION 0.1\r\n"
        "            y = x + 1\r\n"
        "            return y\r\n"
        "            # END SOLUTION 0.1\r\n"
        "        return 1\r\n"
    )
    regions, problems = regions_of(project, source)
    assert problems == []
    assert [(r.begin, r.end, r.indent) for r in regions] == [(8, 11, " " * 12)]
    stubbed = exercises.stub_source(source, regions, project)
    assert stubbed == (
        "class Adder:\r\n"
        "    def add(self, x):\r\n"
        '        """Add one.\r\n'
        "\r\n"
        "        # BEGIN SOLUTION 0.1 (in a docstring: not a marker)\r\n"
        '        """\r\n'
        "        if x:\r\n"
        '            raise NotImplementedError("Task 0.1: Addition — see tutorials/module0.md")\r\n'
        "        return 1\r\n"
    )


def test_long_stub_split_in_two_literals_with_the_same_message(tmp_path):
    title = "A title long enough that the one-line stub does not fit in a hundred columns"
    pyproject = PYPROJECT.replace('title = "Addition"', f'title = "{title}"')
    project = exercises.Project.load(make_project(tmp_path, {"pyproject.toml": pyproject}))
    lines = exercises.stub_lines(project.tasks["0.1"], "    ", project.line_length)
    assert lines == [
        "    raise NotImplementedError(",
        f'        "Task 0.1: {title}"',
        '        " — see tutorials/module0.md"',
        "    )",
    ]
    assert all(len(line) <= 100 for line in lines), [len(line) for line in lines]
    namespace = {}
    exec("def f():\n" + "\n".join(lines) + "\n", namespace)
    with pytest.raises(NotImplementedError) as raised:
        namespace["f"]()
    assert str(raised.value) == f"Task 0.1: {title} — see tutorials/module0.md"


def test_stub_escapes_quotes_and_backslashes(tmp_path):
    pyproject = PYPROJECT.replace('title = "Addition"', r'title = "The \"add\" op \\ sum"')
    project = exercises.Project.load(make_project(tmp_path, {"pyproject.toml": pyproject}))
    (line,) = exercises.stub_lines(project.tasks["0.1"], "", project.line_length)
    with pytest.raises(NotImplementedError, match=r'Task 0.1: The "add" op \\ sum — see'):
        exec(line)


@pytest.mark.parametrize("case", BAD_MARKERS, ids=list(BAD_MARKERS))
def test_bad_markers_refused_with_file_and_line(project, case):
    source, expected = BAD_MARKERS[case]
    regions, problems = regions_of(project, source)
    assert regions == []
    assert len(problems) == 1 and problems[0].startswith("minitorch/" + expected), problems


def test_scan_reports_problems_of_every_file(project):
    (project.root / "minitorch" / "more.py").write_text(BAD_MARKERS["unknown task"][0])
    (project.root / "minitorch" / "sub").mkdir()
    (project.root / "minitorch" / "sub" / "deep.py").write_text(BAD_MARKERS["nested"][0])
    with pytest.raises(exercises.ExerciseError) as raised:
        project.scan()
    lines = str(raised.value).splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        "minitorch/more.py:2",
        "minitorch/sub/deep.py:3",
    ]


def test_find_test_markers_ignores_strings(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import pytest\nfrom pytest import mark\n\n"
        "pytestmark = pytest.mark.task0_1\n\n"
        "@mark.task9_9\ndef test_x():\n    assert '@pytest.mark.task5_5'\n"
    )
    uses, problems = exercises.find_test_markers(tmp_path)
    assert uses == [("tests/test_a.py", 4, "task0_1"), ("tests/test_a.py", 6, "task9_9")]
    assert problems == []
    assert exercises.marker_test_files(tmp_path) == {
        "task0_1": ["tests/test_a.py"],
        "task9_9": ["tests/test_a.py"],
    }
