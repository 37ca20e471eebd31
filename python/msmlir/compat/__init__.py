"""MindSpore API compatibility table, generated from the code.

For every public name of MindSpore's `mindspore`, `ops` (functional),
`ops.operations` (Primitive classes), `nn`, `numpy`, `Tensor`, `train` and `amp`
namespaces (the lists in `_reference.py`, extracted from MindSpore's API docs)
the table says whether msmlir has it -- by looking the name up in msmlir's
matching namespace, not from a hand-kept list -- and, for names that exist but
differ from MindSpore, what differs (`PARTIAL`). `python -m msmlir.compat`
prints it as Markdown (docs/compat.md is that output; a test keeps it true).
The usage-weighted figures at its top come from `usage.py`'s counts of real
MindSpore code (stored in usage_counts.tsv).
"""
from __future__ import annotations

import importlib

from ._reference import NAMES, SOURCES

__all__ = ["NAMESPACES", "PARTIAL", "EXTRA_PARTIAL", "status", "table", "summary", "markdown"]

# namespace -> the msmlir object whose attributes are looked up
NAMESPACES = {
    "mindspore": "msmlir",
    "ops": "msmlir.ops",
    "ops.operations": "msmlir.ops",
    "nn": "msmlir.nn",
    "numpy": "msmlir.numpy",
    "Tensor": "msmlir.Tensor",
    "train": "msmlir.train",
    "amp": "msmlir.amp",
}

_HOST_DTYPE = "host-only dtype: a Tensor holds and converts it; compiled ops refuse it"
_RNG = "counter-based RNG: the same distribution, not MindSpore's numbers"
_DYNAMIC = ("data-dependent output shape: runs in PyNative; inside jit / graph mode an "
            "error at the user's line")

_SUMMARY = ("writes TensorBoard event files (TFRecord framing with CRC32C, tensorflow.Event "
            "protobuf; read back by TensorBoard 2.21's loader in a test), not MindInsight's "
            "format; no graphs, lineage or loss landscapes")

