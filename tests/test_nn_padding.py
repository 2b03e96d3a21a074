"""`nn.functional.pad` in its four modes and the padding layers, against PyTorch and NumPy.

Values, dtypes, node names and gradients (float64 and float32, odd shapes, crops by negative
amounts, transposed inputs) and the errors are torch's, recorded in
tests/data/test_nn_padding.json (scripts/record_torch_answers.py); gradients pass central
differences, and values match NumPy's `np.pad`. PyTorch pads circularly by slice copies, so its
node is `CopySlices`; ours is `CircularPadBackward0`, asserted below, so the circular cases leave
node names out.
"""

import numpy as np
import pytest
from comparisons import ComparedCases
from helpers import floats

import minitorch
import minitorch.nn.functional as F

SHAPES = {1: (2, 3, 5), 2: (2, 4, 5), 3: (2, 3, 4, 5)}
PADS = {
    1: [(2, 3), (-1, 2), (3, -2)],
    2: [(1, 2, 3, 0), (-2, 1, 2, -1)],
    3: [(1, 0, 2, 1, 1, 2), (-1, 2, 0, -1, 2, 0)],
}
CASES = {}
for mode in ("constant", "reflect", "replicate", "circular"):
    for dims, pads in PADS.items():
        for pad in pads:
            for dtype in ("float64", "float32"):
                options = {"names": mode != "circular", "permuted": True}
                if dtype == "float32":
                    options["central"] = False  # float64 checks the same gradient
                CASES[f"{mode} {pad} {dtype}"] = (
                    lambda lib, x, pad=pad, mode=mode: lib.nn.functional.pad(x, pad, mode),
                    [floats(SHAPES[dims], len(CASES)).astype(dtype)],
                    options,
                )
CASES["reflect unbatched"] = (
    lambda lib, x: lib.nn.functional.pad(x, (2, 1), mode="reflect"),
    [floats((3, 4), 1)],
    {},
)
CASES["replicate of integers"] = (
    lambda lib, x: lib.nn.functional.pad(x.long(), (2, 1, 0, 3), mode="replicate"),
    [floats((2, 3, 4), 2)],
    {"grad": False},
)
CASES["circular of booleans"] = (
    lambda lib, x: lib.nn.functional.pad(x > 0, (1, 2), mode="circular"),
    [floats((2, 3), 3)],
    {"grad": False},
)
CASES["reflect value 0"] = (
    lambda lib, x: lib.nn.functional.pad(x, (1, 1), mode="reflect", value=0.0),
    [floats((2, 3), 4)],
    {},
)
CASES["constant value"] = (
    lambda lib, x: lib.nn.functional.pad(x, [1, 2], "constant", 2.5),
    [floats((2, 3), 5)],
    {},
)
for name, args in [
    ("ReflectionPad1d", (2,)),
    ("ReflectionPad2d", ((1, 0, 2, 1),)),
    ("ReflectionPad3d", (1,)),
    ("ReplicationPad1d", ((3, 1),)),
    ("ReplicationPad2d", (2,)),
    ("ReplicationPad3d", ((1, 0, 2, 1, 0, 1),)),
    ("ZeroPad1d", (2,)),
    ("ZeroPad2d", ((1, 0, 2, 1),)),
    ("ZeroPad3d", (1,)),
    ("ConstantPad1d", (2, -1.5)),
    ("ConstantPad2d", ((1, 0, 2, 1), 3.0)),
    ("ConstantPad3d", (1, 0.5)),
    ("CircularPad1d", (2,)),
    ("CircularPad2d", ((1, 0, 2, 1),)),
    ("CircularPad3d", (1,)),
]:
    dims = int(name[-2])
    CASES[f"layer {name} {args}"] = (
        lambda lib, x, name=name, args=args: getattr(lib.nn, name)(*args)(x),
        [floats(SHAPES[dims], len(CASES))],
        {"names": not name.startswith("Circular")},
    )
    CASES[f"repr {name} {args}"] = (
        lambda lib, name=name, args=args: repr(getattr(lib.nn, name)(*args)),
        [],
        {},
    )


def pad_error(shape, pad, mode, dtype="float32", **kwargs):
    return lambda lib: lib.nn.functional.pad(
        lib.zeros(shape, dtype=getattr(lib, dtype)), pad, mode, **kwargs
    )


