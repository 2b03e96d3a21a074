"""Tests of the tensor text format (minitorch/tensor_format.py).

The hand-written expectations are PyTorch's printed output, as documented or as observed with
torch 2.x (with ``minitorch.`` for ``torch.``). Where torch is installed, property tests also
compare `format_tensor` with ``repr`` of the same values as a torch tensor.
"""

import doctest
import math

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitorch
from minitorch.tensors import format as tensor_format
from minitorch.tensors.format import format_tensor, get_printoptions, set_printoptions

nan, inf = math.nan, math.inf


@pytest.fixture(autouse=True)
def restore_print_options():
    """Every test starts with the default options and leaves them so, in minitorch and torch."""
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")
    try:
        import torch
    except ImportError:
        return
    torch.set_printoptions(profile="default")


def fmt(values, **suffixes) -> str:
    """`format_tensor` of a CPU tensor whose dtype is that of ``values``."""
    values = np.asarray(values)
    return format_tensor(
        values,
        dtype_name=str(values.dtype),
        default_dtype=values.dtype == np.float32,
        **suffixes,
    )


def f32(values) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def assert_same_text(got: str, expected: str, what: str = "") -> None:
    assert got == expected, f"{what}\nexpected:\n{expected}\ngot:\n{got}"


# ---------------------------------------------------------------------------------------------
# Hand-written expectations
# ---------------------------------------------------------------------------------------------

# What introductions to PyTorch print for their first tensors
INTRO_CASES = [
    # x * y for x = [1, 2, 3], y = [4, 5, 6]; the column width is that of "10" and "18".
    pytest.param(np.array([4, 10, 18]), {}, "tensor([ 4, 10, 18])", id="intro-elementwise-product"),
    pytest.param(
        np.array([[1, 2], [3, 4]]), {}, "tensor([[1, 2],\n        [3, 4]])", id="intro-x_data"
    ),
    # [[1, 2], [3, 4]] @ [[5, 6], [7, 8]]
    pytest.param(
        np.array([[19, 22], [43, 50]]),
        {},
        "tensor([[19, 22],\n        [43, 50]])",
        id="intro-matmul",
    ),
    pytest.param(
        f32([[1.0], [2.0], [3.0], [4.0]]),
        {},
        "tensor([[1.],\n        [2.],\n        [3.],\n        [4.]])",
        id="intro-column-of-whole-floats",
    ),
    pytest.param(f32([1, 1, 1, 1]), {}, "tensor([1., 1., 1., 1.])", id="intro-first-row-of-ones"),
    # y = x + 2 for x = ones(2, 2, requires_grad=True)
    pytest.param(
        f32([[3, 3], [3, 3]]),
        {"grad_fn_name": "AddBackward0"},
        "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)",
        id="intro-grad_fn",
    ),
    # x.grad of mean(3 (x + 2)^2) at x = 1: 6 * 3 / 4 = 4.5 (the PyTorch autograd tutorial)
    pytest.param(
        f32([[4.5, 4.5], [4.5, 4.5]]),
        {},
        "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])",
        id="intro-gradient",
    ),
]

SCALAR_CASES = [
    pytest.param(f32(3.0), "tensor(3.)", id="whole-float"),
    pytest.param(f32(2.5), "tensor(2.5000)", id="float"),
    pytest.param(np.array(True), "tensor(True)", id="bool"),
    pytest.param(np.array(-2), "tensor(-2)", id="int"),
    pytest.param(f32(nan), "tensor(nan)", id="nan"),
]