# "namespace:name" -> what differs from MindSpore (names msmlir has)
PARTIAL = {
    **{f"mindspore:{n}": _HOST_DTYPE for n in (
        "int16", "short", "uint8", "ubyte", "uint16", "ushort", "uint32", "uintc", "uint64",
        "uintp", "uint", "complex64", "complex128")},
    "mindspore:set_auto_parallel_context": "stored and validated; no distributed compiler yet",
    "mindspore:ParallelMode": "accepted; one process runs the whole graph",
    "mindspore:set_ps_context": "stored only",
    "mindspore:mutable": "returns its input: compiled functions are keyed by shapes/dtypes",
    "mindspore:save_checkpoint": "msmlir's checksummed format (or safetensors), not .ckpt",
    "mindspore:load_checkpoint": "msmlir's checksummed format (or safetensors), not .ckpt",
    "mindspore:export": "MLIR bytecode, not MindIR protobuf",
    "mindspore:load": "MLIR bytecode, not MindIR protobuf",
    "mindspore:ms_function": "= jit; jit options other than the function are ignored",
    "mindspore:ModelCheckpoint": "msmlir's checkpoint format; no async save or encryption",
    "mindspore:CheckpointConfig": "no encryption (enc_key) or async save",
    "mindspore:JitConfig": "accepted and kept; msmlir's compilation ignores its options",
    "mindspore:set_context": "mode/device_target/graph kernel/save_graphs/compile cache "
                             "interpreted; other keys stored; runs on the CPU",
    "ops:dropout": _RNG, "ops:uniform": _RNG, "ops:standard_normal": _RNG,
    "ops:scatter_nd": "an out-of-range index raises IndexError as MindSpore's CPU kernel; "
                      "negative indices count from the end (MindSpore rejects them)",
    **{f"ops:{n}": _DYNAMIC for n in ("unique", "nonzero", "masked_select")},
    **{f"ops.operations:{n}": _DYNAMIC for n in ("Unique", "NonZero", "MaskedSelect")},
    **{f"Tensor:{n}": _DYNAMIC for n in ("nonzero", "masked_select", "bincount")},
    "nn:SyncBatchNorm": "one process: BatchNorm; training across MPI ranks raises "
                        "(no cross-rank statistics yet)",
    "ops:pad": "mode 'constant' only",
    "ops:avg_pool2d": "ceil_mode=True, and divisor_override with pad_mode 'same' or "
                      "count_include_pad=False, raise (nn.AvgPool2d / ops.window_pool2d "
                      "compute them)",
    "ops:conv2d": "NCHW only",
    "ops:cross_entropy": "ignore_index honoured only with weight or label_smoothing",
    "ops:print_": "host callback inside jit",
    "ops:linspace": "steps must be a Python int",
    "ops:multinomial": _RNG + "; int32 indices",
    "ops:tensor_scatter_elements": "duplicate indices add up with reduction 'none'",
    "ops.operations:ApplyFtrl": "MindSpore's documented update; 2.10's CPU kernel differs "
                                "where `linear` < 0 (it uses +l1 there)",
    "ops.operations:ApplyRMSProp": "returns the updated var as documented (2.10's CPU kernel "
                                   "returns zeros); the Parameters are updated alike",
    "ops.operations:Dropout": _RNG, "ops.operations:UniformReal": _RNG,
    "ops.operations:StandardNormal": _RNG,
    "ops.operations:Conv2D": "NCHW only; mode/out_channel/kernel_size taken from the weight",
    "ops.operations:MaxPool": "NCHW only", "ops.operations:AvgPool": "NCHW only",
    "ops.operations:BatchNorm": "NCHW only",
    "ops.operations:Print": "prints in PyNative; a host callback inside jit",
    "ops.operations:ScatterNd": "an out-of-range index raises IndexError; negative indices "
                                "count from the end (MindSpore rejects them)",
    "ops.operations:Custom": "func_type='pyfunc' only",
    "ops.operations:Primitive": "subclasses implement _impl with msmlir.ops functions",
    "ops.operations:PrimitiveWithInfer": "infer_shape/infer_dtype are not consulted",
    "nn:Pad": "mode 'CONSTANT' only",
    "nn:MaxPool2d": "return_indices unsupported",
    "nn:Dropout": _RNG,
    "nn:BatchNorm2d": "moving_variance takes the unbiased batch variance (as 2.10's CPU kernel)",
    "train:ModelCheckpoint": "msmlir's checkpoint format; no async save or encryption",
    "train:CheckpointConfig": "no encryption (enc_key) or async save",
    **{f"ops.operations:{n}": "constructible, as MindSpore's scripts construct it on every "
                              "target; calling it raises RuntimeError (Ascend's overflow "
                              "register has no CPU equivalent; MindSpore has no CPU/GPU kernel "
                              "either): use amp.all_finite or FloatStatus"
       for n in ("NPUAllocFloatStatus", "NPUGetFloatStatus", "NPUClearFloatStatus")},
    "ops.operations:CTCLoss": "a host computation (the recursion is sequential in time), "
                              "a host callback inside jit; its gradient output and bprop as "
                              "MindSpore's",
    "ops.operations:CropAndResize": "methods 'bilinear' and 'nearest' ('bilinear_v2' raises)",
    "ops.operations:ROIAlign": "sample_num > 0 only (sample_num <= 0 sizes the grid per ROI: "
                               "data-dependent); MindSpore's CPU kernel's arithmetic",
    **{f"ops.operations:{n}": "the value goes to SummaryRecord's TensorBoard event file, not "
                              "MindInsight's format" for n in ("ScalarSummary", "TensorSummary",
                                                               "ImageSummary", "HistogramSummary")},
    "mindspore:SummaryRecord": _SUMMARY, "mindspore:SummaryCollector": _SUMMARY,
    "mindspore:Profiler": "a host profile (cProfile of the starting thread) written by "
                          "analyse() to output_path/profiler/host_profile.{prof,txt}; no device "
                          "timelines or memory",
    # the LLM / MoE / recurrent primitives of the 200 most used (ops/operations/_moe.py,
    # _attention.py, _recurrent.py, _extra.py)
    "ops.operations:DropoutGenMask": "the bit-packed mask is int8 (the same bits as "
                                     "MindSpore's uint8; msmlir compiles no uint8); " + _RNG,
    "ops.operations:MaxPoolWithArgmax": "NCHW; the mask is the CPU/GPU kernels' int32 index "
                                        "h * W + w in the input plane (Ascend's bit-mask layout "
                                        "is not reproduced)",
    "ops.operations:LSTM": "MindSpore's CPU kernel's flat weight layout (every w_ih, then every "
                           "w_hh, then one 4H bias per layer and direction; the rest of the "
                           "documented size unused); reserve/state are (1, 1, 1) placeholders; "
                           "unrolled over seq_len",
    "ops.operations:DynamicRNN": "LSTM cell, unidirectional, no peephole/projection, keep_prob "
                                 "1, seq_length None; unrolled over num_step",
    "ops.operations:DynamicGRUV2": "reset_after=True, unidirectional, keep_prob 1, seq_length "
                                   "None; unrolled over num_step",
    "ops.operations:FlashAttentionScore": "layouts BSH/SBH/BSND/BNSD, sparse_mode 0/2/3; no "
                                          "attention dropout, padding_mask, prefix or TND "
                                          "actual_seq lengths; softmax_out is a (1,) "
                                          "placeholder; plain (not blockwise) softmax attention",
    **{f"ops.operations:{n}": "no quantized KV cache, attn_mask/q_seq_lens or MLA; a "
                              "sequence's query tokens attend causally to its context"
       for n in ("PagedAttention", "PagedAttentionMask")},
    "ops.operations:ApplyRotaryPosEmb": "cos_format 0/1 need one position id per token "
                                        "(position_ids as per-batch prefill lengths raise)",
    **{f"ops.operations:{n}": "no quantization or fused activation; group_type -1/0 (no K "
                              "split); split_item 0/1 with a Tensor group_list (outputs of "
                              "data-dependent shapes) raise"
       for n in ("GroupedMatmul", "GroupedMatmulV4")},
    "ops.operations:MoeInitRoutingV2": "drop_pad_mode 0 (dropless) only; "
                                       "expert_tokens_before_capacity is zeros",
    "ops.operations:FusedAddTopKDiv": "activate_type 0 (sigmoid) only; no expert mapping",
    "ops.operations:GroupTopk": "returns the masked token (the NPU op writes it in place); "
                                "idx_arr unused",
    **{f"ops.operations:{n}": "one expert-parallel rank only (ep_world_size 1, tp_world_size "
                              "<= 1): no MC2 exchange between devices; no quantization or "
                              "shared experts; dynamic_scales are zeros"
       for n in ("MoeDistributeDispatch", "MoeDistributeCombine")},
    "ops.operations:AlltoAllV": "one MPI_Alltoallv; the count lists must be Python ints "
                                "(the ranks exchange them at trace time)",
    "ops.operations:Morph": "also runs in PyNative (MindSpore raises RuntimeError outside "
                            "graph mode); infer_shape/infer_dtype are not consulted",
    "ops.operations:MoveTo": "a copy in host memory whatever `to` (msmlir tensors live on "
                             "the host)",
    **{f"numpy:{n}": _DYNAMIC for n in ("unique", "bincount")},
    **{f"numpy:{n}": "bins are counts of equal-width bins (an int or one per dimension), not "
                     "edge arrays" for n in ("histogramdd", "histogram2d")},
    "nn:no_init_parameters": "a no-op scope: msmlir initializes a Parameter when it is "
                             "created",
    "nn:_VirtualDatasetCell": "calls its backbone: msmlir.parallel slices the batch per rank "
                              "before the graph",
    "Tensor:unique_consecutive": _DYNAMIC,
    **{f"Tensor:{n}": "PyNative only (the number of non-zeros is data); the result is a host "
                      "container (msmlir/ops/sparse.py) with to_dense/to_coo/to_csr, no sparse "
                      "compiled kernels" for n in ("to_coo", "to_csr")},
    "Tensor:random_categorical": _RNG, "Tensor:bernoulli": _RNG,
    "Tensor:col2im": "output_size is read on the host: a concrete Tensor in PyNative, a tuple "
                     "inside jit",
    **{f"Tensor:{n}": "a fixed 160-step series / continued fraction (accurate to rounding for "
                      "a, x up to ~100), each an scf.while loop" for n in ("igamma", "igammac")},
    "Tensor:svd": "the reduced SVD (full_matrices=False) by one-sided Jacobi: 12 sweeps as an "
                  "scf.while loop over one sweep (its n(n-1)/2 rotations unrolled, so the "
                  "graph grows with n^2); meant for small matrices",
    **{f"Tensor:{n}": "Gaussian elimination unrolled over the (static) matrix size: the graph "
                      "grows with n" for n in ("det", "inverse", "slogdet", "logdet",
                                               "matrix_determinant", "log_matrix_determinant",
                                               "cholesky", "cholesky_inverse")},
    "Tensor:astype": "bfloat16 and host-only dtypes convert on the host",
    # MindSpore 2.x's additions (msmlir/ops/tensor_extra.py)
    **{f"Tensor:{n}": "in place in PyNative only (the tensor's buffer is written on the "
                      "host); inside jit an error at the user's line, as MindSpore's CPU "
                      "graph mode has no in-place operations"
       for n in ("add_", "sub_", "mul_", "div_", "floor_divide_", "remainder_", "addmm_",
                 "clamp_", "copy_", "exp_", "floor_", "log_", "erfinv_", "sigmoid_", "sign_",
                 "tanh_",
                 "zero_", "fill_", "fill_diagonal_", "index_add_", "index_copy_",
                 "index_fill_", "index_put_", "masked_fill_", "masked_scatter_", "put_",
                 "scatter_add_")},
    **{f"Tensor:{n}": "in place in PyNative only (an error inside jit); " + _RNG
       for n in ("bernoulli_", "exponential_", "normal_", "random_", "uniform_")},
    "Tensor:scatter_": "in place in PyNative only (an error inside jit); reduce 'add' only "
                       "(no 'multiply')",
    "Tensor:scatter": "reduce 'add' only (no 'multiply')",
    **{f"Tensor:{n}": _RNG for n in ("uniform", "cauchy", "log_normal", "multinomial")},
    "Tensor:qr": "modified Gram-Schmidt unrolled over the columns: R's diagonal is "
                 "non-negative (LAPACK's Householder QR may flip the signs of Q's columns "
                 "and R's rows); some=False only for m <= n",
    **{f"Tensor:{n}": "substitution unrolled over the (static) matrix size: the graph grows "
                      "with n^2" for n in ("triangular_solve", "cholesky_solve", "lu_solve")},
    **{f"Tensor:{n}": "Householder reflectors unrolled over the (static) columns; equal to "
                      "LAPACK's geqrf/orgqr/ormqr in the tests" for n in ("geqrf", "orgqr",
                                                                          "ormqr")},
    "Tensor:lstsq": "full-rank matrices only (QR of the matrix or its transpose, unrolled)",
    "Tensor:nextafter": "float32 and float64 only",
    "Tensor:argwhere": _DYNAMIC,
    "Tensor:byte": "uint8 is a host-only dtype: a Tensor holds it; compiled ops refuse it",
    "Tensor:bfloat16": "converted on the host (ml_dtypes)",
    **{f"Tensor:{n}": "raises RuntimeError as MindSpore does off Ascend (msmlir's tensors "
                      "live in host memory)" for n in ("storage", "untyped_storage")},
    "Tensor:storage_offset": "always 0: every msmlir Tensor owns a contiguous buffer",
    "Tensor:move_to": "a copy in host memory whatever `to`",
    "Tensor:set_": "a copy of `source` (shape and dtype follow it); no storage_offset / "
                   "size / stride views",
    "Tensor:to_": "returns the tensor: msmlir's tensors stay in host memory",
    "Tensor:pin_memory": "returns the tensor (host memory, no page locking)",
    **{f"numpy:{n}": _DYNAMIC for n in ("argwhere", "intersect1d", "setdiff1d")},
    # functional twins / Primitive classes over the same implementations (ops/functional.py,
    # ops/operations/_linalg.py)
    **{f"{ns}:{n}": "Gaussian elimination unrolled over the (static) matrix size: the graph "
                    "grows with n" for ns, n in (
                        ("ops", "cholesky"), ("ops", "cholesky_inverse"),
                        ("ops", "matrix_determinant"), ("ops", "log_matrix_determinant"),
                        ("ops.operations", "Cholesky"), ("ops.operations", "CholeskyInverse"),
                        ("ops.operations", "MatrixInverse"), ("ops.operations", "MatrixSolve"),
                        ("ops.operations", "MatrixDeterminant"),
                        ("ops.operations", "LogMatrixDeterminant"))},
    **{f"{ns}:{n}": "the reduced SVD only (full_matrices=False) by one-sided Jacobi, 12 sweeps "
                    "in a loop; meant for small matrices" for ns, n in (("ops", "svd"),
                                                                        ("ops.operations", "Svd"))},
    **{f"ops.operations:{n}": "substitution unrolled over the (static) matrix size"
       for n in ("MatrixTriangularSolve", "CholeskySolve", "LuSolve")},
    "ops.operations:Qr": "modified Gram-Schmidt: R's diagonal non-negative (LAPACK's signs may "
                         "differ); full_matrices=True only for m <= n",
    **{f"ops.operations:{n}": "Householder reflectors unrolled over the columns"
       for n in ("Geqrf", "Orgqr")},
    "ops.operations:Lstsq": "full-rank matrices, l2_regularizer 0 only (QR)",
    **{f"ops.operations:{n}": _RNG for n in ("Cauchy", "LogNormalReverse")},
    "ops:random_categorical": _RNG, "ops:choice_with_mask": _RNG,
    "ops:unique_consecutive": _DYNAMIC,
    **{f"ops:{n}": "PyNative only (the number of non-zeros is data): a host container "
                   "(msmlir/ops/sparse.py)" for n in ("dense_to_sparse_coo", "dense_to_sparse_csr")},
    "ops:col2im": "output_size is read on the host: a concrete Tensor in PyNative, a tuple "
                  "inside jit",
    "ops.operations:NextAfter": "float32 and float64 only",
    **{f"ops.operations:{n}": "k = 0 (the main diagonal) only; k / num_rows / num_cols are "
                              "read on the host (Python numbers inside jit)"
       for n in ("MatrixDiagPartV3", "MatrixSetDiagV3", "MatrixDiagV3")},
    **{f"ops:{n}": "k = 0 (the main diagonal) only" for n in ("matrix_diag_part",
                                                               "matrix_set_diag",
                                                               "matrix_diag")},
    "ops.operations:CheckNumerics": "checks on the host in PyNative mode only (inside jit an "
                                    "error)",
    "ops.operations:RandomCategorical": _RNG, "ops:laplace": _RNG, "ops:shuffle": _RNG,
    **{f"numpy:{n}": _HOST_DTYPE for n in ("int16", "uint8", "uint16", "uint32", "uint64")},
    "Tensor:transpose": "",
}
PARTIAL = {k: v for k, v in PARTIAL.items() if v}
# partial names outside MindSpore's API-doc lists (Ascend/LLM primitives that real code uses):
# listed in their own section of the table
EXTRA_PARTIAL = {k: v for k, v in PARTIAL.items()
                 if k.split(":", 1)[1] not in NAMES[k.split(":", 1)[0]]}
