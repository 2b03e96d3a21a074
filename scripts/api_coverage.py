"""How much of PyTorch's public surface minitorch has, per namespace (needs torch installed).

For each namespace it lists the public names of torch's (`dir()` of the module or class),
counts those minitorch's counterpart also has, and prints a Markdown table of the shares and
then the missing names; `--write docs/api_coverage.md` saves the same text there.

A public name is one that does not start with `_`. Left out of every count, because minitorch
does not aim at them (a CPU/GPU teaching framework of dense real tensors):

- submodules and classes inside a function namespace (`torch.nn` in `torch.*`: each
  namespace that minitorch mirrors has a row of its own) and the dtypes, which are not
  operations;
- sparse, quantized and complex tensors (`sparse_*`, `*_sparse*`, `q_*`, `quantize_*`,
  `*complex*`, `real`/`imag`/`conj*`/`view_as_real`/...), the FFT and the linear-algebra
  decompositions (`fft_*`, `stft`, `istft`, `svd`, `qr`, ...: `torch.linalg` is its own
  namespace), the JIT, export, compiler and distributed machinery (`jit`, `fx`, `export`,
  `compiler`, `*_tracing_state`, `distributed`, ...), named tensors (`refine_names`, ...),
  storage and memory-format internals (`storage*`, `untyped_storage`, `pin_memory`,
  `is_pinned`, `share_memory_`, `data_ptr`, `*_pool*` of fused kernels, `fbgemm_*`,
  `mkldnn_*`, `miopen_*`, `cudnn_*`, `native_*`, `fused_*`), the `_foreach` family and
  the names of backends minitorch has no device for (`xpu`, `mps`, `mtia`, `hpu`, `ipu`,
  `xla`, `vulkan`, `ve`, `privateuse1`, `meta`), the `*_copy` twins of views, mixed
  precision (`autocast`), the profiler, the `__torch_function__` protocol
  (`has_torch_function`, ...), the TorchScript type parsers (`parse_ir`, `fork`, ...);
- names a torch module re-exports from Python's standard library (`typing.cast` in
  `torch.autograd`), which are not torch's API;
- for `Tensor` methods, the in-place forms are counted like any other method;
- in `torch.nn` and `torch.nn.functional`: the lazy modules (`Lazy*`, `Uninitialized*`, which
  infer their shapes on the first call), the 3-D layers (`*3d`: volumes are beyond a teaching
  framework's images and sequences), the multi-process wrappers (`DataParallel`,
  `SyncBatchNorm`) and the float8/bfloat16 GPU products (`scaled_mm`, `grouped_mm`, ...);
- in `torch.optim.lr_scheduler`: the classes it imports from outside `torch.optim`
  (`Tensor`);
- in `torch.utils.data`: the DataPipe API (`*DataPipe`, `DataChunk`, `functional_datapipe`,
  the `runtime_validation` decorators, ...), which PyTorch has deprecated in favour of
  datasets and samplers.

Run: `python scripts/api_coverage.py [--write docs/api_coverage.md]`.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Names matching any of these are out of scope (see the module docstring).
LEFT_OUT = re.compile(
    r"sparse|quantiz|^q_|^fake_quantize|complex|^real$|^imag$|conj|view_as_real|view_as_complex"
    r"|polar|^angle$|fft|^stft$|^istft$|^svd|^qr$|^lu|^cholesky|^eig|^symeig|^lstsq|^lobpcg"
    r"|^pca_lowrank|^triangular_solve|^ormqr|^geqrf|^orgqr|^householder|^slogdet|^logdet|^det$"
    r"|^pinverse|^inverse$|^matrix_power|^matrix_exp|jit|^fx$|^export|^compiler$|^compiled_with|tracing_state"
    r"|distributed|^rpc|^onnx|names$|^rename|^refine_names|^align_|storage|pin_memory|is_pinned"
    r"|share_memory|is_shared|data_ptr|fbgemm|mkldnn|miopen|cudnn|^native_|^fused_|foreach"
    r"|xpu|mps|mtia|hpu|ipu|xla|vulkan|^ve$|privateuse1|^is_meta$|^meta$|nested|^sym_|^Sym"
    r"|^segment_reduce|^batch_norm_|^rnn_|^lstm_|^gru_"
    r"|(?<!index)_copy$|^_|^dsmm$|^hsmm$|^smm$|^sspaddmm$|^saddmm$|^spmm$|^to_dense"
    r"|^to_mkldnn|^to_padded|^coalesce|^indices$|^values$|^crow_|^col_indices|^ccol_|^row_indices"
    r"|^dense_dim|^sparse_dim|^nnz$|^int_repr|^dequantize|^qscheme|^per_channel|^mH$|^H$"
    r"|^adjoint$|^resolve_neg$|^is_neg$|^resolve_conj$|^is_conj$|^chalf$|^cfloat$|^cdouble$"
    r"|^import_ir_module|^parse_ir$|^parse_schema$|type_comment$|^unify_type_list$|^fork$|^wait$"
    r"|autocast|rofiler|kineto|torch_function|^is_tensor_like$|^classproperty$|^hash_tensor$"
    r"|^get_file_path$|^prepare_multiprocessing_environment$|^thread_safe_generator$"
)

# Per namespace, the further names left out (see the module docstring).
NN_LEFT_OUT = re.compile(
    r"^Lazy|^Uninitialized|3d$|3d_with_indices$|^DataParallel$|^SyncBatchNorm$|grouped_mm$|^scaled_mm$"
)
DATA_LEFT_OUT = re.compile(
    r"DataPipe$|^DataChunk$|datapipe|^runtime_validation|^argument_validation$|^non_deterministic$"
)


def defined_elsewhere(value) -> bool:
    """Whether a name is a re-export of Python's own (`typing.cast` in `torch.autograd`)."""
    module = getattr(value, "__module__", None)
    return isinstance(module, str) and module.split(".")[0] not in ("torch", "builtins")


