// RUN: ms-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s
//
// The optional run-time `offset` operand (0-d i64) of random_uniform,
// random_normal and dropout: its value is read once (tensor.extract) and mixed
// into the tensor key outside the linalg.generic,
//   k = mix(s + offset * G),  s = mix(seed * G + stream + 1) (a constant),
// with G = 0x9E3779B97F4A7C15 (-7046029254386353131 as i64) and mix the
// splitmix64 finalizer; the body then hashes k + (i + 1) * G as without an
// offset (creation.mlir, nn.mlir).

// uniform, seed 42, stream 0: s = -5383142681732044537.
// CHECK-LABEL: func.func @uniform_offset
//  CHECK-SAME:   (%[[OFF:.+]]: tensor<i64>)
//       CHECK:   %[[O:.+]] = tensor.extract %[[OFF]][] : tensor<i64>
//       CHECK:   %[[S:.+]] = arith.constant -5383142681732044537 : i64
//       CHECK:   %[[G:.+]] = arith.constant -7046029254386353131 : i64
//       CHECK:   %[[OG:.+]] = arith.muli %[[O]], %[[G]] : i64
//       CHECK:   %[[X0:.+]] = arith.addi %[[S]], %[[OG]] : i64
//       CHECK:   %[[C30:.+]] = arith.constant 30 : i64
//       CHECK:   %[[A1:.+]] = arith.shrui %[[X0]], %[[C30]] : i64
//       CHECK:   %[[B1:.+]] = arith.xori %[[X0]], %[[A1]] : i64
//       CHECK:   %[[M1:.+]] = arith.constant -4658895280553007687 : i64
//       CHECK:   %[[X1:.+]] = arith.muli %[[B1]], %[[M1]] : i64
//       CHECK:   %[[C27:.+]] = arith.constant 27 : i64
//       CHECK:   %[[A2:.+]] = arith.shrui %[[X1]], %[[C27]] : i64
//       CHECK:   %[[B2:.+]] = arith.xori %[[X1]], %[[A2]] : i64
//       CHECK:   %[[M2:.+]] = arith.constant -7723592293110705685 : i64
//       CHECK:   %[[X2:.+]] = arith.muli %[[B2]], %[[M2]] : i64
//       CHECK:   %[[C31:.+]] = arith.constant 31 : i64
//       CHECK:   %[[A3:.+]] = arith.shrui %[[X2]], %[[C31]] : i64
//       CHECK:   %[[K:.+]] = arith.xori %[[X2]], %[[A3]] : i64
//       CHECK:   %[[R:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<4x4xf32>)
//   CHECK-NOT:     tensor.extract
//       CHECK:     %[[LIN:.+]] = arith.index_cast %{{.+}} : index to i64
//       CHECK:     %[[NEXT:.+]] = arith.addi %[[LIN]], %{{.+}} : i64
//       CHECK:     %[[STEP:.+]] = arith.muli %[[NEXT]], %{{.+}} : i64
//       CHECK:     %[[Z:.+]] = arith.addi %[[K]], %[[STEP]] : i64
//       CHECK:     arith.shrui %[[Z]], %{{.+}} : i64
//       CHECK:     arith.uitofp %{{.+}} : i64 to f32
//       CHECK:     linalg.yield
//       CHECK:   return %[[R]]
func.func @uniform_offset(%off: tensor<i64>) -> tensor<4x4xf32> {
  %u = mindir.random_uniform offset(%off : tensor<i64>) {seed = 42 : i64} : tensor<4x4xf32>
  return %u : tensor<4x4xf32>
}

// -----

// normal, seed 42: one key per stream, s = 3114053619271302762 (stream 1) and
// -9075771055647653584 (stream 2), both mixed with the same offset.
// CHECK-LABEL: func.func @normal_offset
//  CHECK-SAME:   (%[[OFF:.+]]: tensor<i64>)
//       CHECK:   %[[O1:.+]] = tensor.extract %[[OFF]][] : tensor<i64>
//       CHECK:   %[[S1:.+]] = arith.constant 3114053619271302762 : i64
//       CHECK:   %[[OG1:.+]] = arith.muli %[[O1]], %{{.+}} : i64
//       CHECK:   arith.addi %[[S1]], %[[OG1]] : i64
//       CHECK:   %[[O2:.+]] = tensor.extract %[[OFF]][] : tensor<i64>
//       CHECK:   %[[S2:.+]] = arith.constant -9075771055647653584 : i64
//       CHECK:   %[[OG2:.+]] = arith.muli %[[O2]], %{{.+}} : i64
//       CHECK:   arith.addi %[[S2]], %[[OG2]] : i64
//       CHECK:   linalg.generic {{.*}} outs(%{{.+}} : tensor<8xf64>)
//       CHECK:     math.log
//       CHECK:     math.cos
func.func @normal_offset(%off: tensor<i64>) -> tensor<8xf64> {
  %n = mindir.random_normal offset(%off : tensor<i64>) {seed = 42 : i64} : tensor<8xf64>
  return %n : tensor<8xf64>
}

// -----

// dropout, seed 7, stream 3: s = -1463196925831536802; the generic reads only
// x, the key comes from above.
// CHECK-LABEL: func.func @dropout_offset
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x8xf32>, %[[OFF:.+]]: tensor<i64>)
//       CHECK:   %[[O:.+]] = tensor.extract %[[OFF]][] : tensor<i64>
//       CHECK:   %[[S:.+]] = arith.constant -1463196925831536802 : i64
//       CHECK:   %[[OG:.+]] = arith.muli %[[O]], %{{.+}} : i64
//       CHECK:   %[[X0:.+]] = arith.addi %[[S]], %[[OG]] : i64
//       CHECK:   %[[A1:.+]] = arith.shrui %[[X0]], %{{.+}} : i64
//       CHECK:   %[[B1:.+]] = arith.xori %[[X0]], %[[A1]] : i64
//       CHECK:   %[[X1:.+]] = arith.muli %[[B1]], %{{.+}} : i64
//       CHECK:   %[[A2:.+]] = arith.shrui %[[X1]], %{{.+}} : i64
//       CHECK:   %[[B2:.+]] = arith.xori %[[X1]], %[[A2]] : i64
//       CHECK:   %[[X2:.+]] = arith.muli %[[B2]], %{{.+}} : i64
//       CHECK:   %[[A3:.+]] = arith.shrui %[[X2]], %{{.+}} : i64
//       CHECK:   %[[K:.+]] = arith.xori %[[X2]], %[[A3]] : i64
//       CHECK:   %[[KP:.+]] = arith.constant 7.500000e-01 : f32
//       CHECK:   %[[R:.+]]:2 = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<4x8xf32>)
//       CHECK:     %[[Z:.+]] = arith.addi %[[K]], %{{.+}} : i64
//       CHECK:     arith.cmpf olt, %{{.+}}, %[[KP]] : f32
//       CHECK:   return %[[R]]#0, %[[R]]#1
func.func @dropout_offset(%x: tensor<4x8xf32>, %off: tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %y, %m = mindir.dropout %x, %off {keep_prob = 0.75 : f64, seed = 7 : i64} : (tensor<4x8xf32>, tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %y, %m : tensor<4x8xf32>, tensor<4x8xf32>
}
