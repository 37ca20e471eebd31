// RUN: ms-opt %s --mskernel-poly-schedule="tile-sizes=0" --verify-diagnostics | FileCheck %s

// A buffer reached through a view (expand/collapse_shape, subview,
// reinterpret_cast) and through its source is one array for the dependences
// (passes/poly/model.py: the access as the element offset into the root
// buffer). Without that, the write through one and the read through the
// other were independent statements and isl put them in a set the AST
// emitted in reverse order: every function below came out reordered.

// Write through the view, then read through the source: the flow
// dependence keeps the store before the load (isl fuses the two nests along
// the linear element index, the store first in each iteration).
// CHECK-LABEL: func.func @raw_expand
// CHECK-SAME:    mskernel.schedule = "
// CHECK:         affine.for %[[K:.*]] = 0 to 64 {
// CHECK:           affine.store %{{.*}}, %[[V:expand_shape]][
// CHECK:           affine.load %arg0[
// CHECK:           affine.store %{{.*}}, %arg1[
// CHECK:         }
func.func @raw_expand(%A: memref<64xf32>, %C: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  %V = memref.expand_shape %A [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.store %one, %V[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %k = 0 to 64 {
    %a = affine.load %A[%k] : memref<64xf32>
    affine.store %a, %C[%k] : memref<64xf32>
  }
  return
}

// Read through the source, then overwrite through the view: the anti
// dependence keeps the copy before the overwrite.
// CHECK-LABEL: func.func @war_expand
// CHECK-SAME:    mskernel.schedule = "
// CHECK:         affine.vector_load %arg0[
// CHECK:         affine.vector_store %{{.*}}, %arg1[
// CHECK:         affine.vector_store %{{.*}}, %expand_shape[
func.func @war_expand(%A: memref<64xf32>, %C: memref<64xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %k = 0 to 64 {
    %a = affine.load %A[%k] : memref<64xf32>
    affine.store %a, %C[%k] : memref<64xf32>
  }
  %V = memref.expand_shape %A [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.store %z, %V[%i, %j] : memref<8x8xf32>
    }
  }
  return
}

// A 2-D buffer written through its collapsed view and read transposed
// through the source: the reads stay after the writes.
// CHECK-LABEL: func.func @raw_collapse
// CHECK-SAME:    mskernel.schedule = "
// CHECK:         %collapse_shape
// CHECK:         affine.store %{{.*}}, %collapse_shape[
// CHECK:         affine.load %arg0[
// CHECK:         affine.store %{{.*}}, %arg1[
func.func @raw_collapse(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
  %one = arith.constant 1.0 : f32
  %V = memref.collapse_shape %A [[0, 1]] : memref<16x16xf32> into memref<256xf32>
  affine.for %k = 0 to 256 {
    affine.store %one, %V[%k] : memref<256xf32>
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %a = affine.load %A[%j, %i] : memref<16x16xf32>
      affine.store %a, %C[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// A strided subview with an offset (rows 2..9, every other column from 1):
// the cells it writes are read afterwards through the source.
// CHECK-LABEL: func.func @raw_subview
// CHECK-SAME:    mskernel.schedule = "
// CHECK:         affine.store %{{.*}}, %subview[
// CHECK:         affine.load %arg0[
func.func @raw_subview(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
  %one = arith.constant 1.0 : f32
  %V = memref.subview %A[2, 1] [8, 6] [1, 2] : memref<16x16xf32> to memref<8x6xf32, strided<[16, 2], offset: 33>>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 6 {
      affine.store %one, %V[%i, %j] : memref<8x6xf32, strided<[16, 2], offset: 33>>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %a = affine.load %A[%j, %i] : memref<16x16xf32>
      affine.store %a, %C[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// Two views of one buffer (no access through the source itself): a
// reinterpret_cast written, an expand_shape read.
// CHECK-LABEL: func.func @two_views
// CHECK-SAME:    mskernel.schedule = "
// CHECK:         affine.store %{{.*}}, %reinterpret_cast[
// CHECK:         affine.load %expand_shape[
func.func @two_views(%A: memref<64xf32>, %C: memref<8x8xf32>) {
  %one = arith.constant 1.0 : f32
  %R = memref.reinterpret_cast %A to offset: [0], sizes: [4, 16], strides: [16, 1] : memref<64xf32> to memref<4x16xf32>
  %V = memref.expand_shape %A [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 16 {
      affine.store %one, %R[%i, %j] : memref<4x16xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %a = affine.load %V[%j, %i] : memref<8x8xf32>
      affine.store %a, %C[%i, %j] : memref<8x8xf32>
    }
  }
  return
}

// Disjoint subviews of one buffer (first and second half) stay independent:
// the element offsets are exact, not "the whole buffer".
// CHECK-LABEL: func.func @disjoint_halves
// CHECK-SAME:    reductions: none | schedule: { domain: {{.*}} set: [
func.func @disjoint_halves(%A: memref<64xf32>, %C: memref<32xf32>) {
  %one = arith.constant 1.0 : f32
  %L = memref.subview %A[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  %H = memref.subview %A[32] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: 32>>
  affine.for %i = 0 to 32 {
    affine.store %one, %L[%i] : memref<32xf32, strided<[1]>>
  }
  affine.for %i = 0 to 32 {
    %a = affine.load %H[%i] : memref<32xf32, strided<[1], offset: 32>>
    affine.store %a, %C[%i] : memref<32xf32>
  }
  return
}

// A view with a dynamic offset of a buffer also accessed directly: which
// cells it reaches is unknown, so the function is left unchanged.
// CHECK-LABEL: func.func @dynamic_offset
// CHECK-NOT:     mskernel.schedule
// expected-remark @below {{mskernel-poly-schedule: not representable: a view with dynamic strides or offset (memref<8xf32, strided<[1], offset: ?>>) of a buffer also accessed through another memref value; the function is unchanged}}
func.func @dynamic_offset(%A: memref<64xf32>, %C: memref<64xf32>, %o: index) {
  %one = arith.constant 1.0 : f32
  %V = memref.reinterpret_cast %A to offset: [%o], sizes: [8], strides: [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
  affine.for %i = 0 to 8 {
    affine.store %one, %V[%i] : memref<8xf32, strided<[1], offset: ?>>
  }
  affine.for %k = 0 to 64 {
    %a = affine.load %A[%k] : memref<64xf32>
    affine.store %a, %C[%k] : memref<64xf32>
  }
  return
}

// A transposed view (memref.transpose: a strided layout map) read through
// while the source is written: the stores stay before the loads.
// CHECK-LABEL: func.func @raw_transpose
// CHECK-SAME:    mskernel.schedule = "
// CHECK:         affine.store %{{.*}}, %arg0[
// CHECK:         affine.load %transpose[
#tr = affine_map<(d0, d1) -> (d1 * 8 + d0)>
func.func @raw_transpose(%A: memref<8x8xf32>, %C: memref<8x8xf32>) {
  %one = arith.constant 1.0 : f32
  %T = memref.transpose %A (i, j) -> (j, i) : memref<8x8xf32> to memref<8x8xf32, #tr>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.store %one, %A[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %a = affine.load %T[%i, %j] : memref<8x8xf32, #tr>
      affine.store %a, %C[%i, %j] : memref<8x8xf32>
    }
  }
  return
}
