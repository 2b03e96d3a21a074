"""`einsum`: products and sums written as index equations, as a map and a reduce.

`einsum("ij,jk->ik", a, b)` names each dimension of each operand by a letter.
Every operand is lined up on one common list of letters (the output's, then
the summed ones) by `permute` and size-1 dimensions (`unsqueeze`), so that
broadcasting multiplies the elements that share letters (the map), and the
letters missing from the output are summed away (the reduce). A letter twice
in one operand takes its diagonal first (`"ii->"` is the trace). Operands are
taken two at a time: when they share a letter to sum, the map and the reduce
are one batched `matmul` (no $i \\times j \\times k$ intermediate).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .joins import diagonal

if TYPE_CHECKING:
    from .._tensor import Tensor


def parse_equation(equation: str, count: int) -> tuple[list[str], str]:
    """The letters of each operand and of the output (implicit: the letters seen once, sorted)."""
    equation = equation.replace(" ", "")
    if "." in equation:
        raise NotImplementedError("einsum(): '...' (ellipsis) is not supported by minitorch")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != count:
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation"
            if count > len(terms)
            else "einsum(): fewer operands were provided than specified in the equation"
        )
    letters = "".join(terms)
    for letter in letters + output:
        if not letter.isalpha():
            raise ValueError(
                f"einsum(): invalid subscript given at index {equation.index(letter)} in the "
                "equation string, subscripts must be in [a-zA-Z]"
            )
    if not arrow:
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for letter in output:
        if letter not in letters:
            raise RuntimeError(
                f"einsum(): output subscript {letter} does not appear in the equation for any "
                "input operand"
            )
    return terms, output


def without_repeats(t: Tensor, term: str) -> tuple[Tensor, str]:
    """`t` with the diagonal taken for each letter that `term` repeats (moved to the end)."""
    while len(set(term)) < len(term):
        letter = next(c for c in term if term.count(c) > 1)
        first = term.index(letter)
        second = term.index(letter, first + 1)
        t = diagonal(t, 0, first, second)
        term = term[:first] + term[first + 1 : second] + term[second + 1 :] + letter
    return t, term


def summed_out(t: Tensor, term: str, keep: str) -> tuple[Tensor, str]:
    """`t` summed over the letters of `term` not in `keep` (the reduce)."""
    dims = tuple(k for k, c in enumerate(term) if c not in keep)
    if not dims:
        return t, term
    return t.sum(dims), "".join(c for c in term if c in keep)


def lined_up(t: Tensor, term: str, order: str) -> Tensor:
    """`t` with its dims in the order of `order`, size 1 for the letters it lacks."""
    present = [c for c in order if c in term]
    if list(term) != present:
        t = t.permute(*[term.index(c) for c in present])
    shape = [t.shape[present.index(c)] if c in term else 1 for c in order]
    return t.reshape(shape) if len(shape) != t.ndim else t


def contract(a: Tensor, ta: str, b: Tensor, tb: str, keep: str, sizes: dict) -> tuple:
    """The product of `a` and `b`, summed over the letters they share that are not in `keep`.

    With none to sum, a broadcast multiply (the map). Otherwise one batched matrix
    product: `a` as (shared kept, its own, summed) times `b` as (shared kept, summed,
    its own), each group flattened into one dim.
    """
    summed = [c for c in ta if c in tb and c not in keep]
    if not summed:
        order = "".join(dict.fromkeys(ta + tb))
        return lined_up(a, ta, order) * lined_up(b, tb, order), order
    batch = [c for c in ta if c in tb and c in keep]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]

    def grouped(t: Tensor, term: str, groups: list[list[str]]) -> Tensor:
        letters = [c for group in groups for c in group]
        t = t.permute(*[term.index(c) for c in letters])
        t = t.expand(*[sizes[c] for c in letters])
        return t.reshape([prod_of(sizes, group) for group in groups])

    product = grouped(a, ta, [batch, left, summed]).matmul(grouped(b, tb, [batch, summed, right]))
    letters = batch + left + right
    return product.view([sizes[c] for c in letters]), "".join(letters)


def prod_of(sizes: dict, letters: list[str]) -> int:
    """The number of elements of the dims named `letters`."""
    total = 1
    for c in letters:
        total *= sizes[c]
    return total


def einsum(equation: str, *operands) -> Tensor:
    """The sum over the letters missing from the output of the products of the operands'
    elements, their dims named by the letters of `equation`.

    >>> import minitorch
    >>> a = minitorch.tensor([[1, 2], [3, 4]])
    >>> minitorch.einsum("ij,jk->ik", a, a)
    tensor([[ 7, 10],
            [15, 22]])
    >>> minitorch.einsum("ii->", a)
    tensor(5)
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    terms, output = parse_equation(equation, len(operands))
    sizes: dict[str, int] = {}
    ready = []
    for k, (t, term) in enumerate(zip(operands, terms, strict=True)):
        if len(term) != t.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(term)}) does not match "
                f"the number of dimensions ({t.ndim}) for operand {k} and no ellipsis was given"
            )
        t, term = without_repeats(t, term)
        for letter, size in zip(term, t.shape, strict=True):
            known = sizes.setdefault(letter, size)
            if known != size and 1 not in (known, size):
                raise RuntimeError(
                    "einsum(): operands do not broadcast with remapped shapes (original->"
                    f"remapped): subscript {letter} has sizes {known} and {size}"
                )
            sizes[letter] = max(known, size)
        ready.append((t, term))
    # each operand is first summed over the letters no one else needs, then they are
    # multiplied in pairs, left to right, summing the letters the rest no longer need
    t, term = ready[0]
    for k, (other, other_term) in enumerate(ready[1:], start=1):
        later = output + "".join(tt for _, tt in ready[k + 1 :])
        t, term = summed_out(t, term, later + other_term)
        other, other_term = summed_out(other, other_term, later + term)
        t, term = contract(t, term, other, other_term, later, sizes)
    t, term = summed_out(t, term, output)
    return lined_up(t, term, output)
