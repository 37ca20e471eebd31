"""msmlir-cpu-pipeline: mindir on tensors -> LLVM dialect, ready for the JIT.

mindir -> linalg (lowering/), elementwise fusion, then the CPU codegen stage
on tensors (cpu/, fusion/): packed matmul micro-kernels, the other named ops
generalized, row-wise chains (softmax, layernorm) fused into row loops,
everything else tiled and vectorized, fast exp/tanh/erf polynomials;
one-shot bufferization with function boundaries (results become
caller-allocated out-parameters, so numpy arrays are written in place),
vector lowering after bufferization, leftover linalg ops to loops, then the
standard upstream lowerings to the LLVM dialect.

Options (declared in OPTIONS below; `ms-opt --help` lists them with their
defaults): codegen=false gives the plain path only (scalar loops, the
reference); threads=N splits big ops into N OpenMP tasks (LLVM's libomp
from the cmeel-libomp wheel, bound by msmlir/runtime/linker.py); globalize=true makes big static temporaries
globals (faster matmul, non-reentrant functions); fast-math=false keeps
math.exp/tanh/erf as libm calls; ops with fewer than min-work iterations keep
the plain path (their scalar loops compile faster); the kernel classes the polyhedral
scheduler compiles at least as well as the hand strategies (transposes, alone or
fused with elementwise ops, rows 4 KiB multiples apart; elementwise ops on
their own; reductions over outer axes: column sums, bias gradients) always go to it
(passes/poly/claim.py decides; scheduled at the end of "bufferized");
poly=true also schedules every other plain-path loop nest with it (stage
"poly" after "bufferized"; off by default: it loses on small matmuls and
pooling windows, see passes/poly/claim.py). In the environment,
MSMLIR_CPU_CODEGEN=0|1, MSMLIR_CPU_THREADS=N and MSMLIR_CPU_POLY=0|1 set the
defaults of codegen, threads and poly (A/B runs of whole test suites).

inline-kernels=false (the default; MSMLIR_CPU_INLINE_KERNELS=1 sets it true)
keeps each outlined kernel a function of its own down to the LLVM dialect (the
host function calls it; bufferization makes its results out-parameters).
Why: compile time. The upstream passes anchored on functions then run on
small functions, in parallel on MLIR's thread pool; the vector lowering's
pattern rewrites (whose match-failure diagnostics print, and so verify, the
whole enclosing function) stop being quadratic in the size of a train step
(LeNet5's llvm stage: msmlir-cpu-lower-vectors 1.29 s -> 0.31 s); and LLVM can
compile the kernels concurrently (msmlir/runtime/parallel_compile.py). The
step time is unchanged (B5/B6) and the results are the same. poly=true
inlines them (it schedules the loop nests of whole functions).
"""
import os

from ..common.linalg import MIN_WORK
from ..cpu.tiling import host_has_avx512
from ..registry import Option, get_pass, register_pipeline

_CODEGEN_DEFAULT = os.environ.get("MSMLIR_CPU_CODEGEN", "1") not in ("0", "false", "")
_GRAPH_KERNEL_DEFAULT = os.environ.get("MSMLIR_GRAPH_KERNEL", "1") not in ("0", "false", "")
_POLY_DEFAULT = os.environ.get("MSMLIR_CPU_POLY", "0") not in ("0", "false", "")
_THREADS_DEFAULT = int(os.environ.get("MSMLIR_CPU_THREADS", "1") or 1)
_INLINE_DEFAULT = os.environ.get("MSMLIR_CPU_INLINE_KERNELS", "0") not in ("0", "false", "")

# Graph-level expansion (gradients become functions, callees are inlined, the
# dead private copies inlining leaves behind are dropped (they may hold assigns),
# parameter assigns become written-back results): msmlir.compiler runs it alone
# first to read the final public signatures, then `cpu_lowering` for the rest.
GRAPH_PREPARE = "mindir-autodiff,inline,symbol-dce,mindir-hoist-assigns,mindir-functionalize-assign"



