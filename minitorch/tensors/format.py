"""How a tensor prints: the text of ``repr(tensor)`` and ``str(tensor)``, as PyTorch writes it.

The rules, in the order the text is built:

1. **Summarising.** A tensor with more than ``threshold`` elements (1000) is summarised: along
   every dimension longer than ``2 * edgeitems`` only the first and last ``edgeitems`` (3) entries
   are shown, with ``...`` standing for the rest.
2. **One format for all elements.** Every shown element is printed the same way and right-aligned
   to one common width. Booleans and integers print as Python prints them. For floating point
   numbers, only the finite nonzero shown values $v$ decide the style:

   - *scientific* (``1.0000e-05``) when $\\max|v| / \\min|v| > 1000$, $\\max|v| > 10^8$ or
     $\\min|v| < 10^{-4}$ (``sci_mode`` forces it on or off);
   - otherwise *integer* (``3.``) when every $v$ is a whole number;
   - otherwise *fixed* with ``precision`` (4) decimals (``0.1000``).

   The width is that of the widest finite nonzero value; ``nan``, ``inf`` and zeros do not
   count (so ``tensor([-0., 1.])`` is not aligned). With no finite nonzero value at all the
   style is integer and the width 1.
3. **Layout.** Rows are ``[a, b, c]``; a row wraps once its elements would pass ``linewidth``
   (80), each continuation line indented under the first element. Sub-tensors of an N-d tensor
   are separated by a comma and $N - 1$ newlines and indented one column per level, so the
   brackets line up under each other.
4. **Suffixes** follow the elements in this order: ``device=...`` (not for the CPU),
   ``size=...`` (for empty tensors that are not 1-d, and for any tensor while ``edgeitems`` is
   0), ``dtype=...`` (see below), then
   ``grad_fn=<...>`` or else ``requires_grad=True``. A suffix that would pass ``linewidth``
   starts a new line indented under the first bracket. Lines break exactly where PyTorch breaks
   them, so ``dtype=minitorch.float64`` counts as long as PyTorch's ``dtype=torch.float64``.

The dtype is left out when it can be told from the elements: for the default floating dtype,
``int64`` and ``bool``. An empty tensor has no elements to tell from, so it names every dtype
except the default floating one.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "set_printoptions"]


@dataclass
class PrintOptions:
    """The settings that `set_printoptions` changes (PyTorch's defaults)."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


# The named presets of `set_printoptions(profile=...)`; they leave `sci_mode` to its own argument.
_PROFILES = {
    "default": PrintOptions(),
    "short": PrintOptions(precision=2, edgeitems=2),
    "full": PrintOptions(threshold=math.inf),
}

_options = PrintOptions()

_PREFIX = "tensor("

# Dtypes a non-empty tensor never names, besides the default floating dtype.
_DTYPES_SHOWN_BY_ELEMENTS = ("int64", "bool")


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change how tensors print, like `torch.set_printoptions`.

    Args:
        precision: digits after the decimal point (default 4).
        threshold: more elements than this are summarised with ``...`` (default 1000).
        edgeitems: entries kept at each end of a summarised dimension (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"`` presets, applied before the other
            arguments.
        sci_mode: True or False forces scientific notation on or off; None (the default) lets
            the values decide. As in PyTorch, leaving it out resets it to None.

    >>> set_printoptions(precision=2)
    >>> format_tensor(np.array([1.12345]), dtype_name="float32", default_dtype=True)
    'tensor([1.12])'
    >>> set_printoptions(profile="default")
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(
                f"set_printoptions: unknown profile {profile!r}, expected one of "
                f"{', '.join(map(repr, _PROFILES))}"
            )
        for name, value in asdict(_PROFILES[profile]).items():
            setattr(_options, name, value)
    if precision is not None:
        _options.precision = precision
    if threshold is not None:
        _options.threshold = threshold
    if edgeitems is not None:
        _options.edgeitems = edgeitems
    if linewidth is not None:
        _options.linewidth = linewidth
    _options.sci_mode = sci_mode


def get_printoptions() -> dict[str, int | float | bool | None]:
    """The current print options, as keyword arguments for `set_printoptions`."""
    return asdict(_options)


def format_tensor(
    values: np.ndarray,
    *,
    dtype_name: str,
    default_dtype: bool,
    device: str | None = None,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    tangent: str | None = None,
) -> str:
    """The text PyTorch prints for a tensor, with ``minitorch.`` in place of ``torch.``.

    Args:
        values: the tensor's elements in its shape (NumPy bool, integer or floating dtype).
        dtype_name: the tensor's dtype without module, e.g. ``"float64"``.
        default_dtype: whether that dtype is the default floating dtype (``float32`` unless
            changed), which is never named.
        device: None for the CPU, else the device as printed, e.g. ``"cuda:0"``.
        requires_grad: whether the tensor is a leaf that requires grad.
        grad_fn_name: the class name of the tensor's ``grad_fn``, e.g. ``"AddBackward0"``.
        tangent: the printed tangent of a dual tensor (forward-mode AD), if it has one.

    >>> matrix = np.array([[1.0, 2.0], [3.0, 4.5]])
    >>> print(format_tensor(matrix, dtype_name="float64", default_dtype=False, requires_grad=True))
    tensor([[1.0000, 2.0000],
            [3.0000, 4.5000]], dtype=minitorch.float64, requires_grad=True)
    """
    values = np.asarray(values)
    if values.dtype.kind not in "biuf":
        raise TypeError(
            f"format_tensor: cannot print elements of NumPy dtype {values.dtype}; "
            "expected a bool, integer or floating dtype"
        )
    options = _options
    indent = len(_PREFIX)
    suffixes = []
    if device is not None:
        suffixes.append(f"device='{device}'")
    if values.size == 0:
        body = "[]"
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if not default_dtype:
            suffixes.append(f"dtype=minitorch.{dtype_name}")
    else:
        if not options.edgeitems:  # nothing of a summarised tensor shows, so say its size
            suffixes.append(f"size={tuple(values.shape)}")
        if not (default_dtype or dtype_name in _DTYPES_SHOWN_BY_ELEMENTS):
            suffixes.append(f"dtype=minitorch.{dtype_name}")
        body = _format_elements(values, indent, options)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    return _append_suffixes(_PREFIX + body, suffixes, indent, options.linewidth)


@dataclass(frozen=True)
class _ElementFormat:
    """How every element of one tensor prints: a style and the common width."""

    style: str  # "plain" (bools, integers), "integer", "fixed" or "scientific"
    width: int
    precision: int

    def __call__(self, value: bool | int | float) -> str:
        if self.style == "scientific":
            text = f"{value:.{self.precision}e}"
        elif self.style == "fixed":
            text = f"{value:.{self.precision}f}"
        elif self.style == "integer":
            # The trailing "." tells a whole float from an integer; nan and inf need no hint.
            text = f"{value:.0f}" + ("." if math.isfinite(value) else "")
        else:
            text = str(value)
        return text.rjust(self.width)


def _choose_format(shown: np.ndarray, options: PrintOptions) -> _ElementFormat:
    """Pick the style and width for the elements that will be shown (rule 2 of the module)."""
    if shown.dtype.kind != "f":
        texts = [str(v) for v in shown.ravel().tolist()]
        return _ElementFormat("plain", max(map(len, texts), default=1), 0)
    flat = shown.ravel()
    decisive = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
    if decisive.size == 0:
        return _ElementFormat("integer", 1, options.precision)
    magnitudes = np.abs(decisive)
    smallest, largest = magnitudes.min(), magnitudes.max()
    if options.sci_mode is None:
        with np.errstate(over="ignore"):  # a ratio past the float range is inf: still > 1000
            spread = largest / smallest
        scientific = bool(spread > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
    else:
        scientific = options.sci_mode
    p = options.precision
    numbers = decisive.tolist()
    if scientific:
        return _ElementFormat("scientific", max(len(f"{v:.{p}e}") for v in numbers), p)
    if np.all(decisive == np.ceil(decisive)):
        # Each whole number gets one more column, for its trailing ".".
        return _ElementFormat("integer", max(len(f"{v:.0f}") for v in numbers) + 1, p)
    return _ElementFormat("fixed", max(len(f"{v:.{p}f}") for v in numbers), p)


def _edge_values(values: np.ndarray, edgeitems: int) -> np.ndarray:
    """The elements a summarised tensor shows: ``edgeitems`` at each end of each long axis."""
    for axis, size in enumerate(values.shape):
        if size > 2 * edgeitems:  # slices are views: a huge expanded tensor is never copied
            before = (slice(None),) * axis
            ends = (
                values[(*before, slice(0, edgeitems))],
                values[(*before, slice(size - edgeitems, None))],
            )
            values = np.concatenate(ends, axis=axis)
    return values


def _format_elements(values: np.ndarray, indent: int, options: PrintOptions) -> str:
    """The bracketed elements of a non-empty tensor whose text starts at column ``indent``."""
    summarize = values.size > options.threshold
    shown = _edge_values(values, options.edgeitems) if summarize else values
    element_format = _choose_format(shown, options)
    return _format_block(values, indent, summarize, element_format, options)


def _format_block(
    values: np.ndarray,
    indent: int,
    summarize: bool,
    element_format: _ElementFormat,
    options: PrintOptions,
) -> str:
    """A (sub-)tensor: a scalar, a row, or sub-blocks stacked one column further in."""
    if values.ndim == 0:
        return element_format(values.item())
    if values.ndim == 1:
        return _format_row(values, indent, summarize, element_format, options)

    def sub_block(sub: np.ndarray) -> str:
        return _format_block(sub, indent + 1, summarize, element_format, options)

    edge = options.edgeitems
    if summarize and len(values) > 2 * edge:
        head, tail = values[:edge], values[len(values) - edge :]
        parts = [*map(sub_block, head), "...", *map(sub_block, tail)]
    else:
        parts = [sub_block(sub) for sub in values]
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _format_row(
    row: np.ndarray,
    indent: int,
    summarize: bool,
    element_format: _ElementFormat,
    options: PrintOptions,
) -> str:
    """A 1-d block, wrapped so that each line holds as many elements as fit in ``linewidth``."""
    edge = options.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and len(row) > 2 * edge:
        items = [element_format(v) for v in row[:edge].tolist()]
        items.append(" ...")
        items += [element_format(v) for v in row[len(row) - edge :].tolist()]
    else:
        items = [element_format(v) for v in row.tolist()]
    # Each element takes its width plus the ", " after it.
    per_line = max(1, math.floor((options.linewidth - indent) / (element_format.width + 2)))
    lines = [", ".join(items[start : start + per_line]) for start in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _append_suffixes(text: str, suffixes: list[str], indent: int, linewidth: int) -> str:
    """Close ``tensor(...)``, adding ``, suffix`` on the last line or on a new one if too long."""
    # PyTorch counts the elements' last line as two characters longer than it is (room for the
    # closing bracket and one more), but counts a line that starts with a suffix exactly.
    line_length = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        # Break lines where PyTorch does: measure the dtype as PyTorch spells it ("torch.").
        length = len(suffix.replace("dtype=minitorch.", "dtype=torch."))
        if line_length + length + 2 > linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            line_length = indent + length
        else:
            pieces.append(", " + suffix)
            line_length += length + 2
    pieces.append(")")
    return "".join(pieces)
