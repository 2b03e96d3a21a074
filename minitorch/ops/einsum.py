"""`einsum`: products and sums written as index equations, as a map and a reduce.

`einsum("ij,jk->ik", a, b)` names each dimension of each operand by a letter.
Every operand is lined up on one common list of letters (the output's, then
the summed ones) by `permute` and size-1 dimensions (`unsqueeze`), so that
broadcasting multiplies the elements that share letters (the map), and the
letters missing from the output are summed away (the reduce). A letter twice
in one operand takes its diagonal first (`"ii->"` is the trace). `...` names
the dims no letter names, right-aligned across operands so that they
broadcast (`"...ij,...jk->...ik"` is a batched matmul). Operands are
taken two at a time: when they share a letter to sum, the map and the reduce
are one batched `matmul` (no $i \\times j \\times k$ intermediate).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .joins import diagonal
from .public import public

if TYPE_CHECKING:
    from .._tensor import Tensor


ELLIPSIS = "..."


def ellipsis_letter(k: int) -> str:
    """The stand-in letter of the `k`-th dim an ellipsis covers (never one of [a-zA-Z])."""
    return chr(0x3000 + k)


def is_letter(c: str) -> bool:
    return "a" <= c <= "z" or "A" <= c <= "Z"


def subscripts(
    text: str, first: int, where: str, ellipsis_error: str, seen: list[str] | None = None
) -> list[str]:
    """The subscripts of one term: letters and `ELLIPSIS`, spaces dropped, with PyTorch's
    errors (`first`: where `text` starts in the equation; `where`: "operand 0", "output";
    `seen`: the operands' letters, for the output's)."""
    found: list[str] = []
    k = 0
    while k < len(text):
        c = text[k]
        if c == ".":
            if ELLIPSIS in found:
                raise RuntimeError(f"einsum(): found '.' for {where}{ellipsis_error}")
            if text[k : k + 3] != ELLIPSIS:
                suffix = " (...)" if where == "output" else ""
                raise RuntimeError(
                    f"einsum(): found '.' for {where} that is not part of any ellipsis{suffix}"
                )
            found.append(ELLIPSIS)
            k += 2
        elif c != " " and not is_letter(c):
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {first + k} in the equation "
                "string, subscripts must be in [a-zA-Z]"
            )
        elif c != " ":
            if seen is not None:
                output_check(c, seen, found)
            found.append(c)
        k += 1
    return found


def output_check(c: str, seen: list[str], before: list[str]) -> None:
    """PyTorch's errors for an output letter no operand has, or one the output repeats."""
    if c in before or c not in seen:
        problem = (
            "appears more than once in the output"
            if c in seen
            else "does not appear in the equation for any input operand"
        )
        raise RuntimeError(f"einsum(): output subscript {c} {problem}")


def operand_terms(lhs: str, count: int) -> list[list[str]]:
    """The subscripts of each operand, checked as PyTorch does, term by term."""
    terms, first = [], 0
    for k, text in enumerate(lhs.split(",")):
        if k == count:
            raise RuntimeError(
                "einsum(): fewer operands were provided than specified in the equation"
            )
        where = f"operand {k}"
        terms.append(subscripts(text, first, where, " for which an ellipsis was already found"))
        first += len(text) + 1
    if len(terms) != count:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return terms


def parse_equation(equation: str, shapes: list[tuple]) -> tuple[list[str], str]:
    """The letters of each operand and of the output, an ellipsis replaced by one stand-in
    letter per dim it covers (right-aligned: they broadcast as NumPy's leading dims).

    Implicit output (no `->`): the ellipsis's dims, then the letters seen once, sorted.
    Explicit output without `...`: the ellipsis's dims are summed.
    """
    lhs, arrow, rhs = equation.partition("->")
    terms = operand_terms(lhs, len(shapes))
    covered = 0  # how many dims the ellipsis stands for: the most any operand gives it
    for k, (term, shape) in enumerate(zip(terms, shapes, strict=True)):
        letters = len(term) - (ELLIPSIS in term)
        if ELLIPSIS in term and letters > len(shape):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({letters}) is more than "
                f"the number of dimensions ({len(shape)}) for operand {k}"
            )
        if ELLIPSIS not in term and letters != len(shape):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({letters}) does not match "
                f"the number of dimensions ({len(shape)}) for operand {k} and no ellipsis was given"
            )
        if ELLIPSIS in term:
            covered = max(covered, len(shape) - letters)
    dims = "".join(ellipsis_letter(j) for j in range(covered))
    seen = [c for term in terms for c in term if c != ELLIPSIS]
    if arrow:
        again = " but an ellipsis (...) was already found"
        out = subscripts(rhs, len(lhs) + 2, "output", again, seen)
        output = "".join(dims if c == ELLIPSIS else c for c in out)
    else:
        output = dims + "".join(sorted(c for c in set(seen) if seen.count(c) == 1))
    named = []
    for term, shape in zip(terms, shapes, strict=True):
        own = dims[covered - (len(shape) - len(term) + 1) :] if ELLIPSIS in term else ""
        named.append("".join(own if c == ELLIPSIS else c for c in term))
    return named, output


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
    if summed and a.dtype is not b.dtype:  # one matmul: PyTorch's bmm does not promote
        raise RuntimeError(
            f"expected scalar type {a.dtype.torch_scalar_name} but found "
            f"{b.dtype.torch_scalar_name}"
        )
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


