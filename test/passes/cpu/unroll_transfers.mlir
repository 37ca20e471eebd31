// RUN: ms-opt %s --msmlir-cpu-unroll-transfers | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-unroll-transfers --fold-memref-alias-ops | FileCheck %s --check-prefix=FOLD

// An n-D transfer_read of an expand_shape view is unrolled into 1-D reads
// before fold-memref-alias-ops, which folds those correctly: the two elements
// of the vector<2x1x1> come from [b, 0, m] and [b, 1, m] of the source (the
// upstream folder would read [b, 0, m] and [b + 1, 0, m]).
// CHECK-LABEL: func.func @read
// CHECK-COUNT-2: vector.transfer_read {{.*}} : memref<3x2x1x5xf64>, vector<1xf64>
// CHECK-NOT:     vector<2x1x1xf64>, memref
// FOLD-LABEL:  func.func @read
// FOLD-DAG:      %[[C1:.*]] = arith.constant 1 : index
// FOLD-DAG:      %[[C0:.*]] = arith.constant 0 : index
// FOLD:          %[[I0:.*]] = affine.linearize_index [%[[C0]], %arg2] by (1, 5)
// FOLD:          vector.transfer_read %arg0[%arg1, %[[C0]], %[[I0]]]{{.*}} : memref<3x2x5xf64>, vector<1xf64>
// FOLD:          %[[I1:.*]] = affine.linearize_index [%[[C0]], %arg2] by (1, 5)
// FOLD:          vector.transfer_read %arg0[%arg1, %[[C1]], %[[I1]]]{{.*}} : memref<3x2x5xf64>, vector<1xf64>
func.func @read(%src: memref<3x2x5xf64>, %b: index, %m: index) -> vector<2x1x1xf64> {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f64
  %e = memref.expand_shape %src [[0], [1], [2, 3]] output_shape [3, 2, 1, 5]
      : memref<3x2x5xf64> into memref<3x2x1x5xf64>
  %v = vector.transfer_read %e[%b, %c0, %c0, %m], %p {in_bounds = [true, true, true]}
      : memref<3x2x1x5xf64>, vector<2x1x1xf64>
  return %v : vector<2x1x1xf64>
}

// A transfer of a 1-element vector on an expand_shape view of a rank-0 memref
// becomes a scalar load/store of the source: once lowered to vector.load, the
// upstream fold would give a vector<1xf32> load of a memref<f32> (invalid).
// CHECK-LABEL: func.func @rank0_view
//  CHECK-SAME:   (%[[S:.+]]: memref<f32>, %[[D:.+]]: memref<f32>)
//       CHECK:   %[[X:.+]] = memref.load %[[S]][] : memref<f32>
//       CHECK:   %[[V:.+]] = vector.broadcast %[[X]] : f32 to vector<1xf32>
//       CHECK:   %[[W:.+]] = math.sin %[[V]] : vector<1xf32>
//       CHECK:   %[[E:.+]] = vector.extract %[[W]][0] : f32 from vector<1xf32>
//       CHECK:   memref.store %[[E]], %[[D]][] : memref<f32>
//   CHECK-NOT:   vector.transfer
// FOLD-LABEL:  func.func @rank0_view
//   FOLD-NOT:    vector.transfer
func.func @rank0_view(%s: memref<f32>, %d: memref<f32>) {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %a = memref.expand_shape %s [] output_shape [1] : memref<f32> into memref<1xf32>
  %b = memref.expand_shape %d [] output_shape [1] : memref<f32> into memref<1xf32>
  %v = vector.transfer_read %a[%c0], %p {in_bounds = [true]} : memref<1xf32>, vector<1xf32>
  %w = math.sin %v : vector<1xf32>
  vector.transfer_write %w, %b[%c0] {in_bounds = [true]} : vector<1xf32>, memref<1xf32>
  return
}
