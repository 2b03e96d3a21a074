"""`nn.utils.rnn` (padding, packing, unpacking) and the recurrent layers on a
`PackedSequence`: values and gradients against torch's recorded answers
(tests/data/test_nn_utils_rnn.json, from `torch_answers`), with the layers' weights copied,
gradients against central differences, torch's errors, and a packed batch against each
sequence run alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from comparisons import leaf_answers
from helpers import assert_as_recorded, case_rng, recorded_answers

import minitorch
from minitorch import nn
from minitorch.nn.utils import rnn

LENGTHS = [3, 5, 1]


def sequences(lib, key, trailing=(2,)):
    rng = case_rng("sequences", key)
    return [lib.tensor(rng.normal(size=(n, *trailing)), requires_grad=True) for n in LENGTHS]


def padded(lib, key, batch_first=False, lengths=(5, 3, 2)):
    rng = case_rng("padded", key)
    shape = (len(lengths), max(lengths), 2) if batch_first else (max(lengths), len(lengths), 2)
    return lib.tensor(rng.normal(size=shape), requires_grad=True)


# Each utility case: (what it gives, the leaves it differentiates), from `lib`.
def pad_case(options):
    def case(lib):
        seqs = sequences(lib, repr(options))
        return [lib.nn.utils.rnn.pad_sequence(seqs, **options)], seqs

    return case


def pack_case(lengths, batch_first=False, enforce_sorted=True, total_length=None, as_tensor=False):
    def case(lib):
        x = padded(lib, repr(lengths), batch_first, lengths)
        given = lib.tensor(lengths, device="cpu") if as_tensor else list(lengths)
        p = lib.nn.utils.rnn.pack_padded_sequence(x, given, batch_first, enforce_sorted)
        back, sizes = lib.nn.utils.rnn.pad_packed_sequence(
            p, batch_first, padding_value=-2.0, total_length=total_length
        )
        indices = [i for i in (p.sorted_indices, p.unsorted_indices) if i is not None]
        # batch_sizes and the lengths stay on the CPU, as torch's (see
        # test_batch_sizes_and_lengths_stay_on_the_cpu): read here beside the data
        host_side = [p.batch_sizes.to(x.device), sizes.to(x.device)]
        return [p.data, host_side[0], *indices, back, host_side[1]], [x]

    return case


def pack_sequence_case(enforce_sorted):
    def case(lib):
        seqs = sequences(lib, enforce_sorted, trailing=())
        if enforce_sorted:
            seqs = sorted(seqs, key=len, reverse=True)
        p = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=enforce_sorted)
        batch_sizes = p.batch_sizes.to(p.data.device)  # on the CPU, as torch's
        return [p.data, batch_sizes, *lib.nn.utils.rnn.unpack_sequence(p)], seqs

    return case


UTILITY_CASES = {
    "pad": pad_case({}),
    "pad batch_first value": pad_case({"batch_first": True, "padding_value": 7.5}),
    "pad left": pad_case({"padding_side": "left", "padding_value": -1.0}),
    "pack sorted": pack_case((5, 3, 2)),
    "pack sorted batch_first tensor lengths": pack_case((5, 5, 1), True, as_tensor=True),
    "pack unsorted": pack_case((2, 5, 3), enforce_sorted=False, total_length=7),
    "pack unsorted batch_first": pack_case((1, 4, 2, 3), True, False),
    "pack_sequence sorted": pack_sequence_case(True),
    "pack_sequence unsorted": pack_sequence_case(False),
}

# Each layer case: (layer, options, the padded batch's lengths, enforce_sorted, given states).
LAYER_CASES = {
    "RNN unsorted h0": ("RNN", {}, (2, 5, 3), False, True),
    "RNN relu 2 layers no bias": ("RNN", {"nonlinearity": "relu", "num_layers": 2,
                                          "bias": False}, (5, 4, 1), True, False),
    "LSTM bidirectional 2 layers batch_first": ("LSTM", {"num_layers": 2, "bidirectional": True,
                                                         "batch_first": True},
                                                (5, 3, 1), True, False),
    "LSTM unsorted proj h0": ("LSTM", {"proj_size": 2}, (3, 1, 5), False, True),
    "GRU bidirectional unsorted h0": ("GRU", {"bidirectional": True}, (2, 5, 4), False, True),
    "GRU 2 layers": ("GRU", {"num_layers": 2}, (4, 4, 2), True, False),
}  # fmt: skip


def layer_weights(lib, module, key):
    rng = case_rng("weights", key)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor(rng.uniform(-0.6, 0.6, size=tuple(p.shape))))


def layer_case(key):
    name, options, lengths, enforce_sorted, with_h0 = LAYER_CASES[key]

    def case(lib):
        module = getattr(lib.nn, name)(3, 4, **options).double()
        layer_weights(lib, module, key)
        batch_first = options.get("batch_first", False)
        rng = case_rng("layer input", key)
        shape = (3, 5, 3) if batch_first else (5, 3, 3)
        x = lib.tensor(rng.normal(size=shape), requires_grad=True)
        p = lib.nn.utils.rnn.pack_padded_sequence(x, list(lengths), batch_first, enforce_sorted)
        leaves = [x]
        hx = None
        if with_h0:
            layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
            sizes = [options.get("proj_size") or 4] + ([4] if name == "LSTM" else [])
            hx = [lib.tensor(rng.normal(size=(layers, 3, s)), requires_grad=True) for s in sizes]
            leaves += hx
            hx = tuple(hx) if name == "LSTM" else hx[0]
        out, state = module(p, hx)
        assert isinstance(out, lib.nn.utils.rnn.PackedSequence)
        states = list(state) if name == "LSTM" else [state]
        back, _ = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first)
        batch_sizes = out.batch_sizes.to(out.data.device)  # on the CPU, as torch's
        return [out.data, batch_sizes, back, *states], leaves + list(module.parameters())

    return case


CASES = {**UTILITY_CASES, **{key: layer_case(key) for key in LAYER_CASES}}


def answer(lib, key) -> dict:
    """The case's outputs and the gradients of its leaves (`leaf_answers`)."""
    return leaf_answers(lib, *CASES[key](lib))