def sublist_letter(n) -> str:
    """A subscript of the sublist form: 0-25 are A-Z, 26-51 a-z, `...` the ellipsis."""
    if n is Ellipsis:
        return ELLIPSIS
    if not isinstance(n, int) or not 0 <= n < 52:
        raise ValueError(
            "einsum(): subscript in subscript list is not within the valid range [0, 52)"
        )
    return chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26)


def from_sublists(arguments: tuple) -> tuple[str, tuple]:
    """`einsum(a, [0, 1], b, [1, 2], [0, 2])` as `("Ab,bc->Ac", (a, b))`."""
    pairs = len(arguments) // 2 * 2
    terms = ["".join(map(sublist_letter, sub)) for sub in arguments[1:pairs:2]]
    equation = ",".join(terms)
    if len(arguments) > pairs:
        equation += "->" + "".join(map(sublist_letter, arguments[-1]))
    return equation, arguments[0:pairs:2]


def checked_sizes(operands, terms: list[str]) -> dict[str, int]:
    """The size of each letter (1 broadcasts), after PyTorch's checks of the operands' sizes."""
    sizes: dict[str, int] = {}
    for k, (t, term) in enumerate(zip(operands, terms, strict=True)):
        own: dict[str, int] = {}
        for letter, size in zip(term, t.shape, strict=True):
            if letter in own:
                if size != own[letter]:
                    raise RuntimeError(
                        f"einsum(): subscript {letter} is repeated for operand {k} but the sizes "
                        f"don't match, {size} != {own[letter]}"
                    )
                continue
            own[letter] = size
            known = sizes.setdefault(letter, size)
            if size != known and 1 not in (size, known):
                if is_letter(letter):
                    raise RuntimeError(
                        f"einsum(): subscript {letter} has size {size} for operand {k} which "
                        f"does not broadcast with previously seen size {known}"
                    )
                j = [c for c in term if not is_letter(c)].index(letter)
                raise RuntimeError(
                    f"einsum(): dimension {j} covered by ellipsis in operand {k}has size {size} "
                    f"which does not broadcast with previously seen ellipsis with size {known} "
                    "for the respective dimension"
                )
            sizes[letter] = size if known == 1 else known
    return sizes


@public(method=False)
def einsum(equation, *operands) -> Tensor:
    """The sum over the letters missing from the output of the products of the operands'
    elements, their dims named by the letters of `equation`.

    `...` stands for the dims no letter names (they broadcast, as NumPy's leading dims).
    Also `einsum(equation, [a, b])` and the sublist form `einsum(a, [0, 1], b, [1, 2])`.

    >>> import minitorch
    >>> a = minitorch.tensor([[1, 2], [3, 4]])
    >>> minitorch.einsum("ij,jk->ik", a, a)
    tensor([[ 7, 10],
            [15, 22]])
    >>> minitorch.einsum("ii->", a)
    tensor(5)
    >>> minitorch.einsum("...i->...", a)
    tensor([3, 7])
    """
    if not isinstance(equation, str):
        equation, operands = from_sublists((equation, *operands))
    elif len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least "
            "one operand and its subscripts list"
        )
    terms, output = parse_equation(equation, [tuple(t.shape) for t in operands])
    sizes = checked_sizes(operands, terms)
    ready = [without_repeats(t, term) for t, term in zip(operands, terms, strict=True)]
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
