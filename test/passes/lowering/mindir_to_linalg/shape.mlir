// RUN: ms-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @reshape_collapse
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32>)
//       CHECK:   %[[Y:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
//  CHECK-NEXT:   return %[[Y]]
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %y = mindir.reshape %x {shape = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

// Not a pure collapse or expand: collapse to the common coarsening, then expand.
// CHECK-LABEL: func.func @reshape_collapse_expand
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32>)
//       CHECK:   %[[C:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
//       CHECK:   %[[E:.+]] = tensor.expand_shape %[[C]] {{\[}}[0, 1]] output_shape [3, 8] : tensor<24xf32> into tensor<3x8xf32>
//  CHECK-NEXT:   return %[[E]]
func.func @reshape_collapse_expand(%x: tensor<2x3x4xf32>) -> tensor<3x8xf32> {
  %y = mindir.reshape %x {shape = array<i64: 3, 8>} : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

// Only the groups that need it change: [2, 6] -> [2, 3, 2] is a single expand.
// CHECK-LABEL: func.func @reshape_expand
//       CHECK:   %[[E:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2]] output_shape [2, 3, 2] : tensor<2x6xi32> into tensor<2x3x2xi32>
//  CHECK-NEXT:   return %[[E]]
func.func @reshape_expand(%x: tensor<2x6xi32>) -> tensor<2x3x2xi32> {
  %y = mindir.reshape %x {shape = array<i64: 2, 3, 2>} : (tensor<2x6xi32>) -> tensor<2x3x2xi32>
  return %y : tensor<2x3x2xi32>
}

// -----

// CHECK-LABEL: func.func @reshape_to_0d
//       CHECK:   tensor.collapse_shape %{{.+}} [] : tensor<1x1xf32> into tensor<f32>
func.func @reshape_to_0d(%x: tensor<1x1xf32>) -> tensor<f32> {
  %y = mindir.reshape %x {shape = array<i64>} : (tensor<1x1xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @expand_dims
//  CHECK-SAME:   (%[[X:.+]]: tensor<3x4xf32>)
//       CHECK:   %[[Y:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [3, 1, 4] : tensor<3x4xf32> into tensor<3x1x4xf32>
//  CHECK-NEXT:   return %[[Y]]
func.func @expand_dims(%x: tensor<3x4xf32>) -> tensor<3x1x4xf32> {
  %y = mindir.expand_dims %x {axis = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
  return %y : tensor<3x1x4xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x3x1x4xf32>)
//       CHECK:   %[[Y:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2, 3]] : tensor<1x3x1x4xf32> into tensor<3x4xf32>
//  CHECK-NEXT:   return %[[Y]]
func.func @squeeze(%x: tensor<1x3x1x4xf32>) -> tensor<3x4xf32> {
  %y = mindir.squeeze %x : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @flatten
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32>)
//       CHECK:   %[[Y:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
//  CHECK-NEXT:   return %[[Y]]
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %y = mindir.flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %y : tensor<2x12xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32>)
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<4x2x3xf32>
//       CHECK:   %[[Y:.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
//  CHECK-NEXT:   return %[[Y]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %y = mindir.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %y : tensor<4x2x3xf32>
}

// -----

// The stretched unit dim is collapsed away, then linalg.broadcast adds dims 0 and 2.
// CHECK-LABEL: func.func @broadcast_to
//  CHECK-SAME:   (%[[X:.+]]: tensor<3x1xf32>)
//       CHECK:   %[[C:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<3x1xf32> into tensor<3xf32>
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<2x3x4xf32>
//       CHECK:   %[[Y:.+]] = linalg.broadcast ins(%[[C]] : tensor<3xf32>) outs(%[[E]] : tensor<2x3x4xf32>) dimensions = [0, 2]
//  CHECK-NEXT:   return %[[Y]]
func.func @broadcast_to(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %y = mindir.broadcast_to %x {shape = array<i64: 2, -1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice
//  CHECK-SAME:   (%[[X:.+]]: tensor<5x6xf32>)
//       CHECK:   %[[Y:.+]] = tensor.extract_slice %[[X]][1, 2] [2, 4] [1, 1] : tensor<5x6xf32> to tensor<2x4xf32>
//  CHECK-NEXT:   return %[[Y]]
func.func @slice(%x: tensor<5x6xf32>) -> tensor<2x4xf32> {
  %y = mindir.slice %x {begin = array<i64: 1, 2>, size = array<i64: 2, -1>} : (tensor<5x6xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// x[1:5:2, 5::-2] (a negative stride): one generic over the result gathering
// x[1 + 2i, 5 - 2j] (a reversing indexing map would need a negative coefficient).
// CHECK-LABEL: func.func @strided_slice
//  CHECK-SAME:   (%[[X:.+]]: tensor<5x6xf32>)
//       CHECK:   %[[Y:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%{{.+}} : tensor<2x3xf32>)
//       CHECK:     %[[I:.+]] = linalg.index 0 : index
//       CHECK:     %[[J:.+]] = linalg.index 1 : index
//       CHECK:     %[[C2:.+]] = arith.constant 2 : index
//       CHECK:     %[[I2:.+]] = arith.muli %[[I]], %[[C2]] : index
//       CHECK:     %[[C1:.+]] = arith.constant 1 : index
//       CHECK:     %[[R:.+]] = arith.addi %[[C1]], %[[I2]] : index
//       CHECK:     %[[J2:.+]] = arith.muli %[[J]], %{{.+}} : index
//       CHECK:     %[[C5:.+]] = arith.constant 5 : index
//       CHECK:     %[[C:.+]] = arith.subi %[[C5]], %[[J2]] : index
//       CHECK:     %[[E:.+]] = tensor.extract %[[X]][%[[R]], %[[C]]] : tensor<5x6xf32>
//       CHECK:     linalg.yield %[[E]] : f32
//       CHECK:   return %[[Y]]
func.func @strided_slice(%x: tensor<5x6xf32>) -> tensor<2x3xf32> {
  %y = mindir.strided_slice %x {begin = array<i64: 1, 5>, end = array<i64: 5, -1>, strides = array<i64: 2, -2>} : (tensor<5x6xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Positive strides only: a single strided extract_slice.
// CHECK-LABEL: func.func @strided_slice_positive
//       CHECK:   %[[S:.+]] = tensor.extract_slice %{{.+}}[0, 2] [3, 2] [2, 3] : tensor<5x6xf32> to tensor<3x2xf32>
//  CHECK-NEXT:   return %[[S]]
func.func @strided_slice_positive(%x: tensor<5x6xf32>) -> tensor<3x2xf32> {
  %y = mindir.strided_slice %x {begin = array<i64: 0, 2>, end = array<i64: 5, 6>, strides = array<i64: 2, 3>} : (tensor<5x6xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @concat
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x5xf32>)
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<2x8xf32>
//       CHECK:   %[[I0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
//       CHECK:   %[[I1:.+]] = tensor.insert_slice %[[B]] into %[[I0]][0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x8xf32>
//  CHECK-NEXT:   return %[[I1]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %y = mindir.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func.func @split
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x6xf32>)
//       CHECK:   %[[A:.+]] = tensor.extract_slice %[[X]][0, 0] [2, 3] [1, 1] : tensor<2x6xf32> to tensor<2x3xf32>
//       CHECK:   %[[B:.+]] = tensor.extract_slice %[[X]][0, 3] [2, 3] [1, 1] : tensor<2x6xf32> to tensor<2x3xf32>
//  CHECK-NEXT:   return %[[A]], %[[B]]
func.func @split(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a, %b = mindir.split %x {axis = 1 : i64, output_num = 2 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Rank-extending insert_slice of each input at its position along the new axis.
// CHECK-LABEL: func.func @stack
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x3xf32>)
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<2x2x3xf32>
//       CHECK:   %[[I0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0] [2, 1, 3] [1, 1, 1] : tensor<2x3xf32> into tensor<2x2x3xf32>
//       CHECK:   %[[I1:.+]] = tensor.insert_slice %[[B]] into %[[I0]][0, 1, 0] [2, 1, 3] [1, 1, 1] : tensor<2x3xf32> into tensor<2x2x3xf32>
//  CHECK-NEXT:   return %[[I1]]
func.func @stack(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x2x3xf32> {
  %y = mindir.stack %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32>
  return %y : tensor<2x2x3xf32>
}

// -----

// gather along axis 1: a reduction over the indices counts those outside
// [-4, 4) and keeps one of them; if any, msmlir_check_failed(site 0, index,
// 4, count) reports it (the runtime raises IndexError at the op's location,
// msmlir.check_sites of the module). Then a generic over the result reads the
// index, wraps a negative one (+ dim), clamps it to [0, dim - 1] (no
// out-of-bounds read) and extracts from params.
// CHECK-DAG: #[[IDX:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK: module attributes {msmlir.check_sites = ["{{.*}}shape.mlir:[[@LINE+29]]:8: mindir.gather"]}
// CHECK: func.func private @msmlir_check_failed(i64, i64, i64, i64)
// CHECK-LABEL: func.func @gather
//  CHECK-SAME:   (%[[P:.+]]: tensor<10x4xf32>, %[[I:.+]]: tensor<2x3xi32>)
//       CHECK:   %[[CHK:.+]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[I]] : tensor<2x3xi32>) outs(%{{.+}}, %{{.+}} : tensor<i64>, tensor<i64>)
//       CHECK:     %[[LO:.+]] = arith.cmpi slt, %{{.+}}, %c-4_i64
//       CHECK:     %[[HI:.+]] = arith.cmpi sge, %{{.+}}, %c4_i64
//       CHECK:     arith.ori %[[LO]], %[[HI]]
//       CHECK:   %[[N:.+]] = tensor.extract %[[CHK]]#0[] : tensor<i64>
//       CHECK:   %[[BAD:.+]] = arith.cmpi sgt, %[[N]], %{{.+}} : i64
//       CHECK:   scf.if %[[BAD]] {
//       CHECK:     %[[V0:.+]] = tensor.extract %[[CHK]]#1[] : tensor<i64>
//       CHECK:     func.call @msmlir_check_failed(%{{.+}}, %[[V0]], %{{.+}}, %[[N]]) : (i64, i64, i64, i64) -> ()
//       CHECK:   %[[Y:.+]] = linalg.generic {indexing_maps = [#[[IDX]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<2x3xi32>) outs(%{{.+}} : tensor<10x2x3xf32>)
//       CHECK:   ^bb0(%[[V:.+]]: i32, %{{.+}}: f32):
//       CHECK:     %[[J:.+]] = arith.index_cast %[[V]] : i32 to index
//       CHECK:     %[[C0:.+]] = arith.constant 0 : index
//       CHECK:     %[[C4:.+]] = arith.constant 4 : index
//       CHECK:     %[[C3:.+]] = arith.constant 3 : index
//       CHECK:     %[[NEG:.+]] = arith.cmpi slt, %[[J]], %[[C0]] : index
//       CHECK:     %[[WRAP:.+]] = arith.addi %[[J]], %[[C4]] : index
//       CHECK:     %[[J1:.+]] = arith.select %[[NEG]], %[[WRAP]], %[[J]] : index
//       CHECK:     %[[J2:.+]] = arith.maxsi %[[J1]], %[[C0]] : index
//       CHECK:     %[[J3:.+]] = arith.minsi %[[J2]], %[[C3]] : index
//       CHECK:     %[[R:.+]] = linalg.index 0 : index
//       CHECK:     %[[E:.+]] = tensor.extract %[[P]][%[[R]], %[[J3]]] : tensor<10x4xf32>
//       CHECK:     linalg.yield %[[E]] : f32
//       CHECK:   return %[[Y]]
func.func @gather(%p: tensor<10x4xf32>, %i: tensor<2x3xi32>) -> tensor<10x2x3xf32> {
  %y = mindir.gather %p, %i {axis = 1 : i64} : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<10x2x3xf32>
  return %y : tensor<10x2x3xf32>
}

// -----

// tile [2, 2, 1] of a 2x3 tensor: broadcast to [2, 2, 2, 3] (multiples in front
// of each dim they repeat), then collapse each (multiple, dim) pair.
// CHECK-LABEL: func.func @tile
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3xf32>)
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<2x2x2x3xf32>
//       CHECK:   %[[B:.+]] = linalg.broadcast ins(%[[X]] : tensor<2x3xf32>) outs(%[[E]] : tensor<2x2x2x3xf32>) dimensions = [0, 1]
//       CHECK:   %[[Y:.+]] = tensor.collapse_shape %[[B]] {{\[}}[0], [1, 2], [3]] : tensor<2x2x2x3xf32> into tensor<2x4x3xf32>
//  CHECK-NEXT:   return %[[Y]]
func.func @tile(%x: tensor<2x3xf32>) -> tensor<2x4x3xf32> {
  %y = mindir.tile %x {multiples = array<i64: 2, 2, 1>} : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
  return %y : tensor<2x4x3xf32>
}

// -----

// The f64 constant_value is converted to the element type.
// CHECK-LABEL: func.func @pad
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3xi32>)
//       CHECK:   %[[C:.+]] = arith.constant 5 : i32
//       CHECK:   %[[Y:.+]] = tensor.pad %[[X]] low[1, 2] high[0, 2] {
//       CHECK:     tensor.yield %[[C]] : i32
//       CHECK:   } : tensor<2x3xi32> to tensor<3x7xi32>
//       CHECK:   return %[[Y]]
func.func @pad(%x: tensor<2x3xi32>) -> tensor<3x7xi32> {
  %y = mindir.pad %x {paddings = array<i64: 1, 0, 2, 2>, constant_value = 5.0 : f64} : (tensor<2x3xi32>) -> tensor<3x7xi32>
  return %y : tensor<3x7xi32>
}

// -----

// assign writes the value into the variable (a writable argument) and its
// result is the materialized tensor; depend is its value operand.
// CHECK-LABEL: func.func @assign
//  CHECK-SAME:   (%[[W:.+]]: tensor<4xf32>, %[[V:.+]]: tensor<4xf32>)
//       CHECK:   %[[R:.+]] = bufferization.materialize_in_destination %[[V]] in %[[W]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
//  CHECK-NEXT:   return %[[R]], %[[V]]
func.func @assign(%w: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = mindir.assign %w, %v : tensor<4xf32>
  %d = mindir.depend %v after %r : tensor<4xf32> : tensor<4xf32>
  return %r, %d : tensor<4xf32>, tensor<4xf32>
}
