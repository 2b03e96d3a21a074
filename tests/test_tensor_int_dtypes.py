"""The integer dtypes (int32, int16, int8, uint8) against PyTorch.

Promotion tables for every pair of dtypes (tensors with dimensions, 0-dim
tensors, Python numbers), arithmetic, comparisons and bitwise results with
their dtypes and their wrap-around, reductions' dtypes, conversions, creation,
printing, NumPy round trips and the errors PyTorch gives. Skipped when torch
is missing; runs on every CPU backend (see conftest.py).
"""

import itertools
import re
import warnings

import numpy as np
import pytest
from helpers import assert_same, types_named_for_the_test_device

import minitorch
from minitorch.backends import fast_ops
from minitorch.backends.fast import elementwise as fast_elementwise

torch = pytest.importorskip("torch")

NAMES = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"]
INTEGERS = ["int64", "int32", "int16", "int8", "uint8"]
# values that reach both ends of each dtype's range, so that results overflow and wrap
SAMPLES = {
    "int64": [9223372036854775807, -9223372036854775808, 7, -3],
    "int32": [2147483647, -2147483648, 7, -3],
    "int16": [32767, -32768, 7, -3],
    "int8": [127, -128, 7, -3],
    "uint8": [255, 0, 7, 200],
    "float32": [1.5, -2.25, 0.0, 7.0],
    "float64": [1.5, -2.25, 0.0, 7.0],
    "bool": [True, False, True, True],
}
# nonzero divisors and small exponents
DIVISORS = {"int64": [3, -2, 5, 1], "uint8": [3, 2, 5, 1]}
for _name in ("int32", "int16", "int8"):
    DIVISORS[_name] = DIVISORS["int64"]


def dtype(lib, name):
    return getattr(lib, name)


def sample(lib, name, values=None):
    return lib.tensor(SAMPLES[name] if values is None else values, dtype=dtype(lib, name))


def dtype_name(d) -> str:
    return str(d).split(".")[-1]


# ---------------------------------------------------------------------------
# Promotion
# ---------------------------------------------------------------------------


def test_promote_types_and_can_cast_tables_match_torch():
    for a, b in itertools.product(NAMES, repeat=2):
        ours = minitorch.promote_types(dtype(minitorch, a), dtype(minitorch, b))
        theirs = torch.promote_types(dtype(torch, a), dtype(torch, b))
        assert dtype_name(ours) == dtype_name(theirs), (a, b)
        can = minitorch.can_cast(dtype(minitorch, a), dtype(minitorch, b))
        assert can == torch.can_cast(dtype(torch, a), dtype(torch, b)), (a, b)


@pytest.mark.parametrize("a_dims,b_dims", [((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())])
def test_result_type_of_tensors_with_and_without_dims_matches_torch(a_dims, b_dims):
    for a, b in itertools.product(NAMES, repeat=2):
        ours = minitorch.result_type(
            minitorch.zeros(a_dims, dtype=dtype(minitorch, a)),
            minitorch.zeros(b_dims, dtype=dtype(minitorch, b)),
        )
        theirs = torch.result_type(
            torch.zeros(a_dims, dtype=dtype(torch, a)), torch.zeros(b_dims, dtype=dtype(torch, b))
        )
        assert dtype_name(ours) == dtype_name(theirs), (a, a_dims, b, b_dims)


@pytest.mark.parametrize("scalar", [True, 3, -300, 2.5])
def test_result_type_with_python_numbers_matches_torch(scalar):
    for name in NAMES:
        for dims in ((2,), ()):
            ours = minitorch.result_type(
                minitorch.zeros(dims, dtype=dtype(minitorch, name)), scalar
            )
            theirs = torch.result_type(torch.zeros(dims, dtype=dtype(torch, name)), scalar)
            assert dtype_name(ours) == dtype_name(theirs), (name, dims, scalar)


@pytest.mark.parametrize("a,b", list(itertools.combinations(NAMES, 2)))
def test_mixed_dtype_arithmetic_promotes_like_torch(a, b):
    """One kernel run per pair: the operands are converted to the promoted dtype first."""
    assert_same(lambda lib: sample(lib, a) + sample(lib, b)[:1])
    assert_same(lambda lib: sample(lib, a) * lib.tensor(SAMPLES[b][2], dtype=dtype(lib, b)))


# ---------------------------------------------------------------------------
# Arithmetic, comparisons and bitwise ops per integer dtype
# ---------------------------------------------------------------------------

BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "true_div": lambda x, y: x / y,
    "floor_div": lambda x, y: x // y,
    "remainder": lambda x, y: x % y,
    "fmod": lambda x, y: x.fmod(y),
    "and": lambda x, y: x & y,
    "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y,
    "eq": lambda x, y: x == y,
    "lt": lambda x, y: x < y,
    "ge": lambda x, y: x >= y,
    "maximum": lambda x, y: x.maximum(y),
}
UNARY = {
    "neg": lambda x: -x,
    "abs": lambda x: x.abs(),
    "invert": lambda x: ~x,
    "square": lambda x: x * x,
    "sign": lambda x: x.sign(),
    # the dtype, and the values to 5 decimals: torch's float32 sqrt is one ulp above the
    # correctly rounded root on some CPUs (sqrt(67) is 8.18535328 there, 8.18535233 in NumPy
    # and minitorch), so exact equality would test the machine's vector unit
    "sqrt": lambda x: ((x % 100).sqrt().dtype, (x % 100).sqrt().double().mul(1e5).round()),
    "exp_dtype": lambda x: x.exp().dtype,
    "clone": lambda x: x.clone(),
    "t_contiguous": lambda x: x.view(2, 2).t().contiguous(),
}


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("name", INTEGERS)
def test_binary_ops_of_integer_tensors_match_torch_wrapping_around(name, op):
    fn = BINARY[op]
    assert_same(lambda lib: fn(sample(lib, name), sample(lib, name, DIVISORS[name])))


