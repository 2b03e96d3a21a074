"""Joining, splitting, rearranging and einsum against PyTorch: values, views, names, gradients."""

import numpy as np
import pytest
from comparisons import compare
from helpers import floats, same_error
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch

# every test here compares with torch live (comparisons.compare)
pytest.importorskip(
    "torch", reason="PyTorch is not installed: pip install -e '.[test,torch]' compares with it"
)

CASES = {
    "cat": lambda lib, a, b: lib.cat([a, b * 2], 1),
    "cat_neg_dim": lambda lib, a, b: lib.concat((a, b), -1),
    "cat_empty_vector": lambda lib, a, b: lib.cat([a, lib.tensor([]).to(a.dtype), b], 0),
    "stack": lambda lib, a, b: lib.stack([a, b], 1),
    "hstack": lambda lib, a, b: lib.hstack([a, b]),
    "vstack": lambda lib, a, b: lib.vstack([a, b]),
    "dstack": lambda lib, a, b: lib.dstack([a, b]),
    "hstack_vectors": lambda lib, a, b: lib.hstack([a[0], b[1]]),
    "vstack_vectors": lambda lib, a, b: lib.vstack([a[0], b[1]]),
    "narrow": lambda lib, a, b: a.narrow(1, 1, 1) * b.narrow(-1, -1, 1),
    "split_size": lambda lib, a, b: a.split(2, 0),
    "split_list": lambda lib, a, b: lib.split(b, [1, 0, 2], 1),
    "chunk": lambda lib, a, b: a.chunk(2, 0),
    "tensor_split": lambda lib, a, b: lib.tensor_split(a, 2, 0),
    "tensor_split_at": lambda lib, a, b: a.tensor_split([1, 4], 1),
    "unbind": lambda lib, a, b: b.unbind(1),
    "repeat": lambda lib, a, b: a.repeat(2, 1, 3),
    "tile": lambda lib, a, b: lib.tile(a, (2,)),
    "repeat_interleave": lambda lib, a, b: a.repeat_interleave(2, dim=0),
    "repeat_interleave_flat": lambda lib, a, b: lib.repeat_interleave(b, 3),
    "flip": lambda lib, a, b: a.flip(0, 1),
    "flip_list": lambda lib, a, b: lib.flip(b, [-1]),
    "roll": lambda lib, a, b: a.roll(1, 0),
    "roll_dims": lambda lib, a, b: lib.roll(a, (1, -3), (0, 1)),
    "roll_flat": lambda lib, a, b: b.roll(4),
    "tril": lambda lib, a, b: a.tril(),
    "triu": lambda lib, a, b: lib.triu(a, -1),
    "diagonal": lambda lib, a, b: a.diagonal(),
    "diagonal_offset": lambda lib, a, b: lib.diagonal(a, -1),
    "diag_matrix": lambda lib, a, b: lib.diag(a, 1),
    "diag_vector": lambda lib, a, b: lib.diag(b[0], -1),
    "outer": lambda lib, a, b: lib.outer(a[:, 0], b[0]),
    "bmm": lambda lib, a, b: lib.bmm(a.unsqueeze(0), b.t().unsqueeze(0)),
    "addmm": lambda lib, a, b: lib.addmm(a[0, :2], a, b.t(), beta=0.5, alpha=2),
    "addmm_matrix": lambda lib, a, b: (a.t() @ b).addmm(a.t(), b),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("permuted", [False, True])
def test_like_torch(name, permuted):
    compare(CASES[name], [floats((2, 3), 11), floats((2, 3), 12)], permuted=permuted)


def test_dtypes_promote_like_torch():
    ints, halves = np.array([[1, 2], [3, 4]]), np.array([[0.5, 1.5], [2.5, 3.5]])
    compare(lambda lib, a, b: lib.cat([a, b]), [ints, halves])
    compare(lambda lib, a, b: (lib.stack([a, a]), a.flip(0), a.tril(), a.roll(1)), [ints, halves])
    compare(lambda lib, a, b: a.repeat(1, 2).triu(), [ints > 2, halves])


def test_views_share_memory_like_torch():
    """narrow, split, chunk, unbind and diagonal are views: a write through them shows."""
    x = minitorch.zeros(3, 3)
    x.narrow(0, 1, 1)[0, 0] = 1.0
    x.chunk(3, 1)[2][0, 0] = 2.0
    x.unbind(0)[2][1] = 3.0
    x.diagonal()[0] += 4.0
    x.split([1, 2], 1)[1][2, 1] = 5.0
    assert x.tolist() == [[4.0, 0.0, 2.0], [1.0, 0.0, 0.0], [0.0, 3.0, 5.0]]
    assert x.diagonal(1).stride() == (4,) and x.narrow(1, 1, 2).storage_offset() == 1


EINSUM = {
    "matmul": ("ij,jk->ik", [(2, 3), (3, 4)]),
    "matmul_transposed": ("ij,kj->ik", [(2, 3), (4, 3)]),
    "batch_matmul": ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    "outer": ("i,j->ij", [(3,), (2,)]),
    "dot": ("i,i->", [(3,), (3,)]),
    "hadamard": ("ij,ij->ij", [(2, 3), (2, 3)]),
    "trace": ("ii->", [(3, 3)]),
    "diagonal": ("ii->i", [(3, 3)]),
    "transpose": ("ij->ji", [(2, 3)]),
    "sum_rows": ("ij->j", [(2, 3)]),
    "sum_all": ("ijk->", [(2, 3, 2)]),
    "implicit": ("ij,jk", [(2, 3), (3, 2)]),
    "matrix_vector": ("ijk,k->ij", [(2, 3, 4), (4,)]),
    "three_operands": ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    "bilinear": ("bn,anm,bm->ba", [(2, 3), (4, 3, 2), (2, 2)]),
    "summed_alone": ("ij,k->i", [(2, 3), (4,)]),
    "ellipsis_batch_matmul": ("...ij,...jk->...ik", [(3, 1, 2, 3), (2, 3, 2)]),
    "ellipsis_sum_last": ("...i->...", [(2, 3, 2)]),
    "ellipsis_implicit": ("...ij,...j", [(2, 2, 3), (3,)]),
    "ellipsis_summed": ("...ij->ij", [(2, 2, 3)]),
    "ellipsis_middle": ("a...b->ba...", [(2, 3, 1, 2)]),
    "ellipsis_diagonal": ("i...i->...i", [(3, 2, 3)]),
    "ellipsis_empty": ("...ij,jk->...ik", [(2, 3), (3, 2)]),
}


# torch's einsum ends these with a node of its own way of computing them (a permute, a view)
OTHER_LAST_NODE = {"diagonal", "summed_alone", "ellipsis_batch_matmul", "ellipsis_diagonal"}


@pytest.mark.parametrize("name", EINSUM)
def test_einsum_like_torch(name):
    equation, shapes = EINSUM[name]
    arrays = [floats(shape, seed) for seed, shape in enumerate(shapes)]
    compare(lambda lib, *xs: lib.einsum(equation, *xs), arrays, names=name not in OTHER_LAST_NODE)


def test_einsum_takes_a_list_and_integers():
    compare(lambda lib, a, b: lib.einsum("ij,jk->ik", [a, b]), [np.eye(2, dtype=np.int64)] * 2)


def test_einsum_sublist_form():
    """`einsum(a, [0, 1], b, [1, 2], [0, 2])`: 0-25 name A-Z, 26-51 a-z, `...` the ellipsis."""
    arrays = [floats((2, 3), 0), floats((3, 2), 1)]
    compare(lambda lib, a, b: lib.einsum(a, [0, 27], b, [27, 2], [0, 2]), arrays)
    compare(lambda lib, a, b: lib.einsum(a, [Ellipsis, 1], b, [1, 2]), arrays)


ERRORS = {
    "cat_empty_list": lambda lib: lib.cat([]),
    "cat_ndim": lambda lib: lib.cat([lib.ones(2, 2), lib.ones(2)]),
    "cat_sizes": lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3, 2)], 1),
    "cat_zero_dim": lambda lib: lib.cat([lib.tensor(1.0)]),
    "cat_dim": lambda lib: lib.cat([lib.ones(2)], 1),
    "stack_shapes": lambda lib: lib.stack([lib.ones(2, 2), lib.ones(2)]),
    "narrow_length": lambda lib: lib.ones(3).narrow(0, 2, 2),
    "narrow_zero_dim": lambda lib: lib.tensor(1.0).narrow(0, 0, 1),
    "split_sizes": lambda lib: lib.ones(3).split([1, 1]),
    "repeat_few": lambda lib: lib.ones(2, 2).repeat(2),
    "diagonal_same": lambda lib: lib.ones(2, 2).diagonal(0, 1, 1),
    "tril_vector": lambda lib: lib.ones(2).tril(),
    "bmm_ndim": lambda lib: lib.bmm(lib.ones(2, 2), lib.ones(2, 2)),
    "bmm_sizes": lambda lib: lib.bmm(lib.ones(2, 2, 3), lib.ones(2, 2, 2)),
    "roll_align": lambda lib: lib.ones(2, 2).roll((1, 1), 0),
    "chunk_zero": lambda lib: lib.ones(2).chunk(0),
    "einsum_count": lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 2)),
    "einsum_ndim": lambda lib: lib.einsum("ijk->i", lib.ones(2, 2)),
    "einsum_output": lambda lib: lib.einsum("ij->k", lib.ones(2, 2)),
    "einsum_output_twice": lambda lib: lib.einsum("ij->jj", lib.ones(2, 2)),
    "einsum_two_ellipses": lambda lib: lib.einsum("...i...", lib.ones(2, 2)),
    "einsum_dot_alone": lambda lib: lib.einsum("..i->i", lib.ones(2, 2)),
    "einsum_output_dot": lambda lib: lib.einsum("ij->i.j", lib.ones(2, 2)),
    "einsum_output_two_ellipses": lambda lib: lib.einsum("...->......", lib.ones(2)),
    "einsum_ellipsis_ndim": lambda lib: lib.einsum("...ij", lib.ones(2)),
    "einsum_ellipsis_broadcast": lambda lib: lib.einsum(
        "...ij,...jk->...ik", lib.ones(5, 2, 3, 4), lib.ones(3, 4, 5)
    ),
    "einsum_subscript": lambda lib: lib.einsum("i1->i", lib.ones(2, 2)),
    "einsum_output_subscript": lambda lib: lib.einsum("ij->ik->k", lib.ones(2, 2)),
    "einsum_sizes": lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 3), lib.ones(4, 4)),
    "einsum_repeated_sizes": lambda lib: lib.einsum("ii->i", lib.ones(2, 3)),
    "einsum_dtypes": lambda lib: lib.einsum("i,i->", lib.ones(2), lib.ones(2, dtype=lib.int64)),
    "einsum_no_operands": lambda lib: lib.einsum("ij"),
    "einsum_sublist_range": lambda lib: lib.einsum(lib.ones(2), [52]),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_like_torch(name):
    same_error(ERRORS[name])


@settings(max_examples=8, deadline=None)
@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.integers(0, 2),
    st.integers(-4, 4),
)
def test_cat_roll_flip_on_any_shape(shape, dim, shift):
    """Joins, rolls and flips along any dim of any small shape, also non-contiguous inputs."""
    dim = dim % len(shape)
    a, b = floats(tuple(shape), 1), floats(tuple(shape), 2)
    compare(lambda lib, x, y: lib.cat([x, y], dim), [a, b], permuted=True, central=False)
    compare(lambda lib, x, y: (x.roll(shift, dim), y.flip(dim)), [a, b], central=False)
