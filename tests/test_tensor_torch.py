"""minitorch against PyTorch: introductory tensor code, promotion, strides and error texts.

Each case is a function of the library module (`lib`), run once with
minitorch and once with torch; results must agree in shape, strides, dtype
and values, and errors in type and message. Skipped when torch is missing.
"""

import contextlib
import io

import helpers
import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


def assert_same(function):
    """Same shape, strides, dtype and values, or the same error (its text with torch's names)."""
    helpers.assert_same(function, strides=True, torch_names=True)


CASES = {
    # creation and attributes
    "tensor_int": lambda lib: lib.tensor([[1, 2], [3, 4]]),
    "tensor_mixed": lambda lib: lib.tensor([[1, 2.5], [True, 4]]),
    "zeros_strides": lambda lib: lib.zeros(2, 0, 3).stride(),
    "arange_float": lambda lib: lib.arange(0, 1, 0.3),
    "eye": lambda lib: lib.eye(2, 3),
    "full_bool": lambda lib: lib.full((2,), True),
    "size": lambda lib: (lib.ones(2, 3).size(), lib.ones(2, 3).size(-1), lib.ones(2, 3).numel()),
    "element_size": lambda lib: [
        lib.ones(1, dtype=d).element_size() for d in (lib.float64, lib.bool)
    ],
    # views and strides
    "t_strides": lambda lib: lib.arange(6).view(2, 3).t(),
    "view_after_t": lambda lib: lib.arange(6).view(2, 3).t().view(3, 1, 2),
    "reshape_t": lambda lib: lib.arange(6).view(2, 3).t().reshape(6),
    "slice_offset": lambda lib: lib.arange(12).view(3, 4)[1:, ::2].storage_offset(),
    "slice_strides": lambda lib: lib.arange(24).view(2, 3, 4)[:, ::2, 1::2],
    "none_index": lambda lib: lib.ones(2, 3)[None, :, None],
    "unsqueeze_strides": lambda lib: lib.ones(2, 3).t().unsqueeze(0),
    "expand_strides": lambda lib: lib.ones(3, 1).expand(2, 3, 4),
    "squeeze": lambda lib: lib.ones(1, 3, 1).squeeze(),
    "is_contiguous": lambda lib: [
        lib.ones(2, 3).t().is_contiguous(),
        lib.ones(3, 1).expand(3, 2).is_contiguous(),
        lib.ones(1, 3).t().is_contiguous(),
    ],
    "flatten": lambda lib: lib.arange(24).view(2, 3, 4).permute(2, 0, 1).flatten(1),
    # promotion and arithmetic
    "int_div": lambda lib: lib.tensor([7, -7]) / lib.tensor([2, 2]),
    "int_floordiv": lambda lib: lib.tensor([7, -7]) // 2,
    "int_mod": lambda lib: lib.tensor([7, -7]) % 3,
    "float_mod": lambda lib: lib.tensor([7.5, -7.5]) % -2,
    "int_plus_float": lambda lib: lib.tensor([1, 2]) + 2.5,
    "bool_plus_int": lambda lib: lib.tensor([True, False]) + 1,
    "bool_plus_bool": lambda lib: lib.tensor([True, False]) + lib.tensor([True, True]),
    "f32_times_0dim_f64": lambda lib: lib.ones(2) * lib.tensor(2.0, dtype=lib.float64),
    "f32_times_f64": lambda lib: lib.ones(2) * lib.ones(2, dtype=lib.float64),
    "int_times_0dim_float": lambda lib: lib.tensor([1, 2]) * lib.tensor(0.5),
    "int_pow": lambda lib: lib.tensor([2, 3]) ** 2,
    "rpow": lambda lib: 2.5 ** lib.tensor([2, 3]),
    "comparison": lambda lib: lib.tensor([1, 2, 3]) < 2.5,
    # special values, compared as printed (NaN never equals itself; -0. prints with its sign)
    "relu_special": lambda lib: repr(lib.tensor([-1.0, -0.0, 0.0, 2.0, NAN]).relu()),
    "relu_int64_exact": lambda lib: lib.tensor([2**60 + 1, -3]).relu(),
    "abs_special": lambda lib: repr(lib.tensor([-0.0, -2.0, NAN, -INF]).abs()),
    "sqrt_special": lambda lib: repr(lib.tensor([-1.0, -0.0, 2.25, INF]).sqrt()),
    "div_by_zero": lambda lib: repr(lib.tensor([1.0, -1.0, 0.0]) / 0.0),
    "floordiv_by_zero": lambda lib: repr(lib.tensor([1.0, -1.0, 0.0]) // 0.0),
    "mod_special": lambda lib: repr(lib.tensor([5.0, -5.0, 1.0]) % lib.tensor([INF, INF, 0.0])),
    "pow_special": lambda lib: repr(lib.tensor([-8.0, 0.0, -0.0]) ** lib.tensor([1 / 3, -1, -1])),
    "max_min_nan": lambda lib: repr(
        [
            lib.maximum(lib.tensor([NAN, 1.0]), lib.tensor([1.0, NAN])),
            lib.minimum(lib.tensor([NAN, 1.0]), lib.tensor([1.0, NAN])),
            lib.tensor([1.0, NAN, 3.0]).argmax(),
            lib.tensor([1.0, NAN, 3.0]).min(),
        ]
    ),
    "compare_nan": lambda lib: [
        op(lib.tensor([NAN, 1.0]), lib.tensor([NAN, 1.0])).tolist()
        for op in (lib.eq, lib.ne, lib.lt, lib.le, lib.gt, lib.ge)
    ],
    "logical_nan": lambda lib: [
        lib.logical_and(lib.tensor([NAN, 0.0]), lib.tensor(1.0)).tolist(),
        lib.logical_or(lib.tensor([NAN, 0.0]), lib.tensor(0.0)).tolist(),
        lib.logical_not(lib.tensor([NAN, -0.0])).tolist(),
    ],
    "bitwise_int": lambda lib: [
        (lib.tensor([12, -1]) & 10).tolist(),
        (lib.tensor([12, -1]) | 10).tolist(),
        (lib.tensor([12, -1]) ^ 10).tolist(),
        (~lib.tensor([12, -1])).tolist(),
    ],
    "int_sum": lambda lib: lib.tensor([[True, True], [False, True]]).sum(0),
    "sum_rounds_once": lambda lib: lib.tensor([[1.0, -1.0], [1e-8, 1e-8]]).sum().item(),
    "int_prod": lambda lib: lib.tensor([2, 3]).prod(),
    "argmax_ties": lambda lib: lib.tensor([[1, 3, 3], [2, 2, 1]]).argmax(1),
    "max_dim": lambda lib: tuple(lib.tensor([[1.0, 3.0], [3.0, 1.0]]).max(1)),
    "argmax_keepdim": lambda lib: lib.ones(2, 3).argmax(keepdim=True),
    "clamp_int_float": lambda lib: lib.tensor([1, 5]).clamp(0.5),
    "where_scalars": lambda lib: lib.where(lib.tensor([True, False]), 1, 2.5),
    "where_method": lambda lib: lib.tensor([1, 2]).where(lib.tensor([True, False]), 0.5),
    "matmul_int": lambda lib: lib.tensor([[1, 2], [3, 4]]) @ lib.tensor([[5, 6], [7, 8]]),
    "matmul_vec": lambda lib: lib.tensor([1.0, 2.0]) @ lib.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "matmul_batch": lambda lib: lib.ones(2, 1, 2, 3) @ lib.ones(3, 3, 1),
    "mean_dims": lambda lib: lib.arange(24.0).view(2, 3, 4).mean((0, 2)),
    # in place
    "iadd_view": lambda lib: _in_place(lib),
    # errors
    "err_broadcast": lambda lib: lib.ones(2, 3) + lib.ones(2, 2),
    "err_mm": lambda lib: lib.ones(3, 5) @ lib.ones(2, 5),
    "err_dot": lambda lib: lib.ones(3) @ lib.ones(4),
    "err_mv": lambda lib: lib.ones(3, 5) @ lib.ones(4),
    "err_vm": lambda lib: lib.ones(4) @ lib.ones(3, 5),
    "err_bmm": lambda lib: lib.ones(2, 3, 5) @ lib.ones(2, 4, 5),
    "err_bmm_2d": lambda lib: lib.ones(2, 3, 5) @ lib.ones(4, 2),
    "err_mm_dtype": lambda lib: lib.ones(3, 5) @ lib.ones(5, 2, dtype=lib.float64),
    "err_mm_bool": lambda lib: lib.ones(2, 2, dtype=lib.bool) @ lib.ones(2, 2, dtype=lib.bool),
    "err_view": lambda lib: lib.ones(6).view(4, 4),
    "err_view_infer": lambda lib: lib.ones(2, 3).view(-1, -1),
    "err_view_strides": lambda lib: lib.ones(2, 3).t().view(6),
    "err_t": lambda lib: lib.ones(2, 3, 4).t(),
    "err_item": lambda lib: lib.ones(3).item(),
    "err_index": lambda lib: lib.ones(3)[5],
    "err_index_dim1": lambda lib: lib.ones(3, 2)[1, -3],
    "err_too_many": lambda lib: lib.ones(3, 2)[1, 1, 1],
    "err_step": lambda lib: lib.ones(3)[::-1],
    "err_mean_int": lambda lib: lib.tensor([1, 2]).mean(),
    "err_requires_grad": lambda lib: lib.tensor([1, 2]).requires_grad_(),
    "err_requires_grad_factory": lambda lib: lib.tensor([1, 2], requires_grad=True),
    "err_numpy_negative": lambda lib: lib.from_numpy(np.arange(3)[::-1]),
    "err_inplace_cast": lambda lib: lib.tensor([1, 2]).add_(1.5),
    "err_inplace_shape": lambda lib: lib.ones(2).add_(lib.ones(2, 2)),
    "err_inplace_bool": lambda lib: lib.tensor([True]).add_(1),
    "err_neg_bool": lambda lib: -lib.tensor([True]),
    "err_sub_bool": lambda lib: lib.tensor([True]) - lib.tensor([False]),
    "err_ragged": lambda lib: lib.tensor([[1, 2], [3]]),
    "err_permute_len": lambda lib: lib.ones(2, 3).permute(0),
    "err_permute_dup": lambda lib: lib.ones(2, 3).permute(0, 0),
    "err_dim": lambda lib: lib.ones(2, 3).sum(2),
    "err_expand": lambda lib: lib.ones(2, 3).expand(3, 3),
    "err_expand_fewer": lambda lib: lib.ones(2, 3).expand(3),
    "err_and_float": lambda lib: lib.tensor([1.5]) & lib.tensor([True]),
    "err_invert_float": lambda lib: ~lib.tensor([1.5]),
    "err_max_empty": lambda lib: lib.tensor([]).max(),
    "err_softmax_int": lambda lib: lib.tensor([1, 2]).softmax(0),
    "err_int_zero_div": lambda lib: lib.tensor([1]) // lib.tensor([0]),
    "err_neg_int_pow": lambda lib: lib.tensor([2, 3]) ** -1,
    "err_len_0d": lambda lib: len(lib.tensor(1)),
    "err_bool_ambiguous": lambda lib: bool(lib.ones(2)),
    "err_where_cond": lambda lib: lib.where(lib.tensor([1.0]), 1, 2),
    "err_mask_shape": lambda lib: lib.ones(2, 3)[lib.tensor([True, False, True])],
    "err_relu_bool": lambda lib: lib.tensor([True]).relu(),
    "err_argmax_bool": lambda lib: lib.tensor([True]).argmax(),
    "err_zeros_negative": lambda lib: lib.zeros(-1, 2),
    "err_setitem_shape": lambda lib: lib.zeros(2, 3).__setitem__(0, lib.ones(2)),
}


def _in_place(lib):
    a = lib.arange(6.0).view(2, 3)
    column = a[:, 1]
    column += 10
    a.t()[2].mul_(2)
    a[0] -= lib.tensor([1.0, 1.0, 1.0])
    return a, column, a._version


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_as_torch(name):
    assert_same(CASES[name])


INTRO_SNIPPET = """
x = torch.randn(2, 3)
print(x.shape, x.stride(), x.dtype, x.device)
y = x.t()
print(y.stride(), y.is_contiguous(), y.reshape(6).is_contiguous())
print(x.storage().data_ptr() == x.data_ptr())
data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
print(f"Tensor from list:\\n{x_data}")
np_array = np.array([[5, 6], [7, 8]])
x_np = torch.from_numpy(np_array)
print(f"Tensor from NumPy:\\n{x_np}")
shape = (2, 3,)
print(torch.rand(shape).shape, torch.ones(shape), torch.zeros(shape))
tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
x = torch.tensor([1, 2, 3])
y = torch.tensor([4, 5, 6])
print(x + y, torch.add(x, y), f"Element-wise result: {x * y}")
tensor_a = torch.tensor([[1, 2], [3, 4]])
tensor_b = torch.tensor([[5, 6], [7, 8]])
print(f"Matrix Product:\\n{tensor_a @ tensor_b}")
tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
x = torch.randn(4, 4)
y = x.view(16)
z = x.view(-1, 8)
print(f"Original: {x.size()}, View 1: {y.size()}, View 2: {z.size()}")
print(torch.cuda.is_available())
np_array[0, 0] = 50
print(x_np)
x_np[1, 1] = 80
print(np_array)
c = torch.arange(12).view(3, 4)
c.copy_(c * 2)
c.t_()
print(c, c.stride())
x = torch.ones(2, 2)
x.add_(1)
x.mul_(3)
x += 1
x -= torch.tensor([1., 2.])
print(x, x._version)
print(x.sum(), x.sum(0), x.mean(1, keepdim=True), x.max(), x.max(1), x.argmax())
print(torch.softmax(x, 1), torch.tensor([1.5, 2]).to(torch.float64))
print(torch.zeros(2, 0), torch.tensor([]), torch.ones(2, requires_grad=True))
X = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
w = torch.ones(1, 1) * 0.5
b = torch.zeros(1, 1)
pred = X @ w + b
print(pred, ((pred - X) ** 2).mean())
"""


@pytest.mark.torch
@pytest.mark.cpu_only  # prints devices and minitorch.cuda.is_available()
def test_intro_snippet_prints_like_torch():
    """The tensor code that primers on PyTorch show prints the same text (random values aside)."""
    outputs = []
    for lib in (minitorch, torch):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), np.errstate(all="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch's TypedStorage deprecation
                exec(INTRO_SNIPPET, {"torch": lib, "np": np})  # noqa: S102
        outputs.append(buffer.getvalue())
    ours, theirs = outputs[0], outputs[1].replace("torch.", "minitorch.")
    assert ours == theirs, "\n".join(
        f"- {a}\n+ {b}"
        for a, b in zip(ours.splitlines(), theirs.splitlines(), strict=False)
        if a != b
    )
