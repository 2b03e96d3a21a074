"""Module 0, task 0.3: the higher-order functions of `minitorch.operators` (`map_list`,
`zip_with`, `reduce`) and the list helpers built on them, against Python's builtins.
"""

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from operator_checks import (
    FEW,
    moderate,
)

from minitorch.operators import (
    add,
    add_lists,
    map_list,
    neg_list,
    prod_list,
    reduce,
    sum_list,
    zip_with,
)

# ---------------------------------------------------------------------------
# Task 0.3: higher-order functions
# ---------------------------------------------------------------------------

float_lists = st.lists(st.floats(min_value=-100.0, max_value=100.0), max_size=20)


@pytest.mark.task0_3
@FEW
@given(float_lists)
def test_map_list_matches_comprehension(values: list[float]) -> None:
    def square_plus_one(x: float) -> float:
        return x * x + 1.0

    assert map_list(square_plus_one)(values) == [x * x + 1.0 for x in values]
    # any iterable, not only lists
    assert map_list(square_plus_one)(iter(values)) == [x * x + 1.0 for x in values]


@pytest.mark.task0_3
@FEW
@given(st.lists(st.tuples(moderate, moderate), max_size=20))
def test_zip_with_matches_builtin_map(pairs: list[tuple[float, float]]) -> None:
    xs = [x for x, _ in pairs]
    ys = [y for _, y in pairs]

    def weighted(x: float, y: float) -> float:
        return 2.0 * x - y  # not symmetric: swapped arguments would show

    assert zip_with(weighted)(xs, ys) == list(map(weighted, xs, ys))
    assert zip_with(weighted)(iter(xs), iter(ys)) == list(map(weighted, xs, ys))


@pytest.mark.task0_3
@pytest.mark.parametrize(("n_x", "n_y"), [(2, 3), (3, 2), (0, 1)])
def test_zip_with_refuses_lists_of_different_lengths(n_x: int, n_y: int) -> None:
    with pytest.raises(ValueError, match="length"):
        zip_with(add)([1.0] * n_x, [1.0] * n_y)


@pytest.mark.task0_3
def test_reduce_folds_from_the_left() -> None:
    # ((0 * 10 + 1) * 10 + 2) * 10 + 3 = 123; a right fold would give 321
    assert reduce(lambda acc, x: acc * 10.0 + x, 0.0)([1.0, 2.0, 3.0]) == 123.0
    # ((10 - 1) - 2) - 3 = 4
    assert reduce(lambda acc, x: acc - x, 10.0)([1.0, 2.0, 3.0]) == 4.0
    assert reduce(add, 7.0)([]) == 7.0, "an empty list reduces to the start value"


@pytest.mark.task0_3
@FEW
@given(float_lists)
def test_neg_list_and_sum_list_match_builtins(values: list[float]) -> None:
    assert neg_list(values) == [-x for x in values]
    scale = sum(abs(x) for x in values) + 1.0
    assert math.isclose(sum_list(values), sum(values), rel_tol=1e-12, abs_tol=1e-12 * scale), (
        f"sum_list({values}) = {sum_list(values)}, sum gives {sum(values)}"
    )


@pytest.mark.task0_3
@FEW
@given(st.lists(st.tuples(moderate, moderate), max_size=20))
def test_add_lists_matches_elementwise_sum(pairs: list[tuple[float, float]]) -> None:
    xs = [x for x, _ in pairs]
    ys = [y for _, y in pairs]
    assert add_lists(xs, ys) == [x + y for x, y in pairs]


@pytest.mark.task0_3
@FEW
@given(st.lists(st.floats(min_value=-3.0, max_value=3.0), max_size=12))
def test_prod_list_matches_math_prod(values: list[float]) -> None:
    assert math.isclose(prod_list(values), math.prod(values), rel_tol=1e-12, abs_tol=1e-300), (
        f"prod_list({values}) = {prod_list(values)}, math.prod gives {math.prod(values)}"
    )


@pytest.mark.task0_3
def test_list_helpers_on_empty_lists() -> None:
    assert sum_list([]) == 0.0
    assert prod_list([]) == 1.0
    assert neg_list([]) == []
    assert add_lists([], []) == []


@pytest.mark.task0_3
@FEW
@given(float_lists, float_lists)
def test_sum_list_is_additive_over_concatenation(xs: list[float], ys: list[float]) -> None:
    assume(xs or ys)
    scale = sum(abs(v) for v in xs + ys) + 1.0
    assert math.isclose(
        sum_list(xs + ys), sum_list(xs) + sum_list(ys), rel_tol=1e-12, abs_tol=1e-12 * scale
    )
