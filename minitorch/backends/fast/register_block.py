"""The matmul's register block: `BLOCK_ROWS` rows x two vectors of columns of sums, in registers.

$c_{rs} \\mathrel{+}= \\sum_k a_{rk} b_{ks}$ over a panel of $b$ (`matmul._pack_panel`): for each
$k$, two vectors of row $k$ of the panel are loaded, and each $a_{rk}$, broadcast to a vector,
multiplies them into row $r$'s two accumulators (an outer product). The sums stay in
registers for the whole $k$ loop and need no horizontal sums at the end.

Numba's loop vectorizer cannot write this: it vectorizes the innermost loop, so the
accumulators of a reduction are vectors along $k$ (a dot product), and it picks 256-bit
vectors on CPUs that prefer them even where 512-bit ones exist. `_block_product` emits the
loop in LLVM vectors of the width of the CPU's vector registers (`VECTOR_BYTES`) instead.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import binding, ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


def _vector_bytes() -> int:
    """The width of the host CPU's vector registers, in bytes (16 where Numba is told another
    CPU, whose features are not known here)."""
    if numba.config.CPU_NAME:
        return 16
    features = binding.get_host_cpu_features()
    if features.get("avx512f"):
        return 64
    return 32 if features.get("avx") else 16


VECTOR_BYTES = _vector_bytes()
# Rows of the register block: its 2 x BLOCK_ROWS accumulators, two vectors of `B` and one
# broadcast fill 19 of AVX-512's 32 vector registers, and 15 of the 16 that others have.
BLOCK_ROWS = 8 if VECTOR_BYTES == 64 else 6
PANEL_BYTES = 2 * VECTOR_BYTES


@njit(inline="always")
def _panel_width(array) -> int:
    """Columns of the register block (two vectors) for the dtype of `array`."""
    return PANEL_BYTES // array.itemsize


@intrinsic
def _block_product(
    typingctx, c, c_start, c_row_step,
    a, a_start, a_rows, a_row_step, a_step,
    b_pack, b_start, depth, accumulate,
):  # fmt: skip
    """$c[c_0 + r \\cdot c\\_step + s] \\mathrel{(+)}= \\sum_k a_{r' k} \\, b[b_0 + k S + s]$.

    With $a_{r'k} = a[a_0 + r' \\cdot a\\_row\\_step + k \\cdot a\\_step]$, for
    $r <$ `BLOCK_ROWS`, $s < S$ (`_panel_width`), $k <$ `depth`, and row
    $r' = \\min(r, a\\_rows - 1)$: rows past `a_rows` repeat the last one, and the caller
    does not read their sums. `c`, `a` and `b_pack` are 1-d arrays of one dtype, `a` read
    through its steps, `b_pack` holding a panel (`matmul._pack_panel`). The block is added
    to `c` when `accumulate`, else written over it.
    """
    if not c.dtype == a.dtype == b_pack.dtype:
        return None
    dtype = c.dtype

    def codegen(context, builder, signature, args):
        c_array, c_first, c_step, a_array, a_first, rows, row_step, k_step = args[:8]
        b_array, b_first, count, add_to_c = args[8:]
        element = context.get_data_type(dtype)
        lanes = VECTOR_BYTES // context.get_abi_sizeof(element)
        vector = ir.VectorType(element, lanes)
        align = context.get_abi_sizeof(element)
        index = ir.IntType(64)

        def at(array_type, array, *offsets):
            pointer = context.make_array(array_type)(context, builder, array).data
            for offset in offsets:
                pointer = builder.gep(pointer, [offset])
            return pointer

        def vector_at(pointer, offset):
            return builder.bitcast(builder.gep(pointer, [offset]), vector.as_pointer())

        def multiply_add(x, y, total):
            if isinstance(dtype, types.Float):
                name = f"llvm.fmuladd.v{lanes}f{dtype.bitwidth}"
                function_type = ir.FunctionType(vector, [vector] * 3)
                fused = cgutils.get_or_insert_function(builder.module, function_type, name)
                return builder.call(fused, [x, y, total])
            if isinstance(dtype, types.Boolean):  # or of ands, as NumPy's matmul of bools
                return builder.or_(builder.and_(x, y), total)
            return builder.add(builder.mul(x, y), total)  # integers wrap, as in NumPy

        def add(x, y):
            if isinstance(dtype, types.Float):
                return builder.fadd(x, y)
            return builder.or_(x, y) if isinstance(dtype, types.Boolean) else builder.add(x, y)

        a_type, b_type = signature.args[3], signature.args[8]
        last_row = builder.sub(rows, index(1))
        a_rows_at = []
        for r in range(BLOCK_ROWS):
            row = builder.select(builder.icmp_signed("<", index(r), last_row), index(r), last_row)
            a_rows_at.append(at(a_type, a_array, a_first, builder.mul(row, row_step)))
        b_panel = at(b_type, b_array, b_first)
        # Allocas in the entry block: LLVM keeps them in registers (SROA).
        sums = [
            [cgutils.alloca_once_value(builder, ir.Constant(vector, None)) for _ in (0, 1)]
            for _ in range(BLOCK_ROWS)
        ]
        broadcast = ir.Constant(ir.VectorType(ir.IntType(32), lanes), [0] * lanes)
        with cgutils.for_range(builder, count) as loop:
            b_row = builder.gep(b_panel, [builder.mul(loop.index, index(2 * lanes))])
            b_vectors = [
                builder.load(vector_at(b_row, index(v * lanes)), align=align) for v in (0, 1)
            ]
            a_offset = builder.mul(loop.index, k_step)
            for a_row, row_sums in zip(a_rows_at, sums, strict=True):
                x = builder.load(builder.gep(a_row, [a_offset]))
                x = builder.insert_element(ir.Constant(vector, ir.Undefined), x, ir.IntType(32)(0))
                x = builder.shuffle_vector(x, ir.Constant(vector, ir.Undefined), broadcast)
                for y, total in zip(b_vectors, row_sums, strict=True):
                    builder.store(multiply_add(x, y, builder.load(total)), total)
        add_to_c = builder.icmp_unsigned("!=", add_to_c, ir.Constant(add_to_c.type, 0))
        c_type = signature.args[0]
        for r, row_sums in enumerate(sums):
            c_row = at(c_type, c_array, c_first, builder.mul(index(r), c_step))
            for v, total in enumerate(row_sums):
                target = vector_at(c_row, index(v * lanes))
                value = builder.load(total)
                with builder.if_else(add_to_c) as (then, otherwise):
                    with then:
                        value_and_c = add(builder.load(target, align=align), value)
                        builder.store(value_and_c, target, align=align)
                    with otherwise:
                        builder.store(value, target, align=align)
        return context.get_dummy_value()

    arguments = (c, c_start, c_row_step, a, a_start, a_rows, a_row_step, a_step)
    return types.none(*arguments, b_pack, b_start, depth, accumulate), codegen


if numba.config.DISABLE_JIT:  # plain Python (NUMBA_DISABLE_JIT=1): the same sums with NumPy

    def _block_product(
        c, c_start, c_row_step,
        a, a_start, a_rows, a_row_step, a_step,
        b_pack, b_start, depth, accumulate,
    ):  # fmt: skip
        width = _panel_width(c)
        rows = [a_start + min(r, a_rows - 1) * a_row_step for r in range(BLOCK_ROWS)]
        a_block = a[np.add.outer(rows, np.arange(depth) * a_step)]
        b_block = b_pack[b_start : b_start + depth * width].reshape(depth, width)
        block = a_block @ b_block
        for r in range(BLOCK_ROWS):
            row = c[c_start + r * c_row_step : c_start + r * c_row_step + width]
            row[:] = row + block[r] if accumulate else block[r]