FLOAT_CASES = [
    # torch.tensor docs: all positive, so no sign column.
    pytest.param(
        f32([[0.1, 1.2], [2.2, 3.1], [4.9, 5.2]]),
        "tensor([[0.1000, 1.2000],\n        [2.2000, 3.1000],\n        [4.9000, 5.2000]])",
        id="precision-4",
    ),
    pytest.param(f32([-1.5, 2.25]), "tensor([-1.5000,  2.2500])", id="sign-column"),
    pytest.param(f32([1e28, 1e-28]), "tensor([1.0000e+28, 1.0000e-28])", id="sci-wide-range"),
    pytest.param(f32([1e-5]), "tensor([1.0000e-05])", id="sci-tiny"),
    pytest.param(f32([123456789.0]), "tensor([1.2346e+08])", id="sci-huge"),
    # max / min = 1001 > 1000 switches to scientific; exactly 1000 does not.
    pytest.param(f32([1, 1001]), "tensor([1.0000e+00, 1.0010e+03])", id="sci-ratio-above-1000"),
    pytest.param(f32([1, 1000]), "tensor([   1., 1000.])", id="ratio-1000-whole"),
    pytest.param(f32([nan, inf, -inf]), "tensor([nan, inf, -inf])", id="only-nonfinite"),
    # nan and inf are padded to the width of 1.5000.
    pytest.param(f32([1.5, nan, inf]), "tensor([1.5000,    nan,    inf])", id="nonfinite-padded"),
    pytest.param(f32([-0.0]), "tensor([-0.])", id="negative-zero"),
    # Zeros do not count for the width (that of "1."), so "-0." sticks out.
    pytest.param(f32([-0.0, 1.0]), "tensor([-0., 1.])", id="negative-zero-unaligned"),
    pytest.param(f32([0.0, 0.0]), "tensor([0., 0.])", id="all-zero"),
    pytest.param(np.array([True, False]), "tensor([ True, False])", id="bools"),
    pytest.param(np.array([1, -10, 100]), "tensor([  1, -10, 100])", id="int-width"),
    pytest.param(
        np.arange(8).reshape(2, 2, 2),
        "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])",
        id="3d-blank-line-between-blocks",
    ),
]

# torch.arange(30): (80 - len("tensor(")) // len(" 0, ") = 18 elements per line.
ARANGE_30 = (
    "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
    "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])"
)
ZEROS_100_BY_100 = (
    "tensor([[0., 0., 0.,  ..., 0., 0., 0.],\n"
    "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
    "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
    "        ...,\n"
    "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
    "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
    "        [0., 0., 0.,  ..., 0., 0., 0.]])"
)
LAYOUT_CASES = [
    pytest.param(np.arange(30), ARANGE_30, id="wrap-at-80"),
    pytest.param(
        np.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])", id="summarize-1d"
    ),
    pytest.param(np.zeros((100, 100), np.float32), ZEROS_100_BY_100, id="summarize-2d"),
]

SUFFIX_CASES = [
    pytest.param(np.zeros(0, np.float32), {}, "tensor([])", id="empty"),
    pytest.param(np.zeros((2, 0), np.float32), {}, "tensor([], size=(2, 0))", id="empty-2d"),
    pytest.param(np.zeros(0, np.int64), {}, "tensor([], dtype=minitorch.int64)", id="empty-int"),
    pytest.param(np.zeros(0, bool), {}, "tensor([], dtype=minitorch.bool)", id="empty-bool"),
    pytest.param(
        np.zeros((0, 3)),
        {"requires_grad": True},
        "tensor([], size=(0, 3), dtype=minitorch.float64, requires_grad=True)",
        id="empty-all-suffixes",
    ),
    pytest.param(np.array([1.0, 2.0]), {}, "tensor([1., 2.], dtype=minitorch.float64)", id="f64"),
    pytest.param(
        f32([1, 1]), {"requires_grad": True}, "tensor([1., 1.], requires_grad=True)", id="leaf"
    ),
    # grad_fn wins over requires_grad, as a non-leaf never prints requires_grad=True.
    pytest.param(
        f32([1, 1]),
        {"requires_grad": True, "grad_fn_name": "MulBackward0"},
        "tensor([1., 1.], grad_fn=<MulBackward0>)",
        id="grad_fn-over-requires_grad",
    ),
    # PyTorch's test/expect/TestTorch.test_print-device.expect
    pytest.param(np.array([123]), {"device": "cuda:0"}, "tensor([123], device='cuda:0')", id="dev"),
    # PyTorch keeps a suffix on the line while len(line) + len(suffix) <= linewidth - 4, with
    # line = "tensor([...]". ones(12): 55 + 18 = 73 stays; ones(13): 59 + 18 = 77 breaks.
    pytest.param(
        np.ones(12, np.float32),
        {"requires_grad": True},
        "tensor([1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.], requires_grad=True)",
        id="suffix-fits",
    ),
    pytest.param(
        np.ones(13, np.float32),
        {"requires_grad": True},
        "tensor([1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.],\n       requires_grad=True)",
        id="suffix-breaks",
    ),
    # 57 + len("dtype=torch.float64") = 76 fits in torch; the line breaks where torch's does,
    # although "minitorch." is four characters longer.
    pytest.param(
        np.full(10, 10.0),
        {},
        "tensor([10., 10., 10., 10., 10., 10., 10., 10., 10., 10.], dtype=minitorch.float64)",
        id="suffix-breaks-where-torch-does",
    ),
    # ones(2, 18, dtype=float64, requires_grad=True) * 1: the suffixes do not fit after "]]"
    # and go on a new line indented under the first bracket.
    pytest.param(
        np.ones((2, 18)),
        {"grad_fn_name": "MulBackward0"},
        "tensor([[1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.],\n"
        "        [1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.]],\n"
        "       dtype=minitorch.float64, grad_fn=<MulBackward0>)",
        id="suffixes-on-new-line",
    ),
]