ERRORS = {
    "unknown mode": pad_error((3, 4), (1,), "foo"),
    "odd length": pad_error((3, 4), (1,), "reflect"),
    "too long": pad_error((3, 4, 5), (1,) * 8, "replicate"),
    "value in reflect": pad_error((3, 4), (1, 1), "reflect", value=2.0),
    "1-D input": pad_error((4,), (1, 1), "reflect"),
    "4-D input of a 1-D pad": pad_error((2, 3, 4, 5), (1, 1), "circular"),
    "empty plane": pad_error((2, 0, 4), (1, 1), "reflect"),
    "empty unbatched": pad_error((0, 4), (1, 1), "replicate"),
    "empty 3-D": pad_error((3, 0, 5, 6), (1, 1, 1, 1, 1, 1), "replicate"),
    "reflect too wide": pad_error((1, 3, 4), (4, 0), "reflect"),
    "reflect too high": pad_error((3, 4, 5), (1, 1, 4, 1), "reflect"),
    "reflect too deep": pad_error((3, 4, 5, 6), (1, 1, 1, 1, 4, 4), "reflect"),
    "reflect crops all": pad_error((3, 4), (-4, 0), "reflect"),
    "replicate crops all": pad_error((3, 4), (-3, -2), "replicate"),
    "replicate crops all 3-D": pad_error((3, 4, 5, 6), (-7, 0, -7, 0, -7, 0), "replicate"),
    "replicate negative 3-D": pad_error((3, 4, 5, 6), (0, 0, -7, 0, 0, 0), "replicate"),
    "reflect of booleans": pad_error((3, 5, 6), (1, 1, 1, 1), "reflect", "bool"),
    "replicate of booleans": pad_error((3, 5), (1, 1), "replicate", "bool"),
    "circular wraps twice": pad_error((3, 4), (5, 0), "circular"),
    "circular of an empty dim": pad_error((2, 3, 0), (1, 1), "circular"),
    "circular crops too much": pad_error((3, 4), (-3, -2), "circular"),
    "circular crops in 3-D": pad_error((3, 4, 5, 6), (0, 0, -6, 0, 7, 0), "circular"),
    "CircularPad2d of 2-D": lambda lib: lib.nn.CircularPad2d(1)(lib.zeros(3, 4)),
    "constant crops too much": pad_error((3, 4), (-3, -2), "constant"),
}  # fmt: skip
RECORDED = ComparedCases(__file__, CASES, ERRORS)
torch_answers = RECORDED.torch_answers


@pytest.mark.parametrize("key", sorted(CASES) + sorted(ERRORS))
def test_padding_like_torch(key):
    """Values, dtypes, node names and gradients (or the error) as torch gave them."""
    (RECORDED.check if key in CASES else RECORDED.check_error)(key)


NUMPY_MODES = {
    "constant": "constant",
    "reflect": "reflect",
    "replicate": "edge",
    "circular": "wrap",
}


@pytest.mark.parametrize("mode", sorted(NUMPY_MODES))
def test_positive_padding_matches_numpy(mode):
    x = floats((2, 3, 4, 5), 6)
    widths = [(0, 0), (1, 2), (3, 0), (2, 1)]
    pad = (2, 1, 3, 0, 1, 2)
    ours = F.pad(minitorch.tensor(x), pad, mode).numpy()
    np.testing.assert_array_equal(ours, np.pad(x, widths, mode=NUMPY_MODES[mode]))


def test_circular_crops_then_wraps_what_it_keeps():
    # by hand: (2, -1) keeps [0, 1, 2, 3] and wraps it, (-2, 3) keeps [2, 3, 4]
    x = minitorch.arange(5.0).view(1, 5)
    assert F.pad(x, (2, -1), mode="circular").tolist() == [[2.0, 3.0, 0.0, 1.0, 2.0, 3.0]]
    assert F.pad(x, (-2, 3), mode="circular").tolist() == [[2.0, 3.0, 4.0, 2.0, 3.0, 4.0]]


def test_padding_node_names():
    x = minitorch.ones(1, 2, 3, requires_grad=True)
    assert F.pad(x, (1, 1), "circular").grad_fn.name() == "CircularPadBackward0"
    assert F.pad(x, (1, 1, 1, 1), "reflect").grad_fn.name() == "ReflectionPad2DBackward0"


def test_reflect_gradient_adds_up_the_mirrored_copies():
    # by hand: [a, b, c] reflected by 2 each side is [c, b, a, b, c, b, a]
    x = minitorch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    F.pad(x, (2, 2), "reflect").sum().backward()
    assert x.grad.tolist() == [[2.0, 3.0, 2.0]]