# Composite ops expanded for fusion. layer_norm is expanded: msmlir-fuse-rows
# folds the unit dims of its [rows, 1] statistics, recomputes x - mean per
# consumer and yields mean/rstd from the row loop, so the expanded form is one
# row loop as fast as the whole op (y alone or y + mean + rstd). batch_norm
# stays whole: its statistics reduce over N, H, W (no row loop), and expanded
# training NCHW batch_norm is ~25% slower.
EXPANDED = ("softmax,log_softmax,softmax_cross_entropy_with_logits,"
            "sparse_softmax_cross_entropy_with_logits,gelu,silu,sigmoid,softplus,leaky_relu,"
            "bias_add,layer_norm")


def kernels(graph_kernel: bool) -> str:
    """The kernel level's entrance: composites expanded, the graph cut into
    kernels (fused clusters, or one op each without graph-kernel fusion),
    each outlined into a function that the codegen below compiles on its own."""
    expand = f"mindir-expand-composites{{ops={EXPANDED}}},canonicalize,cse," if graph_kernel else ""
    return (f"{expand}mindir-graph-kernel-fusion{{enable={str(graph_kernel).lower()}}},"
            "mskernel-outline-kernels")


# inline-kernels=true: the kernels are inlined back into the host function
# (mskernel-inline-kernels at the head of the linalg stage, the inliner before
# bufferization): a kernel call becomes a plain loop nest in the caller.
_INLINE_KERNELS = "inline,symbol-dce"

_TO_LINALG = ("convert-mindir-to-linalg,canonicalize,cse,"
              "msmlir-bound-elementwise-fusion,linalg-fuse-elementwise-ops,"
              "msmlir-drop-fusion-barriers,canonicalize,cse")

_BUFFERIZE_HEAD = (
    "msmlir-readonly-arguments,"
    "func.func(eliminate-empty-tensors),"
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops},"
    "func.func(canonicalize),"
    "msmlir-distinct-return-buffers,"
    "buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},"
    "msmlir-forward-call-outputs,"
    "func.func(buffer-hoisting,buffer-loop-hoisting)"
)
# i1 memrefs are widened to i8 right after bufferization (LLVM 22's memref
# lowering aborts on i1 loads/stores): no later pass makes new ones, and the
# module is a fraction of its size at the LLVM lowering (the pass walks it in
# Python: 0.12 s on LeNet5's train step there, ~0.01 s here).
#
# Deallocation: upstream's buffer-deallocation-pipeline, nested in func.func
# (its passes are function-local: the kernels run concurrently) and without
# two of its three canonicalize runs -- the one before the ownership-based
# pass (the input is canonical: the bufferization head ends with one) and the
# last one (the bufferized stage's fold-memref-alias-ops,canonicalize,cse
# follows). B1-B6: the same LLVM dialect module; CPU time (min of 6, load
# ~10) LeNet5's step 65 -> 25 ms, B5's 26 -> 11 ms (with the verification
# after each pass that msmlir.compiler no longer runs: 41 and 15 ms without).
_DEALLOCATE = ("func.func(expand-realloc{emit-deallocs=false},"
               "ownership-based-buffer-deallocation,canonicalize,"
               "buffer-deallocation-simplification),"
               "bufferization-lower-deallocations,"   # (module: may add its generic helper function)
               "func.func(cse)")
_BUFFERIZE_TAIL = _DEALLOCATE + ",msmlir-widen-bool-memrefs"

_BUFFERIZE = ",".join([_BUFFERIZE_HEAD, _BUFFERIZE_TAIL])