@pytest.mark.parametrize("values, suffixes, expected", INTRO_CASES)
def test_intro_outputs(values, suffixes, expected):
    assert_same_text(fmt(values, **suffixes), expected)


@pytest.mark.parametrize("values, expected", SCALAR_CASES)
def test_zero_dim(values, expected):
    assert_same_text(fmt(values), expected)


@pytest.mark.parametrize("values, expected", FLOAT_CASES)
def test_element_styles(values, expected):
    assert_same_text(fmt(values), expected)


@pytest.mark.parametrize("values, expected", LAYOUT_CASES)
def test_wrapping_and_summarizing(values, expected):
    assert_same_text(fmt(values), expected)


@pytest.mark.parametrize("values, suffixes, expected", SUFFIX_CASES)
def test_suffixes(values, suffixes, expected):
    assert_same_text(fmt(values, **suffixes), expected)


def test_dtype_named_when_not_the_default_float():
    # After torch.set_default_dtype(torch.float64), float32 tensors name their dtype.
    got = format_tensor(f32([1.5]), dtype_name="float32", default_dtype=False)
    assert_same_text(got, "tensor([1.5000], dtype=minitorch.float32)")


def test_rejects_non_numeric_values():
    with pytest.raises(TypeError, match="complex128"):
        fmt(np.array([1 + 2j]))


def test_docstring_examples():
    failures, tried = doctest.testmod(tensor_format, globs={"np": np, **vars(tensor_format)})
    assert tried > 0, "no docstring examples found"
    assert failures == 0, f"{failures} of {tried} docstring examples failed"


# ---------------------------------------------------------------------------------------------
# Print options
# ---------------------------------------------------------------------------------------------

DEFAULT_OPTIONS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}


def test_default_print_options():
    assert get_printoptions() == {**DEFAULT_OPTIONS, "sci_mode": None}


def test_set_printoptions_is_exported():
    assert minitorch.set_printoptions is set_printoptions
    assert "set_printoptions" in minitorch.__all__


def test_set_printoptions_docs_examples():
    # The examples of torch.set_printoptions' docstring (with the " ..." element torch prints).
    set_printoptions(precision=2)
    assert_same_text(fmt(f32([1.12345])), "tensor([1.12])")
    set_printoptions(threshold=5)
    assert_same_text(fmt(np.arange(10)), "tensor([0, 1, 2,  ..., 7, 8, 9])")
    set_printoptions(profile="default")
    assert_same_text(fmt(f32([1.12345])), "tensor([1.1235])")
    assert_same_text(fmt(np.arange(10)), "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])")


@pytest.mark.parametrize(
    "profile, expected",
    [
        ("short", {**DEFAULT_OPTIONS, "precision": 2, "edgeitems": 2}),
        ("full", {**DEFAULT_OPTIONS, "threshold": inf}),
        ("default", DEFAULT_OPTIONS),
    ],
)
def test_profiles(profile, expected):
    set_printoptions(precision=7, linewidth=20, edgeitems=1, threshold=3)
    set_printoptions(profile=profile)
    assert get_printoptions() == {**expected, "sci_mode": None}


def test_unknown_profile_is_an_error():
    with pytest.raises(ValueError, match="unknown profile 'ful'"):
        set_printoptions(profile="ful")