PARTIAL = {k: v for k, v in PARTIAL.items() if k not in EXTRA_PARTIAL}


def _lookup_root(namespace):
    path = NAMESPACES[namespace]
    if path == "msmlir.Tensor":
        return importlib.import_module("msmlir").Tensor
    return importlib.import_module(path)


def _missing_notes():
    from ..ops.operations import MISSING
    return {f"ops.operations:{k}": v for k, v in MISSING.items()}


def status(namespace: str, name: str) -> tuple:
    """(status, note): 'supported', 'partial' or 'missing'."""
    root = _lookup_root(namespace)
    try:
        present = hasattr(root, name)
    except Exception:   # noqa: BLE001 - a lazy import that fails counts as missing
        present = False
    key = f"{namespace}:{name}"
    if not present:
        return "missing", _missing_notes().get(key, "")
    if key in PARTIAL:
        return "partial", PARTIAL[key]
    return "supported", ""


def table() -> list:
    """[(namespace, name, status, note)] for every reference name."""
    return [(ns, n, *status(ns, n)) for ns, names in NAMES.items() for n in names]


def summary(rows=None) -> dict:
    rows = table() if rows is None else rows
    out = {}
    for ns, _, st, _ in rows:
        d = out.setdefault(ns, {"supported": 0, "partial": 0, "missing": 0})
        d[st] += 1
    return out