# Shared tail of both LLVM lowerings: memrefs (bools widened to bytes in the
# bufferization tail), control flow, math (log1p kept for libm: accurate near
# 0), then arith, funcs and cf in one convert-to-llvm (each dialect's
# conversion interface; the same IR as convert-arith/func/cf-to-llvm one after
# the other, in one walk of the module instead of three).
#
# Function-local upstream passes (canonicalize, cse, the loop, vector, scf and
# math lowerings, empty-tensor elimination, the deallocation passes) run
# nested in func.func here, in the bufferization and after the codegen: MLIR
# then runs them over the kernels (functions, inline-kernels=false)
# concurrently on its thread pool, where at module level they run on one
# thread. Module passes stay where a pass adds functions or declarations
# (finalize-memref-to-llvm, convert-math-to-libm, convert-to-llvm,
# bufferization-lower-deallocations) or needs the call graph
# (one-shot-bufferize). B1-B6 (codegen=true): the same LLVM dialect module as
# at module level; codegen=false: the same LLVM IR after opt -O3.
_MEMREF_TO_LLVM = (
    "msmlir-materialize-collectives,"       # MPI helper bodies (mindir collectives)
    "finalize-memref-to-llvm,"
    "func.func(convert-scf-to-cf,"
    "convert-math-to-llvm{approximate-log1p=false}),"  # log1p -> libm log1p (accurate near 0)
    "convert-math-to-libm,"
    "convert-to-llvm,"
    "reconcile-unrealized-casts"
)

_TO_LLVM = (
    "func.func(convert-linalg-to-loops,"
    "lower-affine,"
    "fold-memref-alias-ops,"
    "expand-strided-metadata,"
    "lower-affine,"
    "arith-expand),"
    + _MEMREF_TO_LLVM
)

# After msmlir-cpu-lower-vectors: what is left of the vector dialect, then LLVM.
#
# No canonicalize/cse after it, on the LLVM dialect: they drop ~40% of the ops
# (B6 19964 -> 11109: descriptor insert/extractvalue chains, constants), but
# LLVM's early-cse/instcombine fold the same for about what they cost (B6:
# MLIR +28-36 ms, LLVM -23..-40 ms; B5 +13-15, -11..+6; CPU, min of 6-8
# interleaved, load 15-18). Nor cse after lower-affine: within noise.
_VECTOR_TO_LLVM = (
    "func.func(convert-linalg-to-loops,"
    "canonicalize,cse,"
    "convert-vector-to-scf{full-unroll=true},"
    "lower-vector-multi-reduction,"
    "lower-affine,"
    "fold-memref-alias-ops,"
    "expand-strided-metadata,"
    "lower-affine,"
    "arith-expand,"
    "convert-vector-to-llvm{vector-contract-lowering=outerproduct reassociate-fp-reductions=true}),"
    + _MEMREF_TO_LLVM
)

# The plain path under the polyhedral scheduler (codegen=true, poly=true): the
# linalg ops the tensor codegen left alone (small ops below min-work, matmuls
# below pack-matmul's threshold, gathers, pooling windows, ...) become affine
# nests, each group of consecutive nests is outlined into a private function
# and scheduled by isl (passes/poly/: fusion, permutation, tiling for L1/L2;
# the function carries `mskernel.schedule`; groups it cannot represent stay
# as they are), reused strided tiles are promoted to contiguous buffers.
# `inline,symbol-dce` at the head of the LLVM stage puts the groups back.
_POLY = ("convert-linalg-to-affine-loops,"
         "msmlir-cpu-fast-math{min-lanes=1 row-ops=false},"  # scalar exp: LLVM vectorizes the polynomial
         "mskernel-poly-schedule{target=cpu nests=true},"
         "mskernel-promote-buffers")
_POLY_INLINE = "inline,symbol-dce"


# Always (codegen=true, at the end of the "bufferized" stage): the functions
# mskernel-poly-claim outlined for the scheduler (the kernel classes it
# compiles better than the hand strategies: transposes, a transpose with its
# elementwise consumer, row reductions; passes/poly/claim.py has the
# per-class measurements).
def _poly_claimed(threads: int) -> str:
    """The scheduler on the claimed functions, their outer parallel band split
    into `threads` OpenMP tasks as the hand strategies split theirs."""
    return f"mskernel-poly-schedule{{target=cpu claimed=true cpu-threads={threads}}}"


