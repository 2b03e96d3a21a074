"""Runtime names PyTorch scripts touch (`runtime.py`, `accelerator.py`, `backends/flags.py`),
the factories' `size=`, `div(rounding_mode=)`, `load(weights_only=, map_location=)`,
`random_`, the tensor queries, and the aliases and in-place forms of `ops/aliases.py`."""

import math

import numba
import numpy as np
import pytest

import minitorch


def test_version_says_it_is_minitorchs():
    assert minitorch.__version__.endswith("+minitorch")
    assert minitorch.__version__.split("+")[0].count(".") == 2


def test_set_num_threads_sets_numbas():
    before = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(1)
        assert numba.get_num_threads() == 1 == minitorch.get_num_threads()
        assert minitorch.ones(1000).sum().item() == 1000.0
    finally:
        minitorch.set_num_threads(before)
    assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError, match="positive integer"):
        minitorch.set_num_threads(0)


def test_deterministic_setting_is_recorded():
    try:
        minitorch.use_deterministic_algorithms(True, warn_only=True)
        assert minitorch.are_deterministic_algorithms_enabled()
    finally:
        minitorch.use_deterministic_algorithms(False)
    assert not minitorch.are_deterministic_algorithms_enabled()


def test_rng_state_round_trip():
    state = minitorch.get_rng_state()
    first = minitorch.rand(4)
    minitorch.set_rng_state(state)
    assert minitorch.equal(minitorch.rand(4), first)


def test_backends_flags_and_compile():
    minitorch.backends.cudnn.benchmark = True
    minitorch.backends.cudnn.deterministic = True
    assert minitorch.backends.cudnn.benchmark and not minitorch.backends.cudnn.is_available()
    assert not minitorch.backends.mps.is_available()
    model = minitorch.nn.Linear(2, 1)
    assert minitorch.compile(model) is model
    assert minitorch.compile(mode="reduce-overhead")(len) is len


def test_accelerator_is_cuda_when_there():
    available = minitorch.cuda.is_available()
    assert minitorch.accelerator.is_available() == available
    expected = minitorch.device("cuda") if available else None
    assert minitorch.accelerator.current_accelerator() == expected
    assert minitorch.accelerator.device_count() == minitorch.cuda.device_count()


