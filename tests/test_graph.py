"""minitorch.graph: the DOT text and the drawing of a Scalar's or a tensor's computation graph."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from matplotlib import image

import minitorch
from minitorch import Scalar
from minitorch import graph as graph_module
from minitorch.graph import (
    arrow_bends,
    draw,
    graph_nodes,
    layout,
    operation_nodes,
    scalar_picture,
    to_dot,
)

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
    place = layout(scalar_picture(y))
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
    monkeypatch.setattr(graph_module.shutil, "which", lambda name: None)  # no Graphviz
    x = Scalar(2.0, name="x")
    y = x * x + 1.0
    y.backward()
    path = draw(y, tmp_path / "graph.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pixels = image.imread(path)
    assert pixels.shape[1] > pixels.shape[0] > 50, f"unexpected image shape {pixels.shape}"
    assert pixels[..., :3].std() > 0.05, "the image is (nearly) blank"


def test_repeated_arrows_bend_apart() -> None:
    # x * x: two arrows from x into Mul, which drawn straight would lie on top of each other
    arrows = [("v0", "v1_op", None), ("v0", "v1_op", None), ("v1_op", "v1", None)]
    place = {"v0": (0, 0), "v1_op": (1, 0), "v1": (2, 0)}
    bends = arrow_bends(arrows, place)
    assert bends[0] != bends[1], f"the two arrows from x overlap: {bends}"
    assert bends[2] == 0, "a single arrow to the next column is drawn straight"
    three = arrow_bends([("v0", "v1_op", None)] * 3, place)
    assert len(set(three)) == 3, f"three uses of one input need three different bends: {three}"


def test_an_arrow_that_skips_columns_on_its_row_bends_around_the_boxes_between() -> None:
    # out = exp(x * w) + x: x's arrow into Add would run through Mul, u, Exp and v
    x = Scalar(2.0, name="x")
    out = (x * Scalar(-1.0)).exp() + x
    picture = scalar_picture(out)
    place = layout(picture)
    bends = dict(zip(picture.arrows, arrow_bends(picture.arrows, place), strict=True))
    skip = ("v0", "v4_op", None)
    assert place["v0"][1] == place["v4_op"][1], f"expected x and Add on one row: {place}"
    assert bends[skip] != 0, f"x -> Add runs straight through the boxes between: {bends}"
    assert bends[("v0", "v2_op", None)] == 0, "x -> Mul (next column) needs no bend"


def test_dot_of_a_tensor_graph_names_nodes_as_torch_and_labels_shapes() -> None:
    w = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()
    # PyTorch records y.grad_fn = SumBackward0 -> MulBackward0 -> AccumulateGrad(w) twice;
    # numbered from the result backwards: t1 Sum, t2 Mul, t3 the leaf w.
    assert to_dot(y, names={"w": w}).splitlines() == [
        *HEADER,
        '  t3 [shape=record, label="{w | (2,)}"];',
        '  t2 [shape=ellipse, label="MulBackward0"];',
        '  t1 [shape=ellipse, label="SumBackward0"];',
        '  t0 [shape=record, label="{result | ()}"];',
        '  t3 -> t2 [label="(2,)"];',
        '  t3 -> t2 [label="(2,)"];',
        '  t2 -> t1 [label="(2,)"];',
        '  t1 -> t0 [label="()"];',
        "}",
    ]


def torch_node_names(output) -> list[str]:
    """The node names of `output`'s graph in the order `operation_nodes` walks it."""
    return [node.name().split("::")[-1] for node in operation_nodes(output)]


def test_tensor_graph_has_torchs_nodes_in_an_order_that_puts_inputs_first() -> None:
    torch = pytest.importorskip("torch")

    def model(lib, w, b, x):
        hidden = (w @ x + b).relu()
        return (hidden * w.sum()).sum()

    data = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]
    ours = [
        minitorch.tensor(data, requires_grad=True),
        minitorch.tensor([0.1, -0.2], requires_grad=True),
    ]
    theirs = [torch.tensor(data, requires_grad=True), torch.tensor([0.1, -0.2], requires_grad=True)]
    y = model(minitorch, *ours, minitorch.tensor([1.0, 2.0, 3.0]))
    expected = model(torch, *theirs, torch.tensor([1.0, 2.0, 3.0]))
    assert torch_node_names(y) == torch_node_names(expected)
    picture = graph_module.picture_of(y)
    place = layout(picture)
    for start, end, _ in picture.arrows:
        assert place[start][0] < place[end][0], f"{start} -> {end} points left: {place}"


def test_draw_a_tensor_graph_with_matplotlib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graph_module.shutil, "which", lambda name: None)  # no Graphviz
    w = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    path = draw((w @ w).sum(), tmp_path / "tensor.png", names={"w": w})
    pixels = image.imread(path)
    assert pixels.shape[1] > pixels.shape[0] > 50, f"unexpected image shape {pixels.shape}"
    assert pixels[..., :3].std() > 0.05, "the image is (nearly) blank"