def markdown() -> str:
    rows = table()
    lines = [
        "# MindSpore API compatibility",
        "",
        "Generated by `python -m msmlir.compat` from msmlir's code (each MindSpore name is",
        "looked up in msmlir's matching namespace) and the reference name lists in",
        "`python/msmlir/compat/_reference.py` (extracted from MindSpore's API docs, sources",
        "below). `test/python/compat/test_compat_table.py` fails when this file is stale.",
        "*partial*: the name exists and works, with the stated difference.",
        "",
        "| namespace | names | supported | partial | missing | present |",
        "|---|---|---|---|---|---|",
    ]
    for ns, d in summary(rows).items():
        total = sum(d.values())
        present = d["supported"] + d["partial"]
        lines.append(f"| `{ns}` | {total} | {d['supported']} | {d['partial']} | "
                     f"{d['missing']} | {100.0 * present / total:.0f}% |")
    lines += ["", "Sources: " + ", ".join(f"`{ns}`: {src}" for ns, src in SOURCES.items()), ""]
    lines += _usage_markdown()
    for ns in NAMES:
        sub = [r for r in rows if r[0] == ns]
        lines += [f"## `{ns}`", ""]
        sup = [n for _, n, st, _ in sub if st == "supported"]
        lines += ["**Supported:** " + ", ".join(f"`{n}`" for n in sup), ""]
        par = [(n, note) for _, n, st, note in sub if st == "partial"]
        if par:
            lines += ["**Partial:**", "", "| name | differs |", "|---|---|"]
            lines += [f"| `{n}` | {note} |" for n, note in par]
            lines.append("")
        mis = [(n, note) for _, n, st, note in sub if st == "missing"]
        if mis:
            lines += ["**Missing:** " + ", ".join(
                f"`{n}`" + (f" ({note})" if note else "") for n, note in mis), ""]
    return "\n".join(lines)