def torch_answers(torch) -> dict[str, dict]:
    """What torch gives for each case of CASES (scripts/record_torch_answers.py)."""
    return {key: answer(torch, key) for key in CASES}


ANSWERS = recorded_answers(__file__)


def test_batch_sizes_and_lengths_stay_on_the_cpu():
    """As in torch: a packed sequence's batch_sizes and the lengths that pad_packed_sequence
    gives are CPU tensors whatever the data's device; the sorting indices are on the data's."""
    x = minitorch.zeros(3, 4, 2)  # on the default device: cuda in a run on cuda
    packed = minitorch.nn.utils.rnn.pack_padded_sequence(x, [1, 3, 2, 1], enforce_sorted=False)
    assert packed.data.device == x.device and packed.sorted_indices.device == x.device
    _, lengths = minitorch.nn.utils.rnn.pad_packed_sequence(packed)
    assert packed.batch_sizes.device.type == "cpu" and lengths.device.type == "cpu"
    assert packed.batch_sizes.tolist() == [4, 2, 1] and lengths.tolist() == [1, 3, 2, 1]


@pytest.mark.parametrize("key", CASES)
def test_case_is_torchs(key):
    assert_as_recorded(answer(minitorch, key), ANSWERS[key], key)


@pytest.mark.torch
@pytest.mark.parametrize("key", CASES)
def test_case_against_live_torch(torch, key):
    assert_as_recorded(answer(minitorch, key), answer(torch, key), key)


