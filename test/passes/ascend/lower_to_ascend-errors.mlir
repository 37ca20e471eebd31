// RUN: ms-opt %s --mskernel-lower-to-ascend="fallback=false" --verify-diagnostics -split-input-file
// RUN: not ms-opt %s --mskernel-lower-to-ascend="soc=Ascend999 fallback=false" -split-input-file 2>&1 | FileCheck %s --check-prefix=SOC

// A kernel the Ascend emitter cannot express is an error at the kernel
// function that names the kernel and the reason (no silent fallback).

// SOC: unknown soc 'Ascend999'

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
// expected-error @+1 {{mskernel-lower-to-ascend: kernel @cpu_reduce_midsum: reduction over dims [1] of [4, 5, 6]: only reductions over the innermost (last) or the outermost (first) axes are emitted}}
func.func private @cpu_reduce_midsum(%arg0: tensor<4x5x6xf32>) -> tensor<4x6xf32> attributes {mskernel.kind = #mskernel.kind<reduce>} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x6xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg0 : tensor<4x5x6xf32>) outs(%1 : tensor<4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<4x6xf32>
  return %2 : tensor<4x6xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
// expected-error @+1 {{mskernel-lower-to-ascend: kernel @cpu_elemwise_f64: element type f64 (only f32, f16, i32 and i1 are emitted)}}
func.func private @cpu_elemwise_f64(%arg0: tensor<8xf64>) -> tensor<8xf64> attributes {mskernel.kind = #mskernel.kind<elemwise>} {
  %0 = tensor.empty() : tensor<8xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg0 : tensor<8xf64>) outs(%0 : tensor<8xf64>) {
  ^bb0(%in: f64, %out: f64):
    %2 = arith.addf %in, %in : f64
    linalg.yield %2 : f64
  } -> tensor<8xf64>
  return %1 : tensor<8xf64>
}

// -----

#map = affine_map<(d0) -> (d0)>
// expected-error @+1 {{mskernel-lower-to-ascend: kernel @cpu_elemwise_i32: an i32 result (i32 tensors are only read, as f32 images)}}
func.func private @cpu_elemwise_i32(%arg0: tensor<8xi32>) -> tensor<8xi32> attributes {mskernel.kind = #mskernel.kind<elemwise>} {
  %0 = tensor.empty() : tensor<8xi32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg0 : tensor<8xi32>) outs(%0 : tensor<8xi32>) {
  ^bb0(%in: i32, %out: i32):
    %2 = arith.addi %in, %in : i32
    linalg.yield %2 : i32
  } -> tensor<8xi32>
  return %1 : tensor<8xi32>
}

// -----

#map = affine_map<(d0) -> (d0)>
// expected-error @+1 {{mskernel-lower-to-ascend: kernel @cpu_elemwise_erfc: 'math.erfc' in a linalg body (no Ascend C vector instruction emitted for it)}}
func.func private @cpu_elemwise_erfc(%arg0: tensor<8xf32>) -> tensor<8xf32> attributes {mskernel.kind = #mskernel.kind<elemwise>} {
  %0 = tensor.empty() : tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg0 : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.erfc %in : f32
    linalg.yield %2 : f32
  } -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// Functions that are not kernels are left alone.
func.func @host(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
