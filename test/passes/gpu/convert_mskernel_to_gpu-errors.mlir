// RUN: ms-opt %s --split-input-file --convert-mskernel-to-gpu --verify-diagnostics
// RUN: not ms-opt %s --split-input-file --convert-mskernel-to-gpu='threads=2000' 2>&1 | FileCheck %s --check-prefix=THREADS

// THREADS: threads=2000 is not in 1..1024

// A kernel with a dynamic shape cannot be mapped.
#id = affine_map<(d0) -> (d0)>
// expected-error @below {{convert-mskernel-to-gpu: kernel @dyn has a dynamic shape (tensor<?xf32>); the GPU mapping needs static shapes}}
func.func private @dyn(%x: tensor<?xf32>) -> tensor<?xf32> attributes {mskernel.kind = #mskernel.kind<elemwise>} {
  return %x : tensor<?xf32>
}

// -----

// Compute outside a kernel function would run on the host.
#id = affine_map<(d0) -> (d0)>
func.func @host(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @below {{convert-mskernel-to-gpu: 'linalg.generic' outside a kernel function cannot run on the GPU (run mindir-graph-kernel-fusion and mskernel-outline-kernels first)}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.negf %a : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A value read by serial kernel code, then overwritten before the loop that
// uses it: it can neither be re-read in the loop nor passed from the host.
#id = affine_map<(d0) -> (d0)>
func.func private @k(%a: memref<f32>, %out: memref<8xf32>) attributes {mskernel.kind = #mskernel.kind<elemwise>} {
  // expected-error @below {{convert-mskernel-to-gpu: a value computed by serial kernel code is used outside it; cannot map it to the GPU}}
  %v = memref.load %a[] : memref<f32>
  %one = arith.constant 1.0 : f32
  memref.store %one, %a[] : memref<f32>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%out : memref<8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// A parallel loop that carries a reduction (scf.reduce with a value) is not
// mapped (the kernels this pass makes never have one).
func.func private @red(%a: memref<8xf32>, %out: memref<f32>) attributes {mskernel.kind = #mskernel.kind<reduce>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @below {{convert-mskernel-to-gpu: a parallel loop with dynamic bounds or reductions cannot be mapped to the GPU}}
  %s = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %v = memref.load %a[%i] : memref<8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%x: f32, %y: f32):
      %r = arith.addf %x, %y : f32
      scf.reduce.return %r : f32
    }
  }
  memref.store %s, %out[] : memref<f32>
  return
}