# Last on bufferized code (after anything that moves loop nests): the parameter
# updates whose kernel reads each old element before writing the new one
# (passes/fusion/inplace_writeback.py); the runtime passes the parameter's own
# array as their out-parameter instead of copying the result back (B5: 2.6 MB
# per step, ~0.2 ms of 2.4 ms at one thread).
_INPLACE = "msmlir-inplace-writeback"

# threads > 1: each scf.parallel (one task per thread) becomes an OpenMP
# parallel region with a static work-sharing loop, run by LLVM's libomp
# (the cmeel-libomp wheel, bound by msmlir/runtime/linker.py). A region costs
# ~1-5 us with the workers spinning between regions (KMP_BLOCKTIME), against
# ~60 us on MLIR's async runtime, whose workers sleep on a futex.
def _openmp(threads: int) -> str:
    return f"convert-scf-to-openmp{{num-threads={threads}}}"

OPTIONS = {
    "graph-kernel": Option(bool, _GRAPH_KERNEL_DEFAULT,
                           "graph-kernel fusion (false: one kernel per op; "
                           "set_context(enable_graph_kernel=...))"),
    "codegen": Option(bool, _CODEGEN_DEFAULT,
                      "tile/vectorize/pack on tensors (false: the plain scalar-loop path)"),
    "threads": Option(int, _THREADS_DEFAULT, "OpenMP threads per big op (1: serial)"),
    "globalize": Option(bool, False, "static temporaries become globals (non-reentrant functions)"),
    "fast-math": Option(bool, True, "polynomial math.exp/tanh/erf instead of libm calls"),
    "min-work": Option(int, MIN_WORK, "ops with a smaller iteration space keep the plain path "
                                      "(compile time of small functions)"),
    "inline-kernels": Option(bool, _INLINE_DEFAULT,
                             "kernels inlined into their callers before codegen (false: each "
                             "kernel stays a function, compiled on its own)"),
    "poly": Option(bool, _POLY_DEFAULT, "polyhedral scheduling (isl) of the plain path's loop "
                                        "nests after bufferization (codegen=true only)"),
}


def tensor_codegen(threads: int, min_work: int, poly_claim: bool = False) -> str:
    """The codegen stage on tensors: convolutions as im2col + matmul, packed
    matmuls, then the other named ops generalized, (poly_claim: the kernel
    classes the isl scheduler does better outlined for it, passes/poly/
    claim.py), pooling windows vectorized, row-wise chains fused,
    everything else tiled and vectorized."""
    claim = f"mskernel-poly-claim{{min-work={min_work}}}," if poly_claim else ""
    return (f"msmlir-cpu-conv-to-matmul{{threads={threads}}},"
            f"msmlir-cpu-pack-matmul{{threads={threads}}},"
            "msmlir-cpu-generalize,"
            f"msmlir-cpu-vectorize-arg-reductions{{threads={threads} min-work={min_work}}},"
            f"{claim}"
            f"msmlir-cpu-vectorize-windows{{threads={threads} min-work={min_work}}},"
            f"msmlir-fuse-rows{{threads={threads} min-work={min_work}}},"
            f"msmlir-cpu-tile-vectorize{{threads={threads} min-work={min_work}}}")


@register_pipeline("msmlir-cpu-pipeline",
                   "mindir -> linalg -> tiled/vectorized -> bufferized -> LLVM dialect (CPU JIT/AOT)",
                   options=OPTIONS)
def cpu_pipeline(*, graph_kernel: bool, codegen: bool, threads: int, globalize: bool,
                 fast_math: bool, min_work: int, inline_kernels: bool, poly: bool) -> str:
    return ",".join([GRAPH_PREPARE, _lowering(
        graph_kernel=graph_kernel, codegen=codegen, threads=threads, globalize=globalize,
        fast_math=fast_math, min_work=min_work, inline_kernels=inline_kernels, poly=poly)])