def test_sci_mode_forced():
    set_printoptions(sci_mode=False)
    assert_same_text(fmt(f32([1e-5, 1.0])), "tensor([0.0000, 1.0000])")
    set_printoptions(sci_mode=True)
    assert_same_text(fmt(f32([1.0, 2.0])), "tensor([1.0000e+00, 2.0000e+00])")
    # Without a finite nonzero value there is nothing to write in scientific notation.
    assert_same_text(fmt(f32([0.0, -0.0])), "tensor([0., -0.])")


def test_sci_mode_resets_when_left_out():
    # torch.set_printoptions sets sci_mode to its argument, None when not given.
    set_printoptions(sci_mode=True)
    set_printoptions(precision=2)
    assert get_printoptions()["sci_mode"] is None


def test_summarize_above_threshold_only():
    set_printoptions(threshold=5, edgeitems=2)
    assert_same_text(fmt(np.arange(5)), "tensor([0, 1, 2, 3, 4])")
    assert_same_text(fmt(np.arange(6)), "tensor([0, 1,  ..., 4, 5])")


def test_linewidth():
    # (20 - len("tensor(")) // len(" 0, ") = 3 elements per line.
    set_printoptions(linewidth=20)
    expected = "tensor([ 0,  1,  2,\n         3,  4,  5,\n         6,  7,  8,\n         9, 10, 11])"
    assert_same_text(fmt(np.arange(12)), expected)
    # At least one element per line, however narrow.
    set_printoptions(linewidth=10)
    assert_same_text(fmt(np.arange(3)), "tensor([0,\n        1,\n        2])")


def test_suffix_line_after_a_break():
    # After a break PyTorch counts the new line exactly: 7 + len("dtype=torch.float64") = 26,
    # then 26 + 2 + len("requires_grad=True") = 46 <= 46, so requires_grad stays on that line
    # (with the two extra characters counted on the elements' line it would not).
    set_printoptions(linewidth=46)
    expected = (
        "tensor([1., 1., 1., 1., 1., 1.],\n       dtype=minitorch.float64, requires_grad=True)"
    )
    assert_same_text(fmt(np.ones(6), requires_grad=True), expected)


def test_no_edge_items_prints_the_size():
    set_printoptions(edgeitems=0, threshold=3)
    assert_same_text(fmt(np.arange(5)), "tensor([...], size=(5,))")
    assert_same_text(fmt(np.ones((2, 3), np.float32)), "tensor([...], size=(2, 3))")
    assert_same_text(fmt(f32(2.5)), "tensor(2.5000, size=())")


# ---------------------------------------------------------------------------------------------
# Against PyTorch
# ---------------------------------------------------------------------------------------------


def torch_text(tensor) -> str:
    return repr(tensor).replace("torch.", "minitorch.")


def compare_with_torch(values: np.ndarray, tensor=None, **suffixes) -> None:
    """Assert that `format_tensor` prints ``values`` as torch prints ``tensor`` (or the values)."""
    torch = pytest.importorskip("torch")
    if tensor is None:
        tensor = torch.from_numpy(values)
    expected = torch_text(tensor)
    got = format_tensor(
        values,
        dtype_name=str(values.dtype),
        default_dtype=tensor.dtype == torch.get_default_dtype(),
        **suffixes,
    )
    options = get_printoptions()
    assert_same_text(got, expected, f"{values.dtype} shape {values.shape} options {options}")


def signed(magnitudes):
    return st.builds(lambda sign, x: sign * x, st.sampled_from([-1.0, 1.0]), magnitudes)


# Each array draws its elements from one family, so that every printing style comes up.
FLOAT_FAMILIES = [
    st.integers(-(10**6), 10**6).map(float),
    st.integers(-(10**5), 10**5).map(lambda cents: cents / 100),
    st.floats(-1, 1),
    st.floats(-1000, 1000),
    signed(st.floats(1e-9, 1e-3)),
    signed(st.floats(1e5, 1e12)),
    st.floats(allow_nan=True, allow_infinity=True),
]
SPECIAL_FLOATS = st.sampled_from([0.0, -0.0, nan, inf, -inf])
INT_ELEMENTS = [st.integers(-9, 9), st.integers(-(2**63), 2**63 - 1)]

SMALL_SHAPES = st.one_of(
    hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
    st.tuples(st.integers(0, 60)),
    st.tuples(st.integers(0, 3), st.integers(0, 40)),
)


