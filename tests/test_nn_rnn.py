"""RNN, LSTM, GRU and their cells: outputs and final states against a NumPy reference of
each cell (stacked, bidirectional, batch_first, unbatched, projections), gradients against
central differences, and live against torch with copied weights (state dicts load both
ways; outputs and every gradient)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch import nn

RNG = np.random.default_rng(11)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def numpy_step(mode, x, state, w):
    """One step of the cell `mode` in NumPy; `state` is [h] or [h, c]."""
    b_ih = w.get("bias_ih", 0.0)
    b_hh = w.get("bias_hh", 0.0)
    gi = x @ w["weight_ih"].T + b_ih
    gh = state[0] @ w["weight_hh"].T + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=-1)
        c = sigmoid(f) * state[1] + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        if "weight_hr" in w:
            h = h @ w["weight_hr"].T
        return [h, c]
    if mode == "GRU":
        (xr, xz, xn), (hr, hz, hn) = np.split(gi, 3, axis=-1), np.split(gh, 3, axis=-1)
        r, z = sigmoid(xr + hr), sigmoid(xz + hz)
        n = np.tanh(xn + r * hn)
        return [(1 - z) * n + z * state[0]]
    total = gi + gh
    return [np.tanh(total) if mode == "RNN_TANH" else np.maximum(total, 0)]


def numpy_layers(module, x):
    """The module's output and final states for a (L, N, H_in) input from zero states."""
    params = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    mode = {"RNN": "RNN_" + getattr(module, "nonlinearity", "tanh").upper()}.get(
        type(module).__name__, type(module).__name__
    )
    directions = 2 if module.bidirectional else 1
    out_size = module.proj_size or module.hidden_size
    finals = [[], []]
    layer_input = x
    for layer in range(module.num_layers):
        outputs = []
        for d in range(directions):
            suffix = f"_l{layer}" + ("_reverse" if d else "")
            w = {k[: -len(suffix)]: v for k, v in params.items() if k.endswith(suffix)}
            state = [np.zeros((x.shape[1], out_size)), np.zeros((x.shape[1], module.hidden_size))]
            seen = [None] * x.shape[0]
            for t in reversed(range(x.shape[0])) if d else range(x.shape[0]):
                new = numpy_step(mode, layer_input[t], state, w)
                state = new + state[len(new) :]  # an RNN or GRU keeps no cell state
                seen[t] = state[0]
            outputs.append(np.stack(seen))
            finals[0].append(state[0])
            finals[1].append(state[1])
        layer_input = np.concatenate(outputs, axis=-1)
    return layer_input, np.stack(finals[0]), np.stack(finals[1])


CASES = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "bias": False}),
    ("RNN", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 2, "num_layers": 2}),
    ("GRU", {}), ("GRU", {"num_layers": 3, "bidirectional": True, "bias": False}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "kwargs"), CASES)
def test_layers_against_numpy(name, kwargs):
    module = getattr(nn, name)(3, 4, **kwargs).double()
    x = RNG.normal(size=(5, 2, 3))
    output, final = module(minitorch.tensor(x))
    expected, h_n, c_n = numpy_layers(module, x)
    np.testing.assert_allclose(output.detach().numpy(), expected, rtol=1e-12, atol=1e-14)
    h = final[0] if name == "LSTM" else final
    np.testing.assert_allclose(h.detach().numpy(), h_n, rtol=1e-12, atol=1e-14)
    if name == "LSTM":
        np.testing.assert_allclose(final[1].detach().numpy(), c_n, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_batch_first_and_unbatched_agree_with_the_default_layout(name):
    module = getattr(nn, name)(3, 4, num_layers=2).double()
    x = RNG.normal(size=(5, 2, 3))
    reference, _ = module(minitorch.tensor(x))
    module.batch_first = True
    swapped, _ = module(minitorch.tensor(x.transpose(1, 0, 2)))
    np.testing.assert_allclose(
        swapped.detach().numpy().transpose(1, 0, 2), reference.detach().numpy()
    )
    module.batch_first = False
    single, state = module(minitorch.tensor(x[:, 1]))
    np.testing.assert_allclose(single.detach().numpy(), reference.detach().numpy()[:, 1])
    assert (state[0] if name == "LSTM" else state).shape == (2, 4)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_gradients_against_central_differences(name):
    module = getattr(nn, name)(2, 3, bidirectional=True).double()
    x_values = RNG.normal(size=(3, 2, 2))
    h0 = RNG.normal(size=(2, 2, 3))
    states = (h0, RNG.normal(size=(2, 2, 3))) if name == "LSTM" else h0

    def loss(x, weight):
        with minitorch.no_grad():
            module.weight_hh_l0.copy_(weight)
        hx = tuple(minitorch.tensor(s) for s in states) if name == "LSTM" else minitorch.tensor(h0)
        out, _ = module(x, hx)
        return (out * out).sum()

    weight = module.weight_hh_l0.detach().clone()
    x = minitorch.tensor(x_values, requires_grad=True)
    loss(x, weight).backward()
    grad_x, grad_w = x.grad.numpy(), module.weight_hh_l0.grad.numpy()
    h = 1e-6
    for grad, array, call in [
        (grad_x, x_values, lambda a: loss(minitorch.tensor(a), weight)),
        (grad_w, weight.numpy(), lambda a: loss(minitorch.tensor(x_values), minitorch.tensor(a))),
    ]:
        numeric = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            up, down = array.copy(), array.copy()
            up[index] += h
            down[index] -= h
            numeric[index] = (call(up).item() - call(down).item()) / (2 * h)
        np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_against_numpy(name):
    cell = getattr(nn, name)(3, 4).double()
    x, h = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 4))
    c = RNG.normal(size=(2, 4))
    w = {k: v.detach().numpy() for k, v in cell.state_dict().items()}
    mode = {"RNNCell": "RNN_TANH", "LSTMCell": "LSTM", "GRUCell": "GRU"}[name]
    expected = numpy_step(mode, x, [h, c], w)
    hx = (minitorch.tensor(h), minitorch.tensor(c)) if name == "LSTMCell" else minitorch.tensor(h)
    result = cell(minitorch.tensor(x), hx)
    result = list(result) if name == "LSTMCell" else [result]
    for ours, theirs in zip(result, expected, strict=False):
        np.testing.assert_allclose(ours.detach().numpy(), theirs, rtol=1e-12)
    single = cell(minitorch.tensor(x[0]))
    assert (single[0] if name == "LSTMCell" else single).shape == (4,)


