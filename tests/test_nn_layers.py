"""minitorch.nn layers and their functional forms against torch.nn: outputs, input grads,
parameter grads, grad_fn names, repr and errors, with torch's weights copied into ours.

Skipped when torch is not installed.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
from helpers import assert_close, pair, types_named_for_the_test_device

import minitorch
import minitorch.nn.functional as F
from minitorch import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)
TOL = 1e-10  # float64 throughout


def take_torch_weights(ours, theirs):
    """Copy every parameter of the torch module `theirs` into ours (same names)."""
    ours.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})


def check_against_torch(ours, theirs, x_values, tol=TOL, name=None):
    """Same output, grad_fn name, input grad and parameter grads as torch for `x_values`."""
    x, tx = pair(x_values, "float64", requires_grad=True)
    out, expected = ours(x), theirs(tx)
    assert_close(out, expected, "output", tol)
    if name is not None:
        assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__ == name
    weights = RNG.normal(size=tuple(expected.shape))
    (out * minitorch.tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    assert_close(x.grad, tx.grad, "input grad", tol)
    ours_params = dict(ours.named_parameters())
    for key, p in theirs.named_parameters():
        assert_close(ours_params[key].grad, p.grad, f"{key} grad", tol)


# ---------------------------------------------------------------------------
# Linear and Identity
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "bias", "node"),
    [
        ((4, 3), True, "AddmmBackward0"),
        ((4, 3), False, None),
        ((2, 2, 3), True, None),
        ((3,), True, None),
    ],
)
def test_linear_matches_torch_with_its_weights(shape, bias, node):
    theirs = torch.nn.Linear(3, 2, bias=bias, dtype=torch.float64)
    ours = nn.Linear(3, 2, bias=bias, dtype=minitorch.float64)
    take_torch_weights(ours, theirs)
    check_against_torch(ours, theirs, RNG.normal(size=shape), name=node)


@pytest.mark.parametrize("bias_shape", [(3,), (1,), (), (1, 3)])
def test_functional_linear_broadcasts_its_bias_as_torch(bias_shape):
    (x, tx), (w, tw) = (
        pair(RNG.normal(size=(4, 2)), "float64", requires_grad=True),
        pair(RNG.normal(size=(3, 2)), "float64", requires_grad=True),
    )
    b, tb = pair(RNG.normal(size=bias_shape), "float64", requires_grad=True)
    out, expected = F.linear(x, w, b), TF.linear(tx, tw, tb)
    assert_close(out, expected, "output", TOL)
    assert type(out.grad_fn).__name__ == "AddmmBackward0"
    g = RNG.normal(size=(4, 3))
    out.backward(minitorch.tensor(g))
    expected.backward(torch.tensor(g))
    for ours, theirs, what in [(x, tx, "input"), (w, tw, "weight"), (b, tb, "bias")]:
        assert_close(ours.grad, theirs.grad, f"{what} grad", TOL)


def test_linear_initial_distribution_is_torchs():
    minitorch.manual_seed(0)
    layer = nn.Linear(50, 40)
    bound = 1 / np.sqrt(50)
    weight, bias = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert np.abs(weight).max() <= bound and np.abs(bias).max() <= bound
    assert weight.std() == pytest.approx(bound / np.sqrt(3), rel=0.05)
    assert np.abs(weight).max() > 0.97 * bound and np.abs(bias).max() > 0.8 * bound


@pytest.mark.parametrize(
    ("shape", "dtype"), [((4, 5), "float32"), ((4, 3), "float64"), ((3,), "int64")]
)
def test_linear_shape_and_dtype_errors_are_torchs(shape, dtype):
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.Linear(3, 2)(torch.ones(*shape, dtype=getattr(torch, dtype)))
    with pytest.raises(RuntimeError) as ours:
        nn.Linear(3, 2)(minitorch.ones(*shape, dtype=getattr(minitorch, dtype)))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(("batch", "bias"), [((4,), True), ((2, 3), False)])
def test_bilinear_matches_torch_with_its_weights(batch, bias):
    theirs = torch.nn.Bilinear(2, 3, 4, bias=bias, dtype=torch.float64)
    ours = nn.Bilinear(2, 3, 4, bias=bias, dtype=minitorch.float64)
    assert repr(ours) == repr(theirs)
    take_torch_weights(ours, theirs)
    (x1, tx1), (x2, tx2) = (
        pair(RNG.normal(size=(*batch, 2)), "float64", requires_grad=True),
        pair(RNG.normal(size=(*batch, 3)), "float64", requires_grad=True),
    )
    out, expected = ours(x1, x2), theirs(tx1, tx2)
    assert_close(out, expected, "output", TOL)
    g = RNG.normal(size=tuple(expected.shape))
    out.backward(minitorch.tensor(g))
    expected.backward(torch.tensor(g))
    assert_close(x1.grad, tx1.grad, "input1 grad", TOL)
    assert_close(x2.grad, tx2.grad, "input2 grad", TOL)
    assert_close(ours.weight.grad, theirs.weight.grad, "weight grad", TOL)
    with pytest.raises(RuntimeError) as ours_error:
        ours(x2, x2)
    with pytest.raises(RuntimeError) as theirs_error:
        theirs(tx2, tx2)
    assert str(ours_error.value) == str(theirs_error.value)


def test_identity_returns_its_input():
    x = minitorch.ones(2)
    assert nn.Identity(54, unused="x")(x) is x
    assert repr(nn.Identity()) == repr(torch.nn.Identity())


# ---------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------

ACTIVATIONS = [
    ("ReLU", (), "ReluBackward0"),
    ("LeakyReLU", (0.2,), "LeakyReluBackward0"),
    ("GELU", (), "GeluBackward0"),
    ("GELU", ("tanh",), "GeluBackward0"),
    ("SiLU", (), "SiluBackward0"),
    ("ELU", (0.7,), "EluBackward0"),
    ("Sigmoid", (), "SigmoidBackward0"),
    ("Tanh", (), "TanhBackward0"),
    ("Softmax", (1,), "SoftmaxBackward0"),
    ("LogSoftmax", (1,), "LogSoftmaxBackward0"),
]


@pytest.mark.parametrize(("name", "args", "node"), ACTIVATIONS)
def test_activation_matches_torch(name, args, node):
    values = RNG.normal(scale=2.0, size=(3, 4))
    values[0, :2] = [0.0, -6.0]  # the kink at 0 and a far tail
    check_against_torch(
        getattr(nn, name)(*args), getattr(torch.nn, name)(*args), values, 1e-10, node
    )
    assert repr(getattr(nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.leaky_relu(x, 0.1),
        lambda x: F.gelu(x),
        lambda x: F.gelu(x, approximate="tanh"),
        F.silu,
        lambda x: F.elu(x, 1.5),
    ],
)
def test_new_activations_pass_gradcheck(fn):
    values = RNG.normal(size=(2, 3))
    values[np.abs(values) < 0.05] = 0.3  # keep away from the kinks of leaky_relu and elu
    x = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.grad_check(fn, x)


@pytest.mark.parametrize(
    ("fn", "shapes"),
    [
        (lambda x, w, b: F.linear(x, w, b), [(3, 2), (4, 2), (4,)]),
        (lambda x1, x2, w: F.bilinear(x1, x2, w), [(3, 2), (3, 2), (2, 2, 2)]),
        (lambda w: F.embedding(minitorch.tensor([[0, 2], [2, 2]]), w), [(3, 2)]),
    ],
)
def test_linear_bilinear_embedding_pass_gradcheck(fn, shapes):
    inputs = [
        minitorch.tensor(RNG.normal(size=s), dtype=minitorch.float64, requires_grad=True)
        for s in shapes
    ]
    assert minitorch.grad_check(fn, *inputs)


def test_activation_reprs_and_errors_are_torchs():
    for ours, theirs in [
        (nn.ReLU(inplace=True), torch.nn.ReLU(inplace=True)),
        (nn.LeakyReLU(0.2, True), torch.nn.LeakyReLU(0.2, True)),
        (nn.ELU(0.5, True), torch.nn.ELU(0.5, True)),
        (nn.Softmax(), torch.nn.Softmax()),
        (nn.GELU(), torch.nn.GELU()),
    ]:
        assert repr(ours) == repr(theirs)
    with pytest.raises(RuntimeError) as theirs:
        TF.gelu(torch.ones(1), approximate="x")
    with pytest.raises(RuntimeError) as ours:
        F.gelu(minitorch.ones(1), approximate="x")
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 2)])
def test_softmax_without_dim_guesses_as_torch_with_its_warning(name, shape):
    values = RNG.normal(size=shape)
    with pytest.warns(UserWarning, match="Implicit dimension choice") as ours:
        got = getattr(nn, name)()(minitorch.tensor(values))
    with pytest.warns(UserWarning) as theirs:
        expected = getattr(torch.nn, name)()(torch.tensor(values))
    assert_close(got, expected, "output", TOL)
    assert str(ours[0].message) == str(theirs[0].message)


def test_inplace_activations_write_into_their_input():
    x = minitorch.tensor([-1.0, 2.0])
    assert nn.LeakyReLU(0.5, inplace=True)(x) is x and x.tolist() == [-0.5, 2.0]
    y = minitorch.tensor([-1.0, 2.0])
    assert nn.ReLU(inplace=True)(y) is y and y.tolist() == [0.0, 2.0]


# ---------------------------------------------------------------------------
# Dropout
# ---------------------------------------------------------------------------


def test_dropout_zeroes_a_fraction_p_and_scales_the_rest():
    minitorch.manual_seed(0)
    x = minitorch.ones(100, 100, requires_grad=True)
    layer = nn.Dropout(0.25)
    out = layer(x)
    values = out.detach().numpy()
    assert set(np.unique(values).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert np.mean(values == 0) == pytest.approx(0.25, abs=0.02)
    assert type(out.grad_fn).__name__ == "MulBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # the gradient goes where x went
    assert layer.eval()(x) is x, "eval mode is the identity"
    assert F.dropout(x, 0.0) is x
    assert not F.dropout(x, 1.0).detach().numpy().any()


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_probability_is_checked_as_torch(p):
    for make in (nn.Dropout, lambda p: F.dropout(minitorch.ones(1), p)):
        with pytest.raises(ValueError) as ours:
            make(p)
        with pytest.raises(ValueError) as theirs:
            torch.nn.Dropout(p)
        assert str(ours.value) == str(theirs.value)
    assert repr(nn.Dropout(0.2, True)) == repr(torch.nn.Dropout(0.2, True))


# ---------------------------------------------------------------------------
# Embedding and one_hot
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("padding_idx", [None, 1, -1])
def test_embedding_matches_torch_and_skips_the_padding_row(padding_idx):
    theirs = torch.nn.Embedding(5, 3, padding_idx=padding_idx, dtype=torch.float64)
    ours = nn.Embedding(5, 3, padding_idx=padding_idx, dtype=minitorch.float64)
    assert ours.padding_idx == theirs.padding_idx
    if padding_idx is not None:
        assert not ours.weight[ours.padding_idx].detach().numpy().any(), "padding row starts at 0"
    take_torch_weights(ours, theirs)
    indices = [[1, 4, 1], [0, 4, 4]]
    out, expected = ours(minitorch.tensor(indices)), theirs(torch.tensor(indices))
    assert_close(out, expected, "output", TOL)
    assert type(out.grad_fn).__name__ == "EmbeddingBackward0"
    g = RNG.normal(size=(2, 3, 3))
    out.backward(minitorch.tensor(g))
    expected.backward(torch.tensor(g))
    assert_close(ours.weight.grad, theirs.weight.grad, "weight grad (repeated rows summed)", TOL)
    assert repr(ours) == repr(theirs)


def test_embedding_errors_and_from_pretrained_are_torchs():
    table = nn.Embedding(5, 2)
    with pytest.raises(IndexError, match="index out of range in self"):
        table(minitorch.tensor([5]))
    with pytest.raises(RuntimeError) as ours:
        table(minitorch.tensor([1.0]))
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.Embedding(5, 2)(torch.tensor([1.0]))
    expected = str(theirs.value).replace("torch.", "minitorch.")
    assert str(ours.value) == types_named_for_the_test_device(expected)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(5, 2, padding_idx=5)
    frozen = nn.Embedding.from_pretrained(minitorch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert not frozen.weight.requires_grad and repr(frozen) == "Embedding(2, 2)"
    assert frozen(minitorch.tensor([1])).tolist() == [[3.0, 4.0]]
    trainable = nn.Embedding.from_pretrained(minitorch.ones(2, 2), freeze=False)
    assert trainable.weight.requires_grad


def test_one_hot_matches_torch():
    for args in [([0, 2],), ([[1], [0]], 4)]:
        ours = F.one_hot(minitorch.tensor(args[0]), *args[1:])
        theirs = TF.one_hot(torch.tensor(args[0]), *args[1:])
        assert ours.dtype is minitorch.int64 and ours.tolist() == theirs.tolist()
    for bad, num_classes in [([1.0], -1), ([-1], -1), ([3], 2)]:
        with pytest.raises(RuntimeError) as ours:
            F.one_hot(minitorch.tensor(bad), num_classes)
        with pytest.raises(RuntimeError) as theirs:
            TF.one_hot(torch.tensor(bad), num_classes)
        assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------------------
# Flatten, Unflatten
# ---------------------------------------------------------------------------


def test_flatten_and_unflatten_match_torch():
    x = RNG.normal(size=(2, 3, 4))
    for ours, theirs in [
        (nn.Flatten(), torch.nn.Flatten()),
        (nn.Flatten(0, 1), torch.nn.Flatten(0, 1)),
        (nn.Unflatten(1, (3, 1)), torch.nn.Unflatten(1, (3, 1))),
        (nn.Unflatten(-1, (2, -1)), torch.nn.Unflatten(-1, (2, -1))),
    ]:
        check_against_torch(ours, theirs, x)
        assert repr(ours) == repr(theirs)
    with pytest.raises(RuntimeError) as ours:
        nn.Unflatten(1, (2, 2))(minitorch.ones(2, 3))
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.Unflatten(1, (2, 2))(torch.ones(2, 3))
    assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------------------
# Containers
# ---------------------------------------------------------------------------


def test_sequential_runs_in_order_and_indexes_as_torch():
    theirs = torch.nn.Sequential(
        torch.nn.Linear(3, 4, dtype=torch.float64),
        torch.nn.Tanh(),
        torch.nn.Linear(4, 2, dtype=torch.float64),
    )
    ours = nn.Sequential(
        nn.Linear(3, 4, dtype=minitorch.float64),
        nn.Tanh(),
        nn.Linear(4, 2, dtype=minitorch.float64),
    )
    take_torch_weights(ours, theirs)
    check_against_torch(ours, theirs, RNG.normal(size=(5, 3)))
    assert len(ours) == 3 and ours[-1] is list(ours)[2]
    assert repr(ours[1:]) == repr(theirs[1:]), "a slice is a Sequential keeping the names"
    with pytest.raises(IndexError, match="index 5 is out of range"):
        ours[5]
    assert ours.append(nn.ReLU()) is ours and repr(ours[3]) == "ReLU()"
    del ours[0]
    assert [n for n, _ in ours.named_children()] == ["0", "1", "2"]
    tanh = ours[0]
    assert ours.insert(0, nn.Identity()) is ours and ours[1] is tanh and len(ours) == 4
    assert ours.pop(0).__class__ is nn.Identity and ours[0] is tanh
    with pytest.raises(IndexError, match="Index out of range: 9"):
        ours.insert(9, nn.ReLU())
    named = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    assert repr(named) == repr(
        torch.nn.Sequential(OrderedDict([("a", torch.nn.ReLU()), ("b", torch.nn.Tanh())]))
    )
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        nn.Sequential(3)


def test_module_list_and_module_dict_register_their_modules():
    layers = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
    layers.append(nn.Linear(2, 1))
    layers.insert(1, nn.Tanh())
    assert [type(m).__name__ for m in layers] == ["Linear", "Tanh", "ReLU", "Linear"]
    assert [n for n, _ in layers.named_parameters()] == ["0.weight", "0.bias", "3.weight", "3.bias"]
    assert isinstance(layers[1:], nn.ModuleList) and len(layers[1:]) == 3
    theirs = torch.nn.ModuleList([torch.nn.Linear(2, 2), torch.nn.ReLU()])
    assert repr(nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])) == repr(theirs)
    with pytest.raises(IndexError, match="index 9 is out of range"):
        layers[9]

    def blocks(lib):  # runs of modules that print alike are one line in torch
        repeated = [lib.Sequential(lib.Linear(2, 2), lib.ReLU()) for _ in range(2)]
        return lib.ModuleList([*repeated, lib.ReLU(), lib.ReLU(), lib.ReLU(), lib.Tanh()])

    ours_text = repr(blocks(nn))
    assert ours_text == repr(blocks(torch.nn))
    assert "(0-1): 2 x Sequential(" in ours_text and "(2-4): 3 x ReLU()" in ours_text
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())

    heads = nn.ModuleDict({"b": nn.Linear(2, 1), "a": nn.Identity()})
    heads["c"] = nn.ReLU()
    assert list(heads.keys()) == ["b", "a", "c"] and "a" in heads and len(heads) == 3
    assert [n for n, _ in heads.named_parameters()] == ["b.weight", "b.bias"]
    assert heads.pop("a").__class__ is nn.Identity and list(heads) == ["b", "c"]
    theirs = torch.nn.ModuleDict({"b": torch.nn.ReLU(), "a": torch.nn.Tanh()})
    assert repr(nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})) == repr(theirs)
