"""msmlir-cpu-pipeline: mindir on tensors -> LLVM dialect, ready for the JIT.

mindir -> linalg (ours), elementwise fusion, then the CPU codegen stage
(passes/cpu): tiling + vectorization on tensors (packed matmul micro-kernel,
vectorized elementwise ops and reductions, fast exp/tanh/erf polynomials),
one-shot bufferization with function boundaries (results become
caller-allocated out-parameters, so numpy arrays are written in place),
vector lowering after bufferization, leftover linalg ops to loops, then the
standard upstream lowerings to the LLVM dialect.

Options of msmlir-cpu-pipeline (defaults: codegen on, 1 thread):
  codegen=false     the plain path only (scalar loops; the reference);
                    MSMLIR_CPU_CODEGEN=0 in the environment flips the default
  threads=N         split big ops into N tasks run on the MLIR async runtime
                    (libmlir_async_runtime.so from the MLIR wheel, bound by
                    msmlir/runtime/linker.py; MSMLIR_CPU_THREADS=N sets the
                    default)
  globalize=true    big static temporaries become globals (faster matmul;
                    compiled functions become non-reentrant)
  fast-math=false   keep math.exp/tanh/erf as libm calls
  min-work=N        ops with fewer than N iterations keep the plain path
                    (default 8192; their scalar loops compile faster)
"""
import os

from ..registry import register_pipeline

# The environment can flip the defaults (A/B runs of whole test suites):
# MSMLIR_CPU_CODEGEN=0|1, MSMLIR_CPU_THREADS=N.
_CODEGEN_DEFAULT = os.environ.get("MSMLIR_CPU_CODEGEN", "1") not in ("0", "false", "")
_THREADS_DEFAULT = int(os.environ.get("MSMLIR_CPU_THREADS", "1") or 1)

# Graph-level expansion (gradients become functions, callees are inlined, the
# dead private copies inlining leaves behind are dropped (they may hold assigns),
# parameter assigns become written-back results): msmlir.compiler runs it alone
# first to read the final public signatures, then `cpu_lowering` for the rest.
GRAPH_PREPARE = "mindir-autodiff,inline,symbol-dce,mindir-functionalize-assign"

_TO_LINALG = "mskernel-inline-kernels,convert-mindir-to-linalg,canonicalize,cse,linalg-fuse-elementwise-ops,canonicalize,cse"

_BUFFERIZE_HEAD = (
    "eliminate-empty-tensors,"
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops},"
    "canonicalize,"
    "msmlir-distinct-return-buffers,"
    "buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},"
    "func.func(buffer-hoisting),"
    "func.func(buffer-loop-hoisting)"
)
_BUFFERIZE_TAIL = "buffer-deallocation-pipeline,cse,canonicalize"

_BUFFERIZE = ",".join([_BUFFERIZE_HEAD, _BUFFERIZE_TAIL])

# Shared tail of both LLVM lowerings: memrefs (bools widened first), control
# flow, math (log1p kept for libm: accurate near 0), arith, funcs.
_MEMREF_TO_LLVM = (
    "msmlir-widen-bool-memrefs,"
    "finalize-memref-to-llvm,"
    "convert-scf-to-cf,"
    "convert-math-to-llvm{approximate-log1p=false},"  # log1p -> libm log1p (accurate near 0)
    "convert-math-to-libm,"
    "convert-arith-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-to-llvm,"
    "reconcile-unrealized-casts"
)

_TO_LLVM = (
    "convert-linalg-to-loops,"
    "lower-affine,"
    "fold-memref-alias-ops,"
    "expand-strided-metadata,"
    "lower-affine,"
    "arith-expand,"
    + _MEMREF_TO_LLVM
)

# After msmlir-cpu-lower-vectors: what is left of the vector dialect, then LLVM.
_VECTOR_TO_LLVM = (
    "convert-linalg-to-loops,"
    "canonicalize,cse,"
    "convert-vector-to-scf{full-unroll=true},"
    "func.func(lower-vector-multi-reduction),"
    "lower-affine,"
    "fold-memref-alias-ops,"
    "expand-strided-metadata,"
    "lower-affine,"
    "arith-expand,"
    "convert-vector-to-llvm{vector-contract-lowering=outerproduct reassociate-fp-reductions=true},"
    + _MEMREF_TO_LLVM
)

_ASYNC_TO_LLVM = (
    "async-parallel-for{async-dispatch=true num-workers=-1 min-task-size=1},"
    "async-to-async-runtime,async-runtime-ref-counting,async-runtime-ref-counting-opt,"
    "convert-async-to-llvm"
)

_OPTIONS = {
    "codegen": (bool, _CODEGEN_DEFAULT,
                "tile/vectorize/pack on tensors (false: the plain scalar-loop path)"),
    "threads": (int, _THREADS_DEFAULT, "tasks per big op on the async runtime (1: serial)"),
    "globalize": (bool, False, "static temporaries become globals (non-reentrant functions)"),
    "fast-math": (bool, True, "polynomial math.exp/tanh/erf instead of libm calls"),
    "min-work": (int, 8192, "ops with a smaller iteration space keep the plain path "
                            "(compile time of small functions)"),
}


@register_pipeline("msmlir-cpu-pipeline",
                   "mindir -> linalg -> tiled/vectorized -> bufferized -> LLVM dialect (CPU JIT/AOT)",
                   options=_OPTIONS)
def cpu_pipeline(**opts) -> str:
    return ",".join([GRAPH_PREPARE, cpu_lowering(**opts)])


def cpu_lowering(**opts) -> str:
    """msmlir-cpu-pipeline after GRAPH_PREPARE."""
    codegen = opts.get("codegen", _CODEGEN_DEFAULT)
    threads = opts.get("threads", _THREADS_DEFAULT)
    globalize = opts.get("globalize", False)
    fast_math = opts.get("fast-math", True)
    if not codegen:
        return ",".join([_TO_LINALG, _BUFFERIZE, _TO_LLVM])
    min_work = opts.get("min-work", 8192)
    stages = [_TO_LINALG, f"msmlir-cpu-tile-vectorize{{threads={threads} min-work={min_work}}}"]
    if fast_math:
        stages.append("msmlir-cpu-fast-math")
    stages += ["canonicalize,cse", _BUFFERIZE_HEAD]
    if globalize:
        stages.append("msmlir-cpu-globalize-allocs")
    stages += [_BUFFERIZE_TAIL,
               # (1-D transfers: works around an upstream fold-memref-alias-ops bug
               # on n-D transfer_reads of memref.expand_shape views)
               "msmlir-cpu-unroll-transfers,fold-memref-alias-ops,canonicalize,cse",
               f"msmlir-cpu-lower-vectors{{threads={threads}}}"]
    if threads > 1:
        stages.append(_ASYNC_TO_LLVM)
    stages.append(_VECTOR_TO_LLVM)
    return ",".join(stages)


@register_pipeline("msmlir-cpu-bufferize",
                   "mindir -> linalg -> bufferized memrefs with out-parameters (stops before loops)")
def cpu_bufferize() -> str:
    return ",".join([GRAPH_PREPARE, _TO_LINALG, _BUFFERIZE])