@pytest.mark.parametrize(
    ("name", "dtype"),
    [("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("LongTensor", "int64"),
     ("IntTensor", "int32"), ("ShortTensor", "int16"), ("CharTensor", "int8"),
     ("ByteTensor", "uint8"), ("BoolTensor", "bool")],
)  # fmt: skip
def test_legacy_constructors(name, dtype):
    kind = getattr(minitorch, name)
    made = kind([1, 0, 1])
    assert made.dtype is getattr(minitorch, dtype) and made.tolist() == [
        True if dtype == "bool" else 1, False if dtype == "bool" else 0,
        True if dtype == "bool" else 1,
    ]  # fmt: skip
    sized = kind(2, 3)
    assert sized.shape == (2, 3) and sized.dtype is made.dtype
    assert isinstance(made, kind) and isinstance(made, minitorch.Tensor)
    other = minitorch.float32 if dtype == "float64" else minitorch.float64
    assert not isinstance(minitorch.ones(2, dtype=other), kind)
    on_gpu = getattr(minitorch.cuda, name)
    assert on_gpu.dtype is kind.dtype and on_gpu.is_cuda and not kind.is_cuda
    assert repr(on_gpu) == f"<class 'minitorch.cuda.{name}'>"
    assert repr(kind) == f"<class 'minitorch.{name}'>"
    assert not isinstance(made, on_gpu)


def test_a_cuda_legacy_type_makes_its_tensors_on_cuda_only_where_there_is_one():
    """torch's CPU build refuses `torch.cuda.FloatTensor(2)` with a TypeError ("Torch not
    compiled with CUDA enabled"); minitorch says why it has no CUDA device."""
    if minitorch.cuda.is_available():
        assert minitorch.cuda.FloatTensor(2).is_cuda
        return
    with pytest.raises(TypeError) as error:
        minitorch.cuda.FloatTensor(2)
    assert str(error.value) == (
        "type minitorch.cuda.FloatTensor not available: minitorch has no CUDA device "
        "(minitorch.cuda.is_available() is False)"
    )


@pytest.mark.parametrize("factory", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_take_size_keyword(factory):
    made = getattr(minitorch, factory)(size=(2, 3), dtype=minitorch.float64)
    assert made.shape == (2, 3) and made.dtype is minitorch.float64
    with pytest.raises(TypeError, match="multiple values"):
        getattr(minitorch, factory)(2, size=(2, 3))


@pytest.mark.parametrize("mode", ["trunc", "floor"])
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_div_rounding_mode(mode, dtype):
    a = np.array([7, -7, 6, -6, 0, 5], dtype=dtype)
    b = np.array([2, 2, -4, 4, 3, -5], dtype=dtype)
    expected = np.trunc(a / b) if mode == "trunc" else np.floor_divide(a, b)
    x, y = minitorch.tensor(a), minitorch.tensor(b)
    for result in (minitorch.div(x, y, rounding_mode=mode), x.div(y, rounding_mode=mode),
                   minitorch.divide(x, y, rounding_mode=mode)):  # fmt: skip
        assert result.dtype is x.dtype
        np.testing.assert_array_equal(result.numpy(), expected)
    with pytest.raises(ValueError, match="rounding_mode"):
        minitorch.div(x, y, rounding_mode="round")


def test_load_takes_weights_only_and_map_location(tmp_path):
    path = tmp_path / "w.safetensors"
    minitorch.save({"w": minitorch.arange(3.0)}, path)
    for location in (None, "cpu", minitorch.device("cpu"), {"cuda:0": "cpu"}, lambda s, loc: s):
        loaded = minitorch.load(path, map_location=location, weights_only=True)
        assert loaded["w"].tolist() == [0.0, 1.0, 2.0]
    assert minitorch.load(path, weights_only=False, mmap=False)["w"].device.type == "cpu"


def test_random_fills_integers():
    minitorch.manual_seed(0)
    x = minitorch.zeros(2000).random_(3)
    assert set(x.tolist()) == {0.0, 1.0, 2.0}
    y = minitorch.zeros(2000, dtype=minitorch.int64).random_(-2, 2)
    assert set(y.tolist()) == {-2, -1, 0, 1}
    z = minitorch.zeros(200, dtype=minitorch.uint8).random_()
    assert 0 <= z.min().item() and z.max().item() <= 255 and z.max().item() > 200
    f = minitorch.zeros(200).random_()
    assert f.max().item() < 2**24 and (f == f.floor()).all().item()
    with pytest.raises(RuntimeError, match="from.*less than.*to"):
        minitorch.zeros(2).random_(3, 3)


def test_queries():
    x = minitorch.ones(2, 3)
    assert minitorch.is_floating_point(x) and not minitorch.is_floating_point(x.long())
    assert minitorch.is_nonzero(minitorch.tensor([2])) and not minitorch.tensor(0.0).is_nonzero()
    with pytest.raises(RuntimeError, match="more than one value"):
        x.is_nonzero()
    with pytest.raises(RuntimeError, match="no values"):
        minitorch.is_nonzero(minitorch.ones(0))
    assert x.is_same_size(minitorch.zeros(2, 3)) and not minitorch.is_same_size(x, x.t())
    assert x.get_device() == -1 and minitorch.get_device(x) == -1 and x.is_cpu


# (alias, the operation it names, how many tensor operands)
ALIAS_ROWS = [
    ("greater", "gt", 2), ("greater_equal", "ge", 2), ("less", "lt", 2), ("less_equal", "le", 2),
    ("not_equal", "ne", 2), ("multiply", "mul", 2), ("subtract", "sub", 2), ("divide", "div", 2),
    ("absolute", "abs", 1),
]  # fmt: skip
# (operation, its operands besides the tensor: 1 none, 2 another tensor, or the arguments)
IN_PLACE_ROWS = [
    ("eq", 2), ("ne", 2), ("lt", 2), ("le", 2), ("gt", 2), ("ge", 2), ("logical_and", 2),
    ("logical_or", 2), ("logical_not", 1), ("logical_xor", 2), ("bitwise_and", 2),
    ("bitwise_or", 2), ("bitwise_xor", 2), ("bitwise_not", 1), ("bitwise_left_shift", 2),
    ("bitwise_right_shift", 2), ("reciprocal", 1), ("floor_divide", 2), ("remainder", 2),
    ("tril", (0,)), ("triu", (1,)), ("cumsum", (1,)), ("cumprod", (0,)), ("sin", 1),
    ("cos", 1), ("tan", 1), ("asin", 1), ("arcsin", 1), ("acos", 1), ("arccos", 1),
    ("atan", 1), ("arctan", 1), ("sinh", 1), ("cosh", 1), ("log2", 1), ("log10", 1),
    ("log1p", 1), ("expm1", 1), ("erf", 1), ("rsqrt", 1), ("square", 1), ("frac", 1),
    ("floor", 1), ("ceil", 1), ("trunc", 1), ("fix", 1), ("round", 1), ("sign", 1),
    ("atan2", 2), ("arctan2", 2), ("hypot", 2), ("fmod", 2), ("nan_to_num", 1),
    ("true_divide", 2), ("greater", 2), ("less_equal", 2), ("multiply", 2), ("divide", 2),
    ("subtract", 2), ("absolute", 1), ("clamp_min", (0.5,)), ("clamp_max", (0.5,)),
]  # fmt: skip
SAMPLE = np.array([[0.25, -1.5, 2.0], [0.0, 3.5, -0.75]])
OTHER = np.array([[0.5, -1.5, 1.0], [2.0, -3.0, 0.25]])


@pytest.mark.parametrize(
    ("alias", "original", "operands"), ALIAS_ROWS, ids=[r[0] for r in ALIAS_ROWS]
)
def test_alias_is_the_operation(alias, original, operands):
    x, y = minitorch.tensor(SAMPLE), minitorch.tensor(OTHER)
    args = (x, y)[:operands]
    assert minitorch.equal(getattr(minitorch, alias)(*args), getattr(minitorch, original)(*args))
    assert minitorch.equal(getattr(x, alias)(*args[1:]), getattr(minitorch, original)(*args))


NUMPY_IN_PLACE = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "expm1": np.expm1,
    "log1p": np.log1p, "square": np.square, "floor": np.floor, "ceil": np.ceil,
    "trunc": np.trunc, "round": np.round, "sign": np.sign, "reciprocal": np.reciprocal,
    "frac": lambda v: v - np.trunc(v), "erf": np.vectorize(math.erf),
}  # fmt: skip


@pytest.mark.parametrize(("name", "operands"), IN_PLACE_ROWS, ids=[r[0] for r in IN_PLACE_ROWS])
def test_in_place_form_writes_the_operation(name, operands):
    """`x.name_(...)` writes `name(x, ...)` into `x` (in `x`'s dtype), bumps the version, and
    refuses a leaf that requires grad."""
    values = (
        np.abs(SAMPLE) / 4 + 0.1 if name in ("log2", "log10", "rsqrt", "acos", "asin") else SAMPLE
    )
    ints = name.startswith(("bitwise", "logical"))
    x = minitorch.tensor(values.astype(np.int64) if ints else values)
    other = minitorch.tensor(np.ones_like(values, dtype=np.int64) if ints else OTHER)
    args = {1: (), 2: (other,)}.get(operands, operands)
    expected = getattr(minitorch, name)(x, *args)
    version = x._version
    assert getattr(x, name + "_")(*args) is x and x._version > version
    np.testing.assert_allclose(x.numpy(), expected.to(x.dtype).numpy())
    if name in NUMPY_IN_PLACE:
        with np.errstate(all="ignore"):  # 1/0 and log1p(-1.5): inf and NaN, as minitorch's
            reference = NUMPY_IN_PLACE[name](values)
        np.testing.assert_allclose(expected.numpy(), reference, rtol=1e-12)
    leaf = minitorch.tensor(values, requires_grad=True)
    if leaf.dtype.is_floating_point and not ints:
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            getattr(leaf, name + "_")(*[a.double() for a in args if hasattr(a, "double")])


def test_comparison_in_place_writes_ones_and_zeros():
    x = minitorch.tensor([1.0, -2.0, 3.0])
    x.lt_(0)
    assert x.tolist() == [0.0, 1.0, 0.0] and x.dtype is minitorch.float32


def test_clamp_min_max_and_logical_xor():
    x = minitorch.tensor(SAMPLE)
    np.testing.assert_allclose(minitorch.clamp_min(x, 0.3).numpy(), np.maximum(SAMPLE, 0.3))
    np.testing.assert_allclose(x.clamp_max(0.3).numpy(), np.minimum(SAMPLE, 0.3))
    a, b = minitorch.tensor([1, 0, 1, 0]), minitorch.tensor([1, 1, 0, 0])
    assert minitorch.logical_xor(a, b).tolist() == [False, True, True, False]
    x.clamp_min_(0.0)
    assert (x >= 0).all().item()


def test_runtime_names_like_torch(torch):
    from helpers import assert_same

    assert_same(lambda L: L.LongTensor([1, 2]))
    assert_same(lambda L: L.FloatTensor(2, 3).shape)
    assert_same(lambda L: L.rand(size=(2, 3)).shape)
    assert_same(lambda L: L.div(L.tensor([7, -7, 5]), L.tensor([2, 2, -3]), rounding_mode="trunc"))
    assert_same(lambda L: L.div(L.tensor([7.0, -7.5]), 2, rounding_mode="floor"))
    assert_same(lambda L: L.tensor([1.0, -2.0]).lt_(0))
    assert_same(lambda L: L.logical_xor(L.tensor([1, 0, 1]), L.tensor([1, 1, 0])))
    assert_same(lambda L: L.tensor([[1.0, 2.0]]).is_nonzero())
    assert_same(lambda L: L.tensor([3]).is_nonzero())
    assert_same(lambda L: L.ones(2).get_device())
    assert_same(lambda L: L.backends.mps.is_available())
    assert_same(lambda L: isinstance(L.ones(2, dtype=L.int64), L.LongTensor))
    assert_same(lambda L: isinstance(L.ones(2), L.cuda.FloatTensor))
    assert_same(
        lambda L: (L.cuda.LongTensor.dtype, L.cuda.LongTensor.is_cuda, L.LongTensor.is_cuda)
    )
    assert_same(lambda L: repr(L.cuda.DoubleTensor).replace("minitorch.", "torch."))
    assert_same(lambda L: L.cuda.BoolTensor.__name__)
    for name, _, operands in ALIAS_ROWS:
        assert_same(
            lambda L, n=name, k=operands: getattr(L, n)(*[L.tensor(SAMPLE), L.tensor(OTHER)][:k])
        )


def test_recorded_settings():
    try:
        minitorch.set_float32_matmul_precision("high")
        minitorch.set_warn_always(True)
        minitorch.set_num_interop_threads(2)
        assert minitorch.get_float32_matmul_precision() == "high"
        assert minitorch.is_warn_always_enabled() and minitorch.get_num_interop_threads() == 2
    finally:
        minitorch.set_float32_matmul_precision("highest")
        minitorch.set_warn_always(False)
        minitorch.set_num_interop_threads(1)
    with pytest.raises(RuntimeError, match="Invalid precision"):
        minitorch.set_float32_matmul_precision("low")


def test_is_signed_and_numel():
    assert minitorch.ones(2).is_signed() and not minitorch.is_signed(minitorch.ones(2).byte())
    assert not minitorch.ones(2).bool().is_signed() and minitorch.numel(minitorch.ones(2, 3)) == 6


@pytest.mark.parametrize(
    ("fill", "args", "mean", "support"),
    [("exponential_", (2.0,), 0.5, lambda v: v >= 0),
     ("geometric_", (0.25,), 4.0, lambda v: v >= 1 and v == int(v)),
     ("log_normal_", (0.0, 0.5), math.exp(0.125), lambda v: v > 0),
     ("bernoulli_", (0.3,), 0.3, lambda v: v in (0.0, 1.0))],
)  # fmt: skip
def test_random_fills_follow_their_distributions(fill, args, mean, support):
    """Sample means within 5 standard errors of the distribution's mean (seeded)."""
    minitorch.manual_seed(1)
    x = minitorch.zeros(20000, dtype=minitorch.float64)
    assert getattr(x, fill)(*args) is x
    values = x.numpy()
    assert all(support(v) for v in values[:200])
    assert abs(values.mean() - mean) < 5 * values.std() / math.sqrt(values.size)


def test_cauchy_median_and_bernoulli_tensor_p():
    minitorch.manual_seed(2)
    x = minitorch.zeros(20000, dtype=minitorch.float64).cauchy_(1.5, 2.0)
    quartiles = np.quantile(x.numpy(), [0.25, 0.5, 0.75])
    np.testing.assert_allclose(quartiles, [1.5 - 2.0, 1.5, 1.5 + 2.0], atol=0.15)
    p = minitorch.tensor([0.0, 1.0, 0.0, 1.0])
    assert minitorch.zeros(4).bernoulli_(p).tolist() == [0.0, 1.0, 0.0, 1.0]