def central_difference(f, array: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """$\\partial f / \\partial a_i \\approx (f(a + h e_i) - f(a - h e_i)) / 2h$ for each $i$."""
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        step = np.zeros_like(array)
        step[index] = h
        grad[index] = (f(array + step) - f(array - step)) / (2 * h)
    return grad


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_packed_gradients_against_central_differences(name):
    module = getattr(nn, name)(2, 3, bidirectional=True).double()
    rng = case_rng("central", name)
    x_values, lengths = rng.normal(size=(4, 3, 2)), [2, 4, 1]
    weight = module.weight_hh_l0_reverse.detach().clone()

    def loss(x, w):
        with minitorch.no_grad():
            module.weight_hh_l0_reverse.copy_(w)
        p = rnn.pack_padded_sequence(x, lengths, enforce_sorted=False)
        out, state = module(p)
        h = state[0] if name == "LSTM" else state
        return (out.data * out.data).sum() + (h * h * h).sum()

    x = minitorch.tensor(x_values, requires_grad=True)
    loss(x, weight).backward()
    grad_w = module.weight_hh_l0_reverse.grad.numpy()
    numeric_x = central_difference(lambda a: loss(minitorch.tensor(a), weight).item(), x_values)
    numeric_w = central_difference(
        lambda a: loss(minitorch.tensor(x_values), minitorch.tensor(a)).item(), weight.numpy()
    )
    np.testing.assert_allclose(x.grad.numpy(), numeric_x, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(grad_w, numeric_w, rtol=1e-5, atol=1e-7)
    assert np.all(x.grad.numpy()[4 - 2 :, 0] == 0)  # padding gets no gradient


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_a_packed_batch_is_each_sequence_alone(name):
    module = getattr(nn, name)(2, 3, num_layers=2, bidirectional=True).double()
    seqs = [minitorch.tensor(case_rng("alone", name, n).normal(size=(n, 2))) for n in (2, 4, 3)]
    out, state = module(rnn.pack_sequence(seqs, enforce_sorted=False))
    h = state[0] if name == "LSTM" else state
    for b, (seq, got) in enumerate(zip(seqs, rnn.unpack_sequence(out), strict=True)):
        alone, alone_state = module(seq)
        np.testing.assert_allclose(got.detach().numpy(), alone.detach().numpy(), rtol=1e-12)
        alone_h = alone_state[0] if name == "LSTM" else alone_state
        np.testing.assert_allclose(h[:, b].detach().numpy(), alone_h.detach().numpy(), rtol=1e-12)


def test_packed_sequence_moves_and_converts():
    p = rnn.pack_sequence([minitorch.ones(2, 1), minitorch.ones(3, 1)], enforce_sorted=False)
    assert p.to(minitorch.float32) is p and p.to(p.data.device) is p
    doubled = p.double()
    assert (
        doubled.data.dtype == minitorch.float64 and doubled.float().data.dtype == minitorch.float32
    )
    assert doubled.batch_sizes is p.batch_sizes and doubled.sorted_indices.tolist() == [1, 0]
    assert doubled.unsorted_indices.tolist() == [1, 0] and doubled.is_cuda == p.data.is_cuda
    on_cpu = p.cpu()
    assert on_cpu.data.device.type == "cpu" and on_cpu.sorted_indices.device.type == "cpu"
    assert on_cpu.cpu() is on_cpu
    for method, dtype in [("long", "int64"), ("int", "int32"), ("short", "int16"),
                          ("char", "int8"), ("byte", "uint8")]:  # fmt: skip
        converted = getattr(p, method)()
        assert converted.data.dtype == getattr(minitorch, dtype) and converted.data.sum() == 5
        assert converted.sorted_indices.dtype == minitorch.int64
    assert rnn.PackedSequence(
        p.data, p.batch_sizes, minitorch.tensor([2, 0, 1])
    ).unsorted_indices.tolist() == [1, 2, 0]  # noqa: E501
    assert repr(rnn.pack_sequence([minitorch.tensor([1.0], device="cpu")])) == (
        "PackedSequence(data=tensor([1.]), batch_sizes=tensor([1]), sorted_indices=None, "
        "unsorted_indices=None)"
    )


def test_unpad_sequence_takes_each_length():
    x = minitorch.arange(6.0).reshape(3, 2)
    first, second = rnn.unpad_sequence(x, minitorch.tensor([3, 1]))
    assert first.tolist() == [0.0, 2.0, 4.0] and second.tolist() == [1.0]


X = minitorch.ones(3, 2, 1)
SORT_MESSAGE = (
    "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
    "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
    "requirement if you do not need ONNX exportability."
)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [(lambda: rnn.pack_padded_sequence(X, [2, 3]), RuntimeError, SORT_MESSAGE),
     (lambda: rnn.pack_sequence([minitorch.ones(2), minitorch.ones(3)]), RuntimeError,
      SORT_MESSAGE),
     (lambda: rnn.pack_padded_sequence(X, [3, 0]), RuntimeError,
      "Length of all samples has to be greater than 0, but found an element in 'lengths' "
      "that is <= 0"),
     (lambda: rnn.pack_padded_sequence(X, [3, -1], enforce_sorted=False), RuntimeError,
      "Length of all samples has to be greater than 0, but found an element in 'lengths' "
      "that is <= 0"),
     (lambda: rnn.pack_padded_sequence(X, [3, 2, 1]), RuntimeError,
      "Expected `len(lengths)` to be equal to batch_size, but got 3 (batch_size=2)"),
     (lambda: rnn.pack_padded_sequence(X, minitorch.tensor([[3, 2]], device="cpu")),
      RuntimeError,
      "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"),
     (lambda: rnn.pad_packed_sequence(rnn.pack_padded_sequence(X, [3, 2]), total_length=2),
      ValueError, "Expected total_length to be at least the length of the longest sequence in "
      "input, but got total_length=2 and max sequence length being 3"),
     (lambda: rnn.pad_sequence([minitorch.ones(2)], padding_side="mid"), RuntimeError,
      "Expected padding_side to be one of left or right, but got mid."),
     (lambda: rnn.pad_sequence([]), RuntimeError, "received an empty list of sequences"),
     (lambda: nn.RNN(1, 2)(rnn.pack_padded_sequence(X, [3, 2]), minitorch.zeros(1, 3, 2)),
      RuntimeError, "Expected hidden size (1, 2, 2), got [1, 3, 2]")],
)  # fmt: skip
def test_errors_are_torchs(call, error, message):
    with pytest.raises(error) as raised:
        call()
    assert str(raised.value) == message


def test_documented_differences_raise_clear_errors():
    """torch reads past the padded input for a length longer than it, and reports sequences
    of different trailing shapes as a broadcast failure: both are clear errors here."""
    with pytest.raises(RuntimeError, match="Found a length of 4 in 'lengths' but the padded"):
        rnn.pack_padded_sequence(X, [4, 2])
    with pytest.raises(RuntimeError, match=r"trailing shape \[\] of the first, but one has \[1\]"):
        rnn.pad_sequence([minitorch.ones(2), minitorch.ones(3, 1)])
