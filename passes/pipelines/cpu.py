"""msmlir-cpu-pipeline: mindir on tensors -> LLVM dialect, ready for the JIT.

mindir -> linalg (ours), elementwise fusion, one-shot bufferization with
function boundaries (results become caller-allocated out-parameters, so numpy
arrays are written in place), loops, then the standard upstream lowerings to
the LLVM dialect. Every stage but the first is an upstream MLIR pass.
"""
from ..registry import register_pipeline

_TO_LINALG = "convert-mindir-to-linalg,canonicalize,cse,linalg-fuse-elementwise-ops,canonicalize,cse"

_BUFFERIZE = (
    "eliminate-empty-tensors,"
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
    "canonicalize,"
    "buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},"
    "func.func(buffer-hoisting),"
    "buffer-deallocation-pipeline,"
    "cse,canonicalize"
)

_TO_LLVM = (
    "convert-linalg-to-loops,"
    "lower-affine,"
    "fold-memref-alias-ops,"
    "expand-strided-metadata,"
    "lower-affine,"
    "arith-expand,"
    "finalize-memref-to-llvm,"
    "convert-scf-to-cf,"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-arith-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-to-llvm,"
    "reconcile-unrealized-casts"
)


@register_pipeline("msmlir-cpu-pipeline",
                   "mindir -> linalg -> bufferized loops -> LLVM dialect (CPU JIT/AOT)")
def cpu_pipeline() -> str:
    return ",".join([_TO_LINALG, _BUFFERIZE, _TO_LLVM])


@register_pipeline("msmlir-cpu-bufferize",
                   "mindir -> linalg -> bufferized memrefs with out-parameters (stops before loops)")
def cpu_bufferize() -> str:
    return ",".join([_TO_LINALG, _BUFFERIZE])
