"""Pictures of a computation graph: the one behind a `Scalar`, or behind a tensor.

`to_dot(y)` writes the graph that `y.backward()` walks as Graphviz DOT text.
For a Scalar: one box per Scalar (its name if it has one, its value and its
gradient) and one ellipse per operation, with arrows from the inputs to the
operation and from the operation to its result. Nodes are numbered in the
order the Scalars were created, so the text is the same on every run:

>>> from minitorch import Scalar
>>> x = Scalar(2.0, name="x")
>>> print(to_dot(x * 3.0))
digraph {
  rankdir=LR;
  node [fontname="Helvetica", fontsize=10];
  v0 [shape=record, label="{x | data 2 | grad None}"];
  v1 [shape=record, style=dashed, label="{constant | data 3}"];
  v2 [shape=record, label="{data 6 | grad None}"];
  v2_op [shape=ellipse, label="Mul"];
  v0 -> v2_op;
  v1 -> v2_op;
  v2_op -> v2;
}

For a tensor the graph is the one PyTorch records: one ellipse per `grad_fn`
node, named as PyTorch names it (`MulBackward0`, ...), one box per leaf that
requires grad (its name when `names` gives one, and its shape), one box for
the result, and the shape of the tensor each arrow carries on the arrow.
Nodes are numbered from the result backwards (`t0` is the result).

`draw(y, "graph.png")` renders the same graph to an image: with Graphviz's
`dot` program when it is installed, otherwise with matplotlib and a simple
layered layout (a reused input gets one arrow per use, each bent differently
so that every one stays visible).
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Box:
    """One node of a picture: a record box (a value) or an ellipse (an operation)."""

    name: str
    fields: list[str]
    ellipse: bool = False
    dashed: bool = False


@dataclass
class Picture:
    """Boxes, and arrows between them: (start box, end box, label or None)."""

    boxes: list[Box] = field(default_factory=list)
    arrows: list[tuple[str, str, str | None]] = field(default_factory=list)


# -- Scalars ------------------------------------------------------------------


def graph_nodes(root: Any) -> list[Any]:
    """Every Scalar `root` was computed from, constants included, in creation order."""
    seen: dict[int, Any] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.unique_id in seen:
            continue
        seen[node.unique_id] = node
        stack.extend(node.inputs or ())
    return [seen[key] for key in sorted(seen)]


def node_names(nodes: list[Any]) -> dict[int, str]:
    """`v0`, `v1`, ... by position in `nodes`, keyed by `unique_id`."""
    return {node.unique_id: f"v{k}" for k, node in enumerate(nodes)}


def _number(value: float) -> str:
    return f"{value:.4g}"


def scalar_fields(node: Any) -> list[str]:
    """`[name, "data ...", "grad ..."]`; a constant shows only its value."""
    if node.is_constant():
        return ["constant", f"data {_number(node.data)}"]
    fields = [node.name] if node.name else []
    fields.append(f"data {_number(node.data)}")
    fields.append(f"grad {'None' if node.grad is None else _number(node.grad)}")
    return fields


def scalar_picture(root: Any) -> Picture:
    """The graph of Scalar `root`: a box per Scalar, an ellipse per operation."""
    nodes = graph_nodes(root)
    names = node_names(nodes)
    picture = Picture()
    for node in nodes:
        name = names[node.unique_id]
        picture.boxes.append(Box(name, scalar_fields(node), dashed=node.is_constant()))
        if node.function is not None:
            picture.boxes.append(Box(f"{name}_op", [node.function.__name__], ellipse=True))
            picture.arrows += [(names[x.unique_id], f"{name}_op", None) for x in node.inputs]
            picture.arrows.append((f"{name}_op", name, None))
    return picture


# -- tensors ------------------------------------------------------------------


def shape_text(shape) -> str:
    """`(2, 3)`, `(3,)` or `()`: a shape as Python prints a tuple."""
    return str(tuple(shape))


def operation_nodes(output: Any) -> list[Any]:
    """The `grad_fn` nodes behind tensor `output`, each once, every node after the nodes of
    its inputs and `output.grad_fn` last (depth first, inputs in order: the same list on
    every run)."""
    order, seen = [], set()
    stack = [(output.grad_fn, False)]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            order.append(node)
        elif node is not None and id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((parent, False) for parent, _ in reversed(node.next_functions))
    return order


def tensor_picture(output: Any, names: dict[str, Any] | None = None) -> Picture:
    """The graph PyTorch records for tensor `output`; `names` maps names to leaf tensors
    (e.g. `dict(model.named_parameters())`) to label their boxes."""
    leaf_names = {id(tensor): name for name, tensor in (names or {}).items()}
    nodes = operation_nodes(output)
    ids = {id(node): f"t{len(nodes) - k}" for k, node in enumerate(nodes)}
    picture = Picture()
    for node in nodes:
        name = ids[id(node)]
        variable = getattr(node, "variable", None)  # an AccumulateGrad's leaf
        if variable is not None:
            label = [leaf_names[id(variable)]] if id(variable) in leaf_names else []
            picture.boxes.append(Box(name, [*label, shape_text(variable.shape)]))
            continue
        picture.boxes.append(Box(name, [node.name()], ellipse=True))
        for (parent, _), meta in zip(node.next_functions, node.input_meta, strict=False):
            if parent is not None:
                picture.arrows.append((ids[id(parent)], name, shape_text(meta[0])))
    result = ["result", shape_text(output.shape)]
    picture.boxes.append(Box("t0", result, dashed=output.grad_fn is None))
    if output.grad_fn is not None:
        picture.arrows.append(("t1", "t0", shape_text(output.shape)))
    return picture


def picture_of(root: Any, names: dict[str, Any] | None = None) -> Picture:
    """A tensor's picture (it has a `grad_fn`) or a Scalar's."""
    return tensor_picture(root, names) if hasattr(root, "grad_fn") else scalar_picture(root)


# -- DOT text -----------------------------------------------------------------


def _dot_escape(text: str) -> str:
    """Backslash the characters that mean something in a DOT record label."""
    for char in '\\{}|<>"':
        text = text.replace(char, "\\" + char)
    return text


def to_dot(root: Any, names: dict[str, Any] | None = None) -> str:
    """The graph of `root` (a Scalar or a tensor) as Graphviz DOT text (see the module
    docstring); `names` labels a tensor graph's leaves."""
    picture = picture_of(root, names)
    lines = ["digraph {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
    for box in picture.boxes:
        if box.ellipse:
            lines.append(f'  {box.name} [shape=ellipse, label="{_dot_escape(box.fields[0])}"];')
        else:
            style = "style=dashed, " if box.dashed else ""
            label = " | ".join(_dot_escape(text) for text in box.fields)
            lines.append(f'  {box.name} [shape=record, {style}label="{{{label}}}"];')
    for start, end, label in picture.arrows:
        suffix = "" if label is None else f' [label="{_dot_escape(label)}"]'
        lines.append(f"  {start} -> {end}{suffix};")
    return "\n".join([*lines, "}"])


# -- drawing ------------------------------------------------------------------


def draw(root: Any, path: str | Path, names: dict[str, Any] | None = None) -> Path:
    """Render the graph of `root` to an image file (its format from the suffix of `path`).

    Uses Graphviz's `dot` when it is on the PATH, matplotlib otherwise.
    """
    path = Path(path)
    dot = shutil.which("dot")
    if dot is not None:
        fmt = path.suffix.lstrip(".") or "png"
        subprocess.run(
            [dot, f"-T{fmt}", "-o", str(path)], input=to_dot(root, names), text=True, check=True
        )
    else:
        _draw_with_matplotlib(picture_of(root, names), path)
    return path


def layout(picture: Picture) -> dict[str, tuple[int, int]]:
    """(column, row) of every box: a box with no arrow in is in column 0, any other one
    column right of the rightmost box with an arrow into it."""
    column = {box.name: 0 for box in picture.boxes}
    waiting = Counter(end for _, end, _ in picture.arrows)  # arrows in, not yet placed
    leaving: dict[str, list[str]] = {}
    for start, end, _ in picture.arrows:
        leaving.setdefault(start, []).append(end)
    ready = [name for name in column if waiting[name] == 0]
    while ready:  # Kahn's topological order: a box is placed once all its inputs are
        start = ready.pop()
        for end in leaving.get(start, ()):
            column[end] = max(column[end], column[start] + 1)
            waiting[end] -= 1
            if waiting[end] == 0:
                ready.append(end)
    rows: Counter[int] = Counter()
    place = {}
    for name, col in column.items():
        place[name] = (col, rows[col])
        rows[col] += 1
    return place


def arrow_bends(
    arrows: list[tuple[str, str, str | None]], place: dict[str, tuple[int, int]]
) -> list[float]:
    """How much to bend each arrow (matplotlib's arc3 `rad`) so that every arrow stays
    visible: repeated arrows between two boxes (`x * x`) get 0, 0.3, -0.3, 0.6, ...; an
    arrow along a row that skips columns would run through the boxes between its ends,
    so it bends too."""
    seen: Counter[tuple[str, str]] = Counter()
    bends = []
    for start, end, _ in arrows:
        k = seen[start, end]
        seen[start, end] += 1
        bend = 0.3 * ((k + 1) // 2) * (1 if k % 2 else -1)
        (start_column, start_row), (end_column, end_row) = place[start], place[end]
        if bend == 0 and start_row == end_row and end_column - start_column > 1:
            bend = 0.15
        bends.append(bend)
    return bends


def _draw_with_matplotlib(picture: Picture, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    place = layout(picture)
    width = 1 + max(col for col, _ in place.values())
    height = 1 + max(row for _, row in place.values())
    longest = {box.name: max(len(text) for text in box.fields) for box in picture.boxes}
    column_inches = max(2.2, 0.14 * max(longest.values()) + 0.6)  # room for the widest label
    figure, axes = plt.subplots(figsize=(column_inches * width + 1, 1.1 * height + 1))
    axes.set_axis_off()
    axes.set(xlim=(-0.6, width - 0.4), ylim=(-height + 0.4, 0.6))

    def position(name: str) -> tuple[float, float]:
        col, row = place[name]
        return col, -row

    for box in picture.boxes:
        if box.ellipse:
            style = {"boxstyle": "round", "fc": "lightyellow"}
        else:
            style = {"boxstyle": "square", "fc": "white", "ls": "--" if box.dashed else "-"}
        axes.text(*position(box.name), "\n".join(box.fields), ha="center", va="center", bbox=style)
    for (start, end, label), bend in zip(
        picture.arrows, arrow_bends(picture.arrows, place), strict=True
    ):
        axes.annotate(
            "",
            xy=position(end),
            xytext=position(start),
            arrowprops={
                "arrowstyle": "->",
                "shrinkA": 8 + 3.6 * longest[start],  # points: half a label's width
                "shrinkB": 8 + 3.6 * longest[end],
                "connectionstyle": f"arc3,rad={bend}",
            },
        )
        if label is not None:
            # the middle of matplotlib's arc3 curve, a quadratic Bezier curve whose control
            # point lies `bend` times the chord's length off the chord (in display units)
            (x0, y0), (x1, y1) = axes.transData.transform([position(start), position(end)])
            middle = ((x0 + x1 + bend * (y1 - y0)) / 2, (y0 + y1 - bend * (x1 - x0)) / 2)
            x, y = axes.transData.inverted().transform(middle)
            axes.text(x, y + 0.05, label, ha="center", va="bottom", fontsize=8, color="dimgray")
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)