@st.composite
def arrays(draw, shapes=SMALL_SHAPES, dtypes=("float32", "float64", "int64", "bool")):
    """A NumPy array of one of ``dtypes`` with values of one family (plus specials for floats)."""
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shapes)
    if dtype == "bool":
        elements = st.booleans()
    elif dtype == "int64":
        elements = draw(st.sampled_from(INT_ELEMENTS))
    else:
        elements = draw(st.sampled_from(FLOAT_FAMILIES))
        if draw(st.booleans()):
            elements = elements | SPECIAL_FLOATS
    size = math.prod(shape)
    data = draw(st.lists(elements, min_size=size, max_size=size))
    with np.errstate(over="ignore"):  # float64 values past the float32 range become inf
        return np.array(data).astype(dtype).reshape(shape)


@st.composite
def large_arrays(draw):
    """Arrays of more than 1000 elements (summarised), filled by NumPy from a drawn seed."""
    shape = draw(
        st.one_of(
            st.tuples(st.integers(1001, 3000)),
            st.lists(st.integers(1, 30), min_size=2, max_size=4)
            .map(tuple)
            .filter(lambda s: 1000 < math.prod(s) <= 30000),
        )
    )
    dtype = draw(st.sampled_from(["float32", "float64", "int64", "bool"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int64":
        return rng.integers(-(10 ** draw(st.integers(1, 12))), 10**6, size=shape)
    scale = 10.0 ** draw(st.integers(-10, 12))
    values = rng.standard_normal(shape) * scale
    if draw(st.booleans()):
        values = np.round(values)
    if draw(st.booleans()):
        flat = values.reshape(-1)
        flat[rng.integers(0, flat.size, size=5)] = rng.choice([nan, inf, -inf, 0.0, -0.0], size=5)
    with np.errstate(over="ignore"):
        return values.astype(dtype)


SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.torch
@settings(SETTINGS, max_examples=80)
@given(arrays())
def test_matches_torch(values):
    compare_with_torch(values)


@pytest.mark.torch
@settings(SETTINGS, max_examples=25)
@given(large_arrays())
def test_summarized_matches_torch(values):
    compare_with_torch(values)


@pytest.mark.torch
@settings(SETTINGS, max_examples=60)
@given(
    arrays(),
    st.fixed_dictionaries(
        {
            "profile": st.sampled_from([None, "default", "short", "full"]),
            "precision": st.one_of(st.none(), st.integers(0, 8)),
            "threshold": st.one_of(st.none(), st.integers(0, 60)),
            "edgeitems": st.one_of(st.none(), st.integers(0, 4)),
            "linewidth": st.one_of(st.none(), st.integers(1, 120)),
            "sci_mode": st.sampled_from([None, True, False]),
        }
    ),
)
def test_print_options_match_torch(values, options):
    torch = pytest.importorskip("torch")
    # The fixture runs once per test, not per example, so each example restores the defaults.
    torch.set_printoptions(**options)
    set_printoptions(**options)
    try:
        compare_with_torch(values)
    finally:
        torch.set_printoptions(profile="default")
        set_printoptions(profile="default")


@pytest.mark.torch
@settings(SETTINGS, max_examples=35)
@given(
    arrays(dtypes=("float32", "float64")),
    st.sampled_from(["requires_grad", "grad_fn", "device", "default float64"]),
)
def test_autograd_device_and_default_dtype_suffixes_match_torch(values, case):
    torch = pytest.importorskip("torch")
    tensor = torch.from_numpy(values)
    if case == "requires_grad":
        tensor.requires_grad_()
        compare_with_torch(values, tensor, requires_grad=True)
    elif case == "grad_fn":
        product = tensor.requires_grad_() * 1  # x * 1 keeps every value, -0.0 and nan included
        grad_fn_name = type(product.grad_fn).__name__
        compare_with_torch(values, product, requires_grad=True, grad_fn_name=grad_fn_name)
    elif case == "device":
        # torch prints the device of a tensor that is not on the default device type; claiming
        # that the default is CUDA makes it print device='cpu' on a CPU-only machine.
        original = torch._C._get_default_device
        torch._C._get_default_device = lambda: "cuda"
        try:
            compare_with_torch(values, tensor, device="cpu")
        finally:
            torch._C._get_default_device = original
    else:
        torch.set_default_dtype(torch.float64)
        try:
            compare_with_torch(values, tensor)
        finally:
            torch.set_default_dtype(torch.float32)