def cpu_lowering(**options) -> str:
    """msmlir-cpu-pipeline after GRAPH_PREPARE. `options`: the pipeline's, by
    declared name (as parse_options gives them) or Python name; the others
    take the pipeline's current defaults."""
    return _lowering(**get_pass("msmlir-cpu-pipeline").kwargs(options))


def cpu_lowering_stages(**options) -> list[tuple[str, str]]:
    """cpu_lowering as named stages [(name, pipeline text)], run one after the
    other (what `set_context(save_graphs=True)` dumps after)."""
    return _stages(**get_pass("msmlir-cpu-pipeline").kwargs(options))


def _lowering(**options) -> str:
    return ",".join(text for _, text in _stages(**options))


def _stages(*, graph_kernel: bool, codegen: bool, threads: int, globalize: bool,
            fast_math: bool, min_work: int, poly: bool,
            inline_kernels: bool = True) -> list[tuple[str, str]]:
    # poly=true schedules the plain-path nests of whole functions: kernels inlined
    inline_kernels = inline_kernels or (poly and codegen)
    to_linalg = ("mskernel-inline-kernels," if inline_kernels else "") + _TO_LINALG
    inline = [_INLINE_KERNELS] if inline_kernels else []
    if not codegen:
        return [("kernels", kernels(graph_kernel)), ("linalg", to_linalg),
                ("bufferized", ",".join(inline + [_BUFFERIZE, _INPLACE])), ("llvm", _TO_LLVM)]
    # (inline-kernels=true inlines the claimed functions at the head of
    # "bufferized": nothing is claimed then, unless poly=true schedules all)
    codegen_stage = [tensor_codegen(threads, min_work, poly_claim=poly or not inline_kernels)]
    if fast_math:
        codegen_stage.append("msmlir-cpu-fast-math")
    codegen_stage.append("func.func(canonicalize,cse)")
    bufferize = inline + [_BUFFERIZE_HEAD]
    if globalize:
        bufferize.append("msmlir-cpu-globalize-allocs")
    bufferize += [_BUFFERIZE_TAIL,
                  # (1-D transfers: works around an upstream fold-memref-alias-ops bug
                  # on n-D transfer_reads of memref.expand_shape views)
                  "msmlir-cpu-unroll-transfers,msmlir-cpu-cast-collapses,"
                  "func.func(fold-memref-alias-ops,canonicalize,cse)"]
    bufferize.append(_poly_claimed(threads))
    if not poly:   # (poly=true: after the scheduler, which may reorder the nests)
        bufferize.append(_INPLACE)
    llvm = [_POLY_INLINE] if poly else []
    llvm.append(f"msmlir-cpu-lower-vectors{{threads={threads}}}")
    # multi-pass row loops (those msmlir-fuse-rows marked): next row during the heaviest pass
    llvm.append("msmlir-cpu-prefetch-rows{marked-only=true}")
    llvm.append("msmlir-cpu-streaming-stores")  # big write-only outputs: non-temporal stores
    if threads > 1:
        llvm.append(_openmp(threads))
    llvm.append(_VECTOR_TO_LLVM)
    if fast_math and host_has_avx512():
        # the fast exp's scaling -> vscalefps (in the functions fast-math marked)
        llvm.append("msmlir-cpu-scale-by-ldexp{marked-only=true}")
    stages = [("kernels", kernels(graph_kernel)), ("linalg", to_linalg),
              ("codegen", ",".join(codegen_stage)), ("bufferized", ",".join(bufferize))]
    if poly:
        stages.append(("poly", f"{_POLY},{_INPLACE}"))
    return stages + [("llvm", ",".join(llvm))]


@register_pipeline("msmlir-cpu-bufferize",
                   "mindir -> linalg -> bufferized memrefs with out-parameters (stops before loops)")
def cpu_bufferize() -> str:
    return ",".join([GRAPH_PREPARE, kernels(_GRAPH_KERNEL_DEFAULT), "mskernel-inline-kernels",
                     _TO_LINALG, _INLINE_KERNELS,
                     _BUFFERIZE])
