// RUN: ms-opt %s --mskernel-lower-to-ascend --verify-diagnostics -split-input-file

// The scalar fallback emits scf.for (sort's bitonic stages) as C++ loops; the
// cost model needs each loop's trip count, so a bound that is neither a
// constant nor an enclosing loop's variable is an error naming the kernel.

#map = affine_map<(d0) -> (d0)>
// expected-error @+1 {{mskernel-lower-to-ascend: kernel @cpu_opaque_dyn_trip: 'tensor.extract' in a vector kernel; the scalar fallback: an scf.for whose bounds are neither constants nor an enclosing loop's variable}}
func.func private @cpu_opaque_dyn_trip(%arg0: tensor<8xf32>, %arg1: tensor<i64>) -> tensor<8xf32> attributes {mskernel.kind = #mskernel.kind<opaque>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.extract %arg1[] : tensor<i64>
  %ub = arith.index_cast %n : i64 to index
  %0 = tensor.empty() : tensor<8xf32>
  %r = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %arg0) -> (tensor<8xf32>) {
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%acc : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = arith.addf %in, %in : f32
      linalg.yield %2 : f32
    } -> tensor<8xf32>
    scf.yield %1 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
// expected-error @+1 {{the scalar fallback: an scf.for carrying a scalar (scalar fallback)}}
func.func private @cpu_opaque_scalar_carry(%arg0: tensor<8xf32>) -> tensor<8xf32> attributes {mskernel.kind = #mskernel.kind<opaque>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %f0) -> (f32) {
    %e = tensor.extract %arg0[%i] : tensor<8xf32>
    %a = arith.addf %acc, %e : f32
    scf.yield %a : f32
  }
  %0 = tensor.empty() : tensor<8xf32>
  %1 = linalg.fill ins(%s : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}
