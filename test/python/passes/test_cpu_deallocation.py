"""msmlir-cpu-pipeline's deallocation (passes/pipelines/cpu.py, _DEALLOCATE):
upstream's buffer-deallocation passes nested in func.func, except the
lowering of bufferization.dealloc, which stays at module level: a dealloc of
several memrefs (a loop that yields buffers it allocates) needs the generic
helper function, which the lowering can only add to the module (nested, it
fails with "library function required for generic lowering")."""
import pytest
from mlir import ir

from msmlir import compiler
from msmlir.passes.pipelines.cpu import _DEALLOCATE
from msmlir.passes.registry import run_pipeline

LOOP = """
func.func @loop(%n: index, %x: memref<4xf32>, %c: i1) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (memref<4xf32>) {
    %b = memref.alloc() : memref<4xf32>
    memref.copy %acc, %b : memref<4xf32> to memref<4xf32>
    %s = scf.if %c -> memref<4xf32> {
      scf.yield %b : memref<4xf32>
    } else {
      scf.yield %acc : memref<4xf32>
    }
    scf.yield %s : memref<4xf32>
  }
  return %r : memref<4xf32>
}
"""

STATIC = """
func.func @static(%x: memref<8xf32>, %y: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  memref.copy %x, %t : memref<8xf32> to memref<8xf32>
  memref.copy %t, %y : memref<8xf32> to memref<8xf32>
  return
}
"""


def _run(text, pipeline):
    with compiler.context():
        m = ir.Module.parse(text)
        run_pipeline(m, f"builtin.module({pipeline})")
        return m.operation.get_asm()


def test_loop_yielding_allocations_gets_the_generic_helper():
    out = _run(LOOP, _DEALLOCATE)
    assert "func.func private @dealloc_helper" in out
    assert "call @dealloc_helper" in out
    assert "bufferization.dealloc" not in out


def test_nested_lowering_would_fail():
    """Why the lowering is not nested (the upstream behaviour this relies on)."""
    nested = _DEALLOCATE.replace("buffer-deallocation-simplification),"
                                 "bufferization-lower-deallocations,",
                                 "buffer-deallocation-simplification,"
                                 "bufferization-lower-deallocations),")
    assert nested != _DEALLOCATE
    with pytest.raises(ir.MLIRError, match="library function required for generic lowering"):
        _run(LOOP, nested)


def test_static_temporary_freed_before_return():
    out = _run(STATIC, _DEALLOCATE)
    body = out[out.index("@static"):]
    assert body.index("memref.dealloc") < body.index("return")
    assert "bufferization." not in out
