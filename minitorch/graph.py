"""Pictures of the computation graph behind a `Scalar`.

`to_dot(y)` writes the graph that `y.backward()` walks as Graphviz DOT text:
one box per Scalar (its name if it has one, its value and its gradient) and
one ellipse per operation, with arrows from the inputs to the operation and
from the operation to its result. Nodes are numbered in the order the
Scalars were created, so the text is the same on every run:

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

`draw(y, "graph.png")` renders the same graph to an image: with Graphviz's
`dot` program when it is installed, otherwise with matplotlib and a simple
layered layout.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any


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


def _dot_escape(text: str) -> str:
    """Backslash the characters that mean something in a DOT record label."""
    for char in '\\{}|<>"':
        text = text.replace(char, "\\" + char)
    return text


def to_dot(root: Any) -> str:
    """The graph of `root` as Graphviz DOT text (see the module docstring)."""
    nodes = graph_nodes(root)
    names = node_names(nodes)
    lines = ["digraph {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
    edges = []
    for node in nodes:
        name = names[node.unique_id]
        style = "style=dashed, " if node.is_constant() else ""
        label = " | ".join(_dot_escape(field) for field in scalar_fields(node))
        lines.append(f'  {name} [shape=record, {style}label="{{{label}}}"];')
        if node.function is not None:
            lines.append(f'  {name}_op [shape=ellipse, label="{node.function.__name__}"];')
            edges += [f"  {names[x.unique_id]} -> {name}_op;" for x in node.inputs]
            edges.append(f"  {name}_op -> {name};")
    return "\n".join([*lines, *edges, "}"])


def draw(root: Any, path: str | Path) -> Path:
    """Render the graph of `root` to an image file (its format from the suffix of `path`).

    Uses Graphviz's `dot` when it is on the PATH, matplotlib otherwise.
    """
    path = Path(path)
    dot = shutil.which("dot")
    if dot is not None:
        fmt = path.suffix.lstrip(".") or "png"
        subprocess.run(
            [dot, f"-T{fmt}", "-o", str(path)], input=to_dot(root), text=True, check=True
        )
    else:
        _draw_with_matplotlib(root, path)
    return path


def layout(nodes: list[Any], names: dict[int, str]) -> dict[str, tuple[int, int]]:
    """(column, row) of every box and ellipse: leaves in column 0, an operation one column
    right of its rightmost input, its result one column right of it."""
    column: dict[str, int] = {}
    for node in nodes:  # creation order: inputs come before their results
        name = names[node.unique_id]
        if node.function is None:
            column[name] = 0
        else:
            column[f"{name}_op"] = 1 + max(column[names[x.unique_id]] for x in node.inputs)
            column[name] = column[f"{name}_op"] + 1
    rows: dict[int, int] = {}
    place = {}
    for name, col in column.items():
        place[name] = (col, rows.get(col, 0))
        rows[col] = rows.get(col, 0) + 1
    return place


def _draw_with_matplotlib(root: Any, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nodes = graph_nodes(root)
    names = node_names(nodes)
    place = layout(nodes, names)
    width = 1 + max(col for col, _ in place.values())
    height = 1 + max(row for _, row in place.values())
    figure, axes = plt.subplots(figsize=(2.2 * width + 1, 1.1 * height + 1))
    axes.set_axis_off()
    axes.set(xlim=(-0.6, width - 0.4), ylim=(-height + 0.4, 0.6))

    def position(name: str) -> tuple[float, float]:
        col, row = place[name]
        return col, -row

    for node in nodes:
        name = names[node.unique_id]
        box = {"boxstyle": "square", "fc": "white", "ls": "--" if node.is_constant() else "-"}
        label = "\n".join(scalar_fields(node))
        axes.text(*position(name), label, ha="center", va="center", bbox=box)
        if node.function is not None:
            op = f"{name}_op"
            axes.text(
                *position(op),
                node.function.__name__,
                ha="center",
                va="center",
                bbox={"boxstyle": "round", "fc": "lightyellow"},
            )
            for start, end in [*((names[x.unique_id], op) for x in node.inputs), (op, name)]:
                axes.annotate(
                    "",
                    xy=position(end),
                    xytext=position(start),
                    arrowprops={"arrowstyle": "->", "shrinkA": 22, "shrinkB": 22},
                )
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)
