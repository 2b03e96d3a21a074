"""minitorch.graph: the DOT text and the drawing of a Scalar's computation graph."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from minitorch import Scalar
from minitorch import graph as graph_module
from minitorch.graph import draw, graph_nodes, layout, node_names, to_dot

HEADER = ["digraph {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']


def test_dot_of_a_small_expression_after_backward() -> None:
    x, w = Scalar(2.0, name="x"), Scalar(1.5, name="w")
    y = (x * w + 1.0).relu()
    y.backward()
    # Scalars in creation order: x, w, x*w = 3, the constant 1, 3 + 1 = 4, relu(4) = 4.
    # dy/dx = w = 1.5 and dy/dw = x = 2; intermediate Scalars keep no grad.
    expected = [
        *HEADER,
        '  v0 [shape=record, label="{x | data 2 | grad 1.5}"];',
        '  v1 [shape=record, label="{w | data 1.5 | grad 2}"];',
        '  v2 [shape=record, label="{data 3 | grad None}"];',
        '  v2_op [shape=ellipse, label="Mul"];',
        '  v3 [shape=record, style=dashed, label="{constant | data 1}"];',
        '  v4 [shape=record, label="{data 4 | grad None}"];',
        '  v4_op [shape=ellipse, label="Add"];',
        '  v5 [shape=record, label="{data 4 | grad None}"];',
        '  v5_op [shape=ellipse, label="ReLU"];',
        "  v0 -> v2_op;",
        "  v1 -> v2_op;",
        "  v2_op -> v2;",
        "  v2 -> v4_op;",
        "  v3 -> v4_op;",
        "  v4_op -> v4;",
        "  v4 -> v5_op;",
        "  v5_op -> v5;",
        "}",
    ]
    got = to_dot(y).splitlines()
    diff = "\n".join(difflib.unified_diff(expected, got, "expected", "got", lineterm=""))
    assert got == expected, f"the DOT text differs:\n{diff}"


def test_a_shared_input_is_one_node_with_two_edges() -> None:
    a = Scalar(3.0)
    b = a + a
    c = b * b
    lines = to_dot(c).splitlines()
    nodes = [line for line in lines if "shape=record" in line]
    assert len(nodes) == 3, f"a, b, c expected once each: {nodes}"
    assert lines.count("  v0 -> v1_op;") == 2, f"a enters Add twice: {lines}"
    assert lines.count("  v1 -> v2_op;") == 2, f"b enters Mul twice: {lines}"


def test_graph_nodes_in_creation_order_including_constants() -> None:
    x = Scalar(1.0)
    y = 2.0 * x
    z = y.exp() - x
    nodes = graph_nodes(z)
    # x, the constant 2, y, exp(y), z (a shared input counted once)
    assert [n.data for n in nodes[:3]] == [1.0, 2.0, 2.0], [n.data for n in nodes]
    assert nodes[0] is x and nodes[2] is y and nodes[-1] is z and len(nodes) == 5
    assert nodes[1].is_constant()


def test_special_characters_in_names_are_escaped() -> None:
    x = Scalar(1.0, name='a|b{c}"d"<e>')
    assert r'label="{a\|b\{c\}\"d\"\<e\> | data 1 | grad None}"' in to_dot(x)


def test_a_leaf_alone() -> None:
    assert to_dot(Scalar(-0.25)).splitlines() == [
        *HEADER,
        '  v0 [shape=record, label="{data -0.25 | grad None}"];',
        "}",
    ]


def test_layout_columns() -> None:
    x, w = Scalar(2.0), Scalar(3.0)
    y = (x * w).relu() + x
    place = layout(nodes := graph_nodes(y), node_names(nodes))
    # leaves in column 0; Mul op 1, x*w 2; ReLU op 3, relu 4; Add op 5, y 6
    columns = {name: column for name, (column, _) in place.items()}
    assert columns == {
        "v0": 0,
        "v1": 0,
        "v2_op": 1,
        "v2": 2,
        "v3_op": 3,
        "v3": 4,
        "v4_op": 5,
        "v4": 6,
    }, columns
    assert place["v0"] != place["v1"], "two leaves in the same place"


def test_draw_with_matplotlib_writes_a_png(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    image = pytest.importorskip("matplotlib.image")
    monkeypatch.setattr(graph_module.shutil, "which", lambda name: None)  # no Graphviz
    x = Scalar(2.0, name="x")
    y = x * x + 1.0
    y.backward()
    path = draw(y, tmp_path / "graph.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pixels = image.imread(path)
    assert pixels.shape[1] > pixels.shape[0] > 50, f"unexpected image shape {pixels.shape}"
    assert pixels[..., :3].std() > 0.05, "the image is (nearly) blank"
