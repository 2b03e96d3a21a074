"""minitorch.save / minitorch.load: safetensors files that round-trip, that NumPy and PyTorch
read (a state_dict saved here loads into a torch model, and the other way round), and that
are never unpickled."""

from __future__ import annotations

import io
import json
import pickle
import struct

import numpy as np
import pytest
import safetensors.numpy

import minitorch
from minitorch import nn

torch = pytest.importorskip("torch")
safetensors_torch = pytest.importorskip("safetensors.torch")
pytestmark = pytest.mark.torch


def ours_and_torch_models():
    ours = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    return ours, theirs


def same_outputs(ours, theirs):
    x = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        ours(minitorch.tensor(x)).detach().numpy(),
        theirs(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_tensor_round_trip_keeps_values_dtype_and_shape(tmp_path):
    for t in [
        minitorch.tensor([[1.5, -2.0], [3.0, 4.0]]),
        minitorch.tensor([1.0, 2.0], dtype=minitorch.float64),
        minitorch.tensor([[1, 2, 3]]),
        minitorch.tensor([True, False]),
        minitorch.tensor(7.0),
        minitorch.arange(6.0).view(2, 3).T,  # not contiguous
    ]:
        path = tmp_path / "t.safetensors"
        minitorch.save(t, path)
        back = minitorch.load(path)
        assert back.dtype is t.dtype and back.shape == t.shape
        assert back.tolist() == t.tolist()


def test_nested_dict_round_trip_with_plain_values():
    state = {
        "model": {"0.weight": minitorch.ones(2, 2), "0.bias": minitorch.zeros(2)},
        "optimizer": {
            "state": {0: {"momentum_buffer": minitorch.tensor([0.5, 0.25])}, 1: {}},
            "param_groups": [{"lr": 0.1, "params": [0, 1], "nesterov": False, "eps": None}],
        },
        "epoch": 3,
        "betas": (0.9, 0.999),
        "name": "run a.b",
    }
    buffer = io.BytesIO()
    minitorch.save(state, buffer)
    back = minitorch.load(io.BytesIO(buffer.getvalue()))
    assert back["model"]["0.weight"].tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert back["optimizer"]["state"][0]["momentum_buffer"].tolist() == [0.5, 0.25]
    assert back["optimizer"]["state"][1] == {}
    assert back["optimizer"]["param_groups"] == state["optimizer"]["param_groups"]
    assert back["epoch"] == 3 and back["betas"] == (0.9, 0.999) and back["name"] == "run a.b"
    assert list(back) == list(state), "key order is kept"


def test_state_dict_saved_here_opens_in_numpy_and_loads_into_torch(tmp_path):
    ours, theirs = ours_and_torch_models()
    ours[0].weight.grad = minitorch.ones(4, 3)  # ignored: a state_dict holds values only
    path = tmp_path / "model.safetensors"
    minitorch.save(ours.state_dict(), path)
    arrays = safetensors.numpy.load_file(path)
    assert sorted(arrays) == sorted(ours.state_dict())
    np.testing.assert_array_equal(arrays["0.weight"], ours[0].weight.detach().numpy())
    result = theirs.load_state_dict(safetensors_torch.load_file(path))
    assert not result.missing_keys and not result.unexpected_keys
    same_outputs(ours, theirs)


def test_state_dict_saved_by_torch_loads_here(tmp_path):
    ours, theirs = ours_and_torch_models()
    path = tmp_path / "torch.safetensors"
    safetensors_torch.save_file(theirs.state_dict(), path)
    loaded = minitorch.load(path)
    assert all(isinstance(v, minitorch.Tensor) for v in loaded.values())
    ours.load_state_dict(loaded)
    same_outputs(ours, theirs)


def test_model_round_trip_here(tmp_path):
    first, _ = ours_and_torch_models()
    second, _ = ours_and_torch_models()
    minitorch.save(first.state_dict(), tmp_path / "m.safetensors")
    second.load_state_dict(minitorch.load(tmp_path / "m.safetensors"))
    x = minitorch.ones(2, 3)
    assert second(x).tolist() == first(x).tolist()


def test_a_torch_pickle_is_refused_with_how_to_convert_it(tmp_path):
    _, theirs = ours_and_torch_models()
    for name, write in [
        ("zip.pt", lambda p: torch.save(theirs.state_dict(), p)),
        (
            "legacy.pt",
            lambda p: torch.save(theirs.state_dict(), p, _use_new_zipfile_serialization=False),
        ),
        ("plain.pkl", lambda p: p.write_bytes(pickle.dumps({"a": 1}))),
    ]:
        path = tmp_path / name
        write(path)
        with pytest.raises(RuntimeError, match="safetensors.torch.save_file") as error:
            minitorch.load(path)
        assert "never unpickles" in str(error.value)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x05\x00", b"\xff\x00\x00\x00\x00\x00\x00\x00{}", b"\x02\x00\x00\x00\x00\x00\x00\x00[]",
     b"\x0a\x00\x00\x00\x00\x00\x00\x00not json!!"],
)  # fmt: skip
def test_a_corrupt_file_is_a_clear_error(tmp_path, data):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(RuntimeError, match="is not a valid safetensors file"):
        minitorch.load(path)


def test_truncated_tensor_data_is_a_clear_error(tmp_path):
    path = tmp_path / "cut.safetensors"
    minitorch.save({"w": minitorch.ones(10)}, path)
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(RuntimeError, match="is not a valid safetensors file"):
        minitorch.load(path)


def test_unsupported_values_are_refused():
    with pytest.raises(TypeError, match="got object"):
        minitorch.save({"x": object()}, io.BytesIO())
    with pytest.raises(TypeError, match="dict keys must be strings or ints"):
        minitorch.save({(1, 2): minitorch.ones(1)}, io.BytesIO())


def test_a_header_whose_length_starts_with_the_pickle_byte_still_loads(tmp_path):
    # 0x180 = 384 header bytes: the file starts with b"\x80\x01", which is also how a pickle
    # starts; the safetensors format lets a header be padded with spaces to any length.
    header = json.dumps({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})
    header = header.encode().ljust(0x180, b" ")
    path = tmp_path / "padded.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + np.float32([1.5, -2]).tobytes())
    assert path.read_bytes()[:1] == b"\x80"
    loaded = minitorch.load(path)
    assert loaded["x"].tolist() == [1.5, -2.0]
