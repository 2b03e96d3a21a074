"""minitorch.autograd.detect_anomaly: a NaN gradient names the operation and the line of
the forward call, with torch 2.13's messages."""

import warnings

import pytest

import minitorch

ENABLED = "Anomaly Detection has been enabled. This mode will increase the runtime and should"


def nan_in_backward(lib):
    """sqrt's backward at 0 is 0 / 0 where the upstream gradient is 0."""
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt() * lib.tensor([0.0, 1.0])  # THE FORWARD CALL
    y.sum().backward()
    return x.grad


def test_nan_names_the_backward_and_the_forward_line():
    with pytest.warns(UserWarning, match=ENABLED):
        detector = minitorch.autograd.detect_anomaly()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with detector:
            assert minitorch.is_anomaly_enabled() and minitorch.is_anomaly_check_nan_enabled()
            with pytest.raises(RuntimeError) as error:
                nan_in_backward(minitorch)
    assert str(error.value) == "Function 'SqrtBackward0' returned nan values in its 0th output."
    (found,) = [str(w.message) for w in caught if "Error detected" in str(w.message)]
    assert found.startswith("Error detected in SqrtBackward0. Traceback of forward call that")
    assert "test_autograd_anomaly.py" in found and "# THE FORWARD CALL" in found
    assert "minitorch/ops" not in found  # the package's own frames are left out
    assert not minitorch.is_anomaly_enabled()


def test_without_detection_the_nan_flows_through():
    grad = nan_in_backward(minitorch)
    assert grad.isnan().tolist() == [True, False]
    with minitorch.autograd.set_detect_anomaly(True, check_nan=False):
        assert minitorch.is_anomaly_enabled() and not minitorch.is_anomaly_check_nan_enabled()
        assert nan_in_backward(minitorch).isnan().tolist() == [True, False]
    assert not minitorch.is_anomaly_enabled() and minitorch.is_anomaly_check_nan_enabled()
    minitorch.autograd.set_detect_anomaly(True)
    try:
        assert minitorch.is_anomaly_enabled()
    finally:
        minitorch.autograd.set_detect_anomaly(False)
    assert not minitorch.is_anomaly_enabled()


def test_user_functions_and_the_decorator_form():
    class Broken(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, grad):
            return grad * float("nan")

    with pytest.warns(UserWarning, match=ENABLED):

        @minitorch.autograd.detect_anomaly()
        def run():
            Broken.apply(minitorch.ones(2, requires_grad=True)).sum().backward()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Function 'BrokenBackward' returned nan values"):
            run()
    assert not minitorch.is_anomaly_enabled()


def test_messages_match_live_torch(torch):
    for lib in (torch, minitorch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                with pytest.raises(RuntimeError) as error:
                    nan_in_backward(lib)
        messages = [str(w.message).split("\n")[0] for w in caught]
        assert str(error.value) == "Function 'SqrtBackward0' returned nan values in its 0th output."
        assert messages[0].startswith(ENABLED)
        assert any(m.startswith("Error detected in SqrtBackward0. Traceback") for m in messages)