def test_parameter_names_shapes_and_init():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    shapes = {k: tuple(v.shape) for k, v in lstm.state_dict().items()}
    assert shapes["weight_ih_l0"] == (16, 3) and shapes["weight_hh_l0"] == (16, 2)
    assert shapes["weight_ih_l1_reverse"] == (16, 4) and shapes["weight_hr_l1_reverse"] == (2, 4)
    assert list(shapes)[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                "weight_hr_l0"]  # fmt: skip
    big = nn.GRU(50, 100)
    values = np.concatenate([p.detach().numpy().ravel() for p in big.parameters()])
    assert np.abs(values).max() <= 0.1 and np.abs(values).max() > 0.099


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [(lambda: nn.LSTM(3, 4)(minitorch.ones(2, 2, 2, 3)), ValueError,
      "LSTM: Expected input to be 2D or 3D, got 4D tensor instead"),
     (lambda: nn.GRU(3, 4)(minitorch.ones(2, 5)), RuntimeError,
      "input.size(-1) must be equal to input_size. Expected 3, got 5"),
     (lambda: nn.RNN(3, 4)(minitorch.ones(2, 1, 3), minitorch.zeros(2, 1, 4)), RuntimeError,
      "Expected hidden size (1, 1, 4), got [2, 1, 4]"),
     (lambda: nn.RNN(3, 4, nonlinearity="gelu"), ValueError,
      "Unknown nonlinearity 'gelu'. Select from 'tanh' or 'relu'."),
     (lambda: nn.LSTM(3, 4, proj_size=4), ValueError,
      "proj_size has to be smaller than hidden_size")],
)  # fmt: skip
def test_errors_are_torchs(call, error, message):
    with pytest.raises(error) as raised:
        call()
    assert str(raised.value) == message


def test_dropout_with_one_layer_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.5)


@pytest.mark.torch
@pytest.mark.parametrize(("name", "kwargs"), CASES + [("LSTM", {"batch_first": True,
                                                                "proj_size": 3})])  # fmt: skip
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layers_against_torch_with_copied_weights(torch, name, kwargs, dtype):
    ours = getattr(nn, name)(3, 4, **kwargs, dtype=getattr(minitorch, dtype))
    theirs = getattr(torch.nn, name)(3, 4, **kwargs, dtype=getattr(torch, dtype))
    assert repr(ours) == repr(theirs)
    theirs.load_state_dict(
        {k: torch.tensor(v.detach().numpy()) for k, v in ours.state_dict().items()}
    )
    x = RNG.normal(size=(5, 2, 3))
    results = []
    for lib, module in ((minitorch, ours), (torch, theirs)):
        xt = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        out, state = module(xt)
        states = state if isinstance(state, tuple) else (state,)
        (out.sum() + sum((s * s).sum() for s in states)).backward()
        values = [out.detach().numpy(), *(s.detach().numpy() for s in states), xt.grad.numpy()]
        results.append(values + [p.grad.numpy() for p in module.parameters()])
    tol = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_against_torch(torch, name):
    ours = getattr(nn, name)(3, 4).double()
    theirs = getattr(torch.nn, name)(3, 4).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict(
        {k: minitorch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    )
    x = RNG.normal(size=(2, 3))
    results = []
    for lib, cell in ((minitorch, ours), (torch, theirs)):
        xt = lib.tensor(x, requires_grad=True)
        out = cell(xt)
        outs = out if isinstance(out, tuple) else (out,)
        sum((o * o).sum() for o in outs).backward()
        results.append([*(o.detach().numpy() for o in outs), xt.grad.numpy(),
                        *(p.grad.numpy() for p in cell.parameters())])  # fmt: skip
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