def public_names(obj) -> set[str]:
    return {
        name
        for name in dir(obj)
        if not name.startswith("_")
        and not LEFT_OUT.search(name)
        and not defined_elsewhere(getattr(obj, name, None))
    }


def functions_of(module) -> set[str]:
    """The callables of a function namespace, without its submodules, classes and dtypes."""
    names = set()
    for name in public_names(module):
        value = getattr(module, name, None)
        if inspect.ismodule(value) or inspect.isclass(value):
            continue
        if type(value).__name__ in ("dtype", "layout", "memory_format", "qscheme"):
            continue
        if callable(value):
            names.add(name)
    return names


def classes_of(module) -> set[str]:
    """The classes a namespace defines (nn's modules, optim's optimizers, ...)."""
    names = set()
    for name in public_names(module):
        value = getattr(module, name, None)
        if inspect.isclass(value):
            names.add(name)
    return names


def own_classes(module, package: str) -> set[str]:
    """The classes of `module` defined in `package`: `torch.optim.lr_scheduler` also holds
    `torch.Tensor`, an import that is not a scheduler."""
    return {n for n in classes_of(module) if getattr(module, n).__module__.startswith(package)}


def every_public(module) -> set[str]:
    """Every public name of a module except its submodules."""
    return {n for n in public_names(module) if not inspect.ismodule(getattr(module, n, None))}


def without(pattern: re.Pattern, names: set[str]) -> set[str]:
    return {n for n in names if not pattern.search(n)}


def namespaces(torch, minitorch):
    """(row label, torch's names, minitorch's object) for every namespace compared."""

    def sub(root, dotted):
        obj = root
        for part in dotted.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj

    import torch.nn.init  # noqa: F401 -- loaded so that `sub` finds them
    import torch.nn.utils  # noqa: F401
    import torch.optim.lr_scheduler  # noqa: F401
    import torch.utils.data  # noqa: F401

    rows = [
        ("torch.* functions", functions_of(torch), "", functions_of),
        ("Tensor methods", public_names(torch.Tensor), "Tensor", None),
        ("torch.autograd", every_public(torch.autograd), "autograd", None),
        ("torch.nn classes", without(NN_LEFT_OUT, classes_of(torch.nn)), "nn", None),
        ("torch.nn.functional", without(NN_LEFT_OUT, functions_of(torch.nn.functional)),
         "nn.functional", None),
        ("torch.nn.init", functions_of(torch.nn.init), "nn.init", None),
        ("torch.nn.utils", every_public(torch.nn.utils), "nn.utils", None),
        ("torch.optim", classes_of(torch.optim), "optim", None),
        ("torch.optim.lr_scheduler", own_classes(torch.optim.lr_scheduler, "torch.optim"),
         "optim.lr_scheduler", None),
        ("torch.utils.data", without(DATA_LEFT_OUT, every_public(torch.utils.data)),
         "utils.data", None),
    ]  # fmt: skip
    for label, theirs, path, _ in rows:
        ours = sub(minitorch, path) if path else minitorch
        yield label, theirs, ours


def coverage(torch, minitorch) -> list[tuple[str, int, int, list[str]]]:
    """(namespace, names minitorch has, names torch has, the missing names) per row."""
    table = []
    for label, theirs, ours in namespaces(torch, minitorch):
        have = {n for n in theirs if ours is not None and hasattr(ours, n)}
        table.append((label, len(have), len(theirs), sorted(theirs - have)))
    return table


def report(table, torch_version: str) -> str:
    lines = [
        "# PyTorch API coverage",
        "",
        f"Generated by `python scripts/api_coverage.py --write docs/api_coverage.md` against "
        f"torch {torch_version}; what it leaves out of the counts, and why, is its docstring.",
        "",
        "| namespace | minitorch has | of torch's | share |",
        "|---|---:|---:|---:|",
    ]
    for label, have, total, _ in table:
        share = 100 * have / total if total else 100.0
        lines.append(f"| {label} | {have} | {total} | {share:.0f}% |")
    for label, _, _, missing in table:
        lines += ["", f"## Missing from {label} ({len(missing)})", ""]
        lines.append(", ".join(f"`{n}`" for n in missing) if missing else "(none)")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="PATH", help="also save the report as Markdown there")
    parser.add_argument("--summary", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    try:
        import torch
    except ModuleNotFoundError:
        print("api_coverage.py compares with PyTorch: pip install torch", file=sys.stderr)
        return 1
    import minitorch

    text = report(coverage(torch, minitorch), torch.__version__.split("+")[0])
    print(text.split("\n## ")[0] if args.summary else text)
    if args.write:
        Path(args.write).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