def _usage_markdown() -> list:
    from . import usage
    counts, header = usage.load_counts()
    cov = usage.coverage(counts)
    present, k, missing = usage.top_primitives_present(counts)
    lines = [
        "## Usage-weighted coverage",
        "",
        "Share of (file, name) uses of MindSpore names in real code that msmlir has",
        "(`python -m msmlir.compat --usage DIR...`, `python/msmlir/compat/usage.py`; counts",
        "stored in `python/msmlir/compat/usage_counts.tsv`). Corpus: " + " ".join(header) + ".",
        "`Tensor` is approximate: calls `x.m(...)` of MindSpore's documented Tensor method",
        "names on any receiver. `other`: private and tooling modules (`_checkparam`,",
        "`profiler`, `mindrecord`, `parallel._utils`, ...).",
        "",
        "| namespace | uses | covered | usage-weighted | names used | names present |",
        "|---|---|---|---|---|---|",
    ]
    for ns, d in cov.items():
        lines.append(f"| `{ns}` | {d['uses']} | {d['covered']} | "
                     f"{100.0 * d['covered'] / d['uses']:.1f}% | {d['names']} | "
                     f"{d['names_covered']} |")
    lines += ["", f"The {k} most-used Primitive classes: {present}/{k} present.", ""]
    if EXTRA_PARTIAL:
        lines += ["Partial names used in real code but outside the API-doc lists below "
                  "(Ascend / LLM primitives):", "", "| name | differs |", "|---|---|"]
        lines += [f"| `{k.split(':', 1)[0]}.{k.split(':', 1)[1]}` | {v} |"
                  for k, v in sorted(EXTRA_PARTIAL.items())]
        lines.append("")
    lines += ["Most-used missing names (uses):", ""]
    for ns, d in cov.items():
        if d["missing"]:
            lines.append(f"- `{ns}`: " + ", ".join(f"`{n}` ({u})" for n, u in d["missing"][:15]))
    return lines + [""]