@pytest.mark.parametrize("op", sorted(UNARY))
@pytest.mark.parametrize("name", INTEGERS)
def test_unary_ops_of_integer_tensors_match_torch(name, op):
    assert_same(lambda lib: UNARY[op](sample(lib, name)))


@pytest.mark.parametrize("scalar", [1, 300, -1, -300, True])
@pytest.mark.parametrize("name", ["uint8", "int8", "int16"])
def test_python_integers_wrap_into_narrow_tensors_as_in_torch(name, scalar):
    """`uint8 + 300` stays uint8 and adds 300 mod 256; a comparison wraps the number too."""
    assert_same(lambda lib: sample(lib, name) + scalar)
    assert_same(lambda lib: scalar - sample(lib, name))
    assert_same(lambda lib: sample(lib, name) * scalar)
    assert_same(lambda lib: sample(lib, name) == scalar)
    assert_same(lambda lib: sample(lib, name) > scalar)


def test_wrap_around_examples():
    byte = minitorch.tensor([255], dtype=minitorch.uint8)
    assert (byte + 1).tolist() == [0] and (byte + 1).dtype is minitorch.uint8
    assert (minitorch.tensor([0], dtype=minitorch.uint8) - 1).tolist() == [255]
    small = minitorch.tensor([127, -128], dtype=minitorch.int8)
    assert (small + 1).tolist() == [-128, -127]
    assert (small // -1).tolist() == [-127, -128]  # -128 // -1 wraps back to -128
    assert small.abs().tolist() == [127, -128]


@pytest.mark.parametrize("name", INTEGERS)
def test_shifts_and_powers_of_integers_match_torch(name):
    assert_same(lambda lib: sample(lib, name, [1, 3, 64, 5]) << 2)
    assert_same(lambda lib: sample(lib, name, [1, 3, 64, 100]) >> 1)
    assert_same(lambda lib: 2 << sample(lib, name, [1, 3, 6, 7]))
    # shifts by 64 or more, or by a negative amount, shift every bit out
    assert_same(lambda lib: sample(lib, name) >> lib.tensor([1, 70, -1, 3]))
    assert_same(lambda lib: sample(lib, name).bitwise_left_shift(lib.tensor([1, 64, -1, 3])))
    assert_same(lambda lib: lib.bitwise_right_shift(lib.tensor([True, False]), 1))
    assert_same(lambda lib: lib.tensor([True]) << lib.tensor([True]))  # no bool kernel
    assert_same(lambda lib: sample(lib, name, [1, 3, 2, 5]) ** 2)
    assert_same(lambda lib: sample(lib, name, [1, 3, 2, 5]) ** sample(lib, name, [0, 9, 8, 3]))
    assert_same(lambda lib: sample(lib, name, [1, 3, 2, 5]) ** 0.5)
    assert_same(lambda lib: sample(lib, name, [1, 3, 2, 5]) ** -1)


@pytest.mark.parametrize("name", ["int32", "uint8"])
def test_integer_division_by_zero_raises_as_in_torch(name):
    assert_same(lambda lib: sample(lib, name) // 0)
    assert_same(lambda lib: sample(lib, name) % sample(lib, name, [1, 0, 1, 1]))
    assert_same(lambda lib: (sample(lib, name) / 0).isnan())  # true division: nan and inf
    assert_same(lambda lib: (sample(lib, name) / 0).isinf())


@pytest.mark.cpu_only  # it counts the CPU backend's compiled kernels
def test_ops_on_the_new_dtypes_run_on_compiled_kernels():
    """A uint8 add wraps on every backend. On the Numba backends it compiles (once) a kernel for
    uint8 arrays; the reference backend loops in Python and has no kernels to compile."""
    backend = minitorch.get_backend()
    a = minitorch.tensor([250, 7], dtype=minitorch.uint8)
    assert (a + a).tolist() == [244, 14] and (a + a).dtype is minitorch.uint8
    if backend.name == "simple":
        assert not hasattr(backend, "kernels")
        return
    # each Numba backend's zip builds its kernels with its own module's factory (the fast
    # one's flat kernel: the operands are row-major with one shape)
    factories = {"student": fast_ops.tensor_zip, "fast": fast_elementwise.flat_zip}
    zip_factory = factories[backend.name]
    kernel = backend.kernels(zip_factory, minitorch.operators.add)
    signatures = [str(sig) for k in kernel for sig in k.signatures]
    assert any("array(uint8" in sig.lower() for sig in signatures), signatures


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

REDUCTIONS = {
    "sum": lambda x: x.sum(),
    "sum_dim": lambda x: x.view(2, 2).sum(0),
    "sum_dtype": lambda x: x.sum(dtype=x.dtype),
    "prod": lambda x: x.prod(),
    "cumsum": lambda x: x.cumsum(0),
    "cumprod": lambda x: x.cumprod(0),
    "max": lambda x: x.max(),
    "min_dim": lambda x: x.view(2, 2).min(1),
    "argmax": lambda x: x.argmax(),
    "argmin_dim": lambda x: x.view(2, 2).argmin(0),
    "amax": lambda x: x.view(2, 2).amax(1),
    "mean": lambda x: x.mean(),
    "var": lambda x: x.var(),
    "sort": lambda x: x.sort(),
    "any": lambda x: x.any(),
    "count_nonzero": lambda x: x.count_nonzero(),
}


@pytest.mark.parametrize("op", sorted(REDUCTIONS))
@pytest.mark.parametrize("name", ["int32", "int8", "uint8", "bool"])
def test_reductions_of_integers_have_torchs_dtypes_and_errors(name, op):
    assert_same(lambda lib: REDUCTIONS[op](sample(lib, name)))


# ---------------------------------------------------------------------------
# Conversions and creation
# ---------------------------------------------------------------------------

CONVERSIONS = {
    "int": lambda x: x.int(),
    "short": lambda x: x.short(),
    "char": lambda x: x.char(),
    "byte": lambda x: x.byte(),
    "long": lambda x: x.long(),
    "float": lambda x: x.float(),
    "bool": lambda x: x.bool(),
    "to_uint8": lambda x: x.to(torch_or_minitorch(x).uint8),
    "type": lambda x: x.type(),
}


def torch_or_minitorch(x):
    return torch if isinstance(x, torch.Tensor) else minitorch


@pytest.mark.parametrize("op", sorted(CONVERSIONS))
@pytest.mark.parametrize("name", NAMES)
def test_conversions_match_torch(name, op):
    """Narrowing wraps, floats truncate toward zero, `type()` names the legacy tensor type."""
    result = CONVERSIONS[op]
    assert_same(lambda lib: result(sample(lib, name)) if op != "type" else None)
    ours, theirs = result(sample(minitorch, name)), result(sample(torch, name))
    if op == "type":
        assert ours == types_named_for_the_test_device(theirs.replace("torch.", "minitorch."))


def test_conversion_of_a_tensor_to_its_own_dtype_is_itself():
    x = minitorch.tensor([1, 2], dtype=minitorch.int16)
    assert x.short() is x and x.to(minitorch.int16) is x and x.int() is not x


FACTORIES = {
    "tensor": lambda lib, d: lib.tensor([[1, 2], [3, 4]], dtype=d),
    "tensor_0dim": lambda lib, d: lib.tensor(5, dtype=d),
    "tensor_floats": lambda lib, d: lib.tensor([2.7, -0.5, 3.0], dtype=d),
    "tensor_minus_one": lambda lib, d: lib.tensor([-1], dtype=d),
    "tensor_overflow": lambda lib, d: lib.tensor([[1, 40000]], dtype=d),
    "zeros": lambda lib, d: lib.zeros(2, 3, dtype=d),
    "ones": lambda lib, d: lib.ones(2, dtype=d),
    "empty": lambda lib, d: lib.empty(0, 2, dtype=d),
    "full": lambda lib, d: lib.full((2,), 7, dtype=d),
    "full_overflow": lambda lib, d: lib.full((2,), 40000, dtype=d),
    "full_nan": lambda lib, d: lib.full((2,), float("nan"), dtype=d),
    "arange": lambda lib, d: lib.arange(2, 9, 3, dtype=d),
    "arange_wraps": lambda lib, d: lib.arange(250, 260, dtype=d),
    "randint": lambda lib, d: lib.randint(0, 5, (3,), dtype=d).dtype,
    "zeros_like": lambda lib, d: lib.zeros_like(lib.ones(2, dtype=d)),
    "ones_like": lambda lib, d: lib.ones_like(lib.ones(2), dtype=d),
    "full_like": lambda lib, d: lib.full_like(lib.ones(2, dtype=d), 3),
    "empty_like": lambda lib, d: lib.empty_like(lib.ones(2, dtype=d)).dtype,
    "eye": lambda lib, d: lib.eye(2, dtype=d),
    "fill_": lambda lib, d: lib.zeros(2, dtype=d).fill_(-1),
    "fill_overflow": lambda lib, d: lib.zeros(2, dtype=d).fill_(40000),
    "setitem_overflow": lambda lib, d: lib.zeros(2, dtype=d).__setitem__(0, 40000),
    "masked_fill_overflow": lambda lib, d: lib.zeros(2, dtype=d).masked_fill(
        lib.tensor([True, False]), 40000
    ),
    "setitem": lambda lib, d: lib.zeros(2, dtype=d).index_fill_(0, lib.tensor([1]), 3),
    "requires_grad": lambda lib, d: lib.ones(2, dtype=d, requires_grad=True),
    "tensor_requires_grad": lambda lib, d: lib.tensor([1, 2], dtype=d, requires_grad=True),
}


@pytest.mark.parametrize("factory", sorted(FACTORIES))
@pytest.mark.parametrize("name", ["int32", "int16", "int8", "uint8"])
def test_factories_take_the_new_dtypes_like_torch(name, factory):
    assert_same(lambda lib: FACTORIES[factory](lib, dtype(lib, name)))


@pytest.mark.cpu_only  # from_numpy shares host memory: a CPU tensor
@pytest.mark.parametrize("name", INTEGERS + ["bool"])
def test_numpy_round_trip_keeps_the_dtype(name):
    array = np.array(SAMPLES[name], dtype=np.dtype(name if name != "bool" else np.bool_))
    shared = minitorch.from_numpy(array)
    assert shared.dtype is dtype(minitorch, name)
    assert shared.numpy().dtype == array.dtype and shared.tolist() == array.tolist()
    shared[0] = 1
    assert array[0] == 1  # from_numpy shares the memory
    assert_same(lambda lib: lib.tensor(array))
    assert_same(lambda lib: lib.tensor(array[1]))  # a NumPy scalar keeps its dtype
    assert_same(lambda lib: lib.tensor([array[1], array[2]]))


def test_from_numpy_of_an_unsupported_dtype_names_the_ones_it_takes():
    with pytest.raises(TypeError, match="numpy.uint16. The only supported types are: .*uint8"):
        minitorch.from_numpy(np.zeros(2, np.uint16))


# ---------------------------------------------------------------------------
# Indexing with integer index tensors
# ---------------------------------------------------------------------------

INDEXING = {
    "getitem": lambda lib, d: lib.tensor([10, 20, 30])[lib.tensor([2, 0], dtype=d)],
    "setitem": lambda lib, d: lib.zeros(3).index_put_((lib.tensor([2, 0], dtype=d),), lib.ones(1)),
    "gather": lambda lib, d: lib.tensor([10, 20, 30]).gather(0, lib.tensor([2, 0], dtype=d)),
    "index_select": lambda lib, d: lib.arange(3).index_select(0, lib.tensor([1], dtype=d)),
    "take": lambda lib, d: lib.tensor([10, 20, 30]).take(lib.tensor([1, 2], dtype=d)),
    "embedding_index": lambda lib, d: lib.arange(6).view(3, 2)[lib.tensor([[1], [0]], dtype=d)],
}


@pytest.mark.parametrize("op", sorted(INDEXING))
@pytest.mark.parametrize("name", ["int32", "int16", "int8"])
def test_indexing_with_integer_index_tensors_matches_torch(name, op):
    """int32 indices work like int64; int16 and int8 ones are refused as in torch."""
    assert_same(lambda lib: INDEXING[op](lib, dtype(lib, name)))


@pytest.mark.parametrize("name", ["int32", "int16", "int8", "uint8"])
def test_matmul_of_integers_wraps_and_mismatches_name_the_cpp_types(name):
    assert_same(
        lambda lib: sample(lib, name, [100, 2, 3, 4]).view(2, 2) @ sample(lib, name).view(2, 2)
    )
    assert_same(lambda lib: lib.ones(2, 2, dtype=dtype(lib, name)) @ lib.ones(2, 2))


def test_indexing_with_uint8_is_a_deprecated_mask_as_in_torch():
    for lib in (minitorch, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            picked = lib.tensor([10, 20, 30])[lib.tensor([1, 0, 1], dtype=lib.uint8)]
            scalar_mask = lib.tensor([10, 20])[lib.tensor(1, dtype=lib.uint8)]
        assert picked.tolist() == [10, 30] and scalar_mask.tolist() == [[10, 20]]
        assert "indexing with dtype torch.uint8 is now deprecated" in str(
            caught[0].message
        ).replace("minitorch.", "torch.")


# ---------------------------------------------------------------------------
# Printing, dtype objects, iinfo and finfo
# ---------------------------------------------------------------------------

PRINTED = {
    "1d": lambda lib, d: lib.tensor([1, -1], dtype=d),
    "0dim": lambda lib, d: lib.tensor(7, dtype=d),
    "2d": lambda lib, d: lib.tensor([[1, 2], [3, 4]], dtype=d),
    "empty": lambda lib, d: lib.zeros(0, dtype=d),
    "empty_2d": lambda lib, d: lib.zeros(0, 3, dtype=d),
    "long_row": lambda lib, d: lib.arange(40, dtype=d),
    "dtype": lambda lib, d: d,
}


@pytest.mark.cpu_only  # the recorded texts are of CPU tensors (a cuda one names its device)
@pytest.mark.parametrize("case", sorted(PRINTED))
@pytest.mark.parametrize("name", INTEGERS)
def test_integer_tensors_print_like_torch(name, case):
    ours = repr(PRINTED[case](minitorch, dtype(minitorch, name))).replace("minitorch.", "torch.")
    assert ours == repr(PRINTED[case](torch, dtype(torch, name)))


def test_dtype_aliases_and_attributes_match_torch():
    for alias in ("int", "short", "long", "float", "double", "uint8", "int8", "bool"):
        assert dtype_name(getattr(minitorch, alias)) == dtype_name(getattr(torch, alias)), alias
    for name in NAMES:
        ours, theirs = dtype(minitorch, name), dtype(torch, name)
        assert isinstance(ours, minitorch.dtype)
        for attribute in ("is_floating_point", "is_complex", "is_signed", "itemsize"):
            assert getattr(ours, attribute) == getattr(theirs, attribute), (name, attribute)


@pytest.mark.parametrize("name", NAMES)
def test_iinfo_and_finfo_match_torch(name):
    ours, theirs = dtype(minitorch, name), dtype(torch, name)
    for info in ("iinfo", "finfo"):
        try:
            expected = getattr(torch, info)(theirs)
        except TypeError as error:
            message = str(error).replace("torch.", "minitorch.")
            with pytest.raises(TypeError, match=re.escape(message)):
                getattr(minitorch, info)(ours)
            continue
        got = getattr(minitorch, info)(ours)
        assert repr(got) == repr(expected)
        fields = ("bits", "min", "max", "dtype")
        if info == "finfo":
            fields += ("eps", "tiny", "smallest_normal", "resolution")
        for field in fields:
            assert getattr(got, field) == getattr(expected, field), (name, field)
    assert repr(minitorch.finfo()) == repr(torch.finfo())


def test_saved_integer_tensors_load_with_their_dtypes_in_both_libraries(tmp_path):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    saved = {name: sample(minitorch, name) for name in INTEGERS}
    minitorch.save(saved, tmp_path / "ints.safetensors")
    ours = minitorch.load(tmp_path / "ints.safetensors")
    theirs = safetensors_torch.load_file(str(tmp_path / "ints.safetensors"))
    for name in INTEGERS:
        assert ours[name].dtype is dtype(minitorch, name)
        assert theirs[name].dtype is dtype(torch, name)
        assert ours[name].tolist() == theirs[name].tolist() == SAMPLES[name]
