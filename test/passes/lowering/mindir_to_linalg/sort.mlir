// RUN: ms-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s
//
// mindir.sort -> an in-place bitonic network: the axis moved to the front
// (linalg.transpose), padded to a power of two with a sentinel that sorts last
// (ascending: NaN / INT_MAX; descending: -inf / INT_MIN), a copy + iota generic
// (the state: values and their i32 positions), then scf.for over the merge
// sizes k = 2^kk and the partner distances j = 2^lj (lj = kk - 1 - t). With
// rows (R > 1) a third loop runs over the row pairs (lo, lo + j): one
// linalg.generic over the row reads both rows and writes both back through
// tensor.insert_slice (in place); wide tensors are sorted in column blocks.
// A 1-D sort reads the partner i ^ j with tensor.extract. The comparison is a
// total order: the value order with NaN above +inf, ties by index (stable).

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @sort_1d(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xi32>)
// CHECK: %[[NAN:[a-zA-Z0-9_#]+]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[PAD:[a-zA-Z0-9_#]+]] = tensor.pad %[[X]] low[0] high[3]
// CHECK: tensor.yield %[[NAN]] : f32
// CHECK: } : tensor<5xf32> to tensor<8xf32>
// CHECK: %[[INIT:[a-zA-Z0-9_#]+]]:2 = linalg.generic {{.*}} ins(%[[PAD]] : tensor<8xf32>) outs({{.*}} : tensor<8xf32>, tensor<8xi32>)
// CHECK: ^bb0(%[[IN:[a-zA-Z0-9_#]+]]: f32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: %[[I0:[a-zA-Z0-9_#]+]] = linalg.index 0 : index
// CHECK: %[[I0C:[a-zA-Z0-9_#]+]] = arith.index_cast %[[I0]] : index to i32
// CHECK: linalg.yield %[[IN]], %[[I0C]] : f32, i32
// CHECK: %[[C1:[a-zA-Z0-9_#]+]] = arith.constant 1 : index
// CHECK: %[[C4:[a-zA-Z0-9_#]+]] = arith.constant 4 : index
// CHECK: %[[NET:[a-zA-Z0-9_#]+]]:2 = scf.for %[[KK:[a-zA-Z0-9_#]+]] = %[[C1]] to %[[C4]] step %{{.*}} iter_args(%{{.*}} = %[[INIT]]#0, %{{.*}} = %[[INIT]]#1) -> (tensor<8xf32>, tensor<8xi32>)
// CHECK: %[[K:[a-zA-Z0-9_#]+]] = arith.shli %{{.*}}, %[[KK]] : index
// CHECK: scf.for %[[T:[a-zA-Z0-9_#]+]] = %{{.*}} to %[[KK]] step %{{.*}} iter_args(%[[V:[a-zA-Z0-9_#]+]] = %{{.*}}, %[[IDX:[a-zA-Z0-9_#]+]] = %{{.*}})
// CHECK: %[[J:[a-zA-Z0-9_#]+]] = arith.shli %{{.*}}, %{{.*}} : index
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[V]], %[[IDX]] : tensor<8xf32>, tensor<8xi32>)
// CHECK: ^bb0(%[[A:[a-zA-Z0-9_#]+]]: f32, %[[IA:[a-zA-Z0-9_#]+]]: i32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: %[[I:[a-zA-Z0-9_#]+]] = linalg.index 0 : index
// CHECK: %[[PI:[a-zA-Z0-9_#]+]] = arith.xori %[[I]], %[[J]] : index
// CHECK: %[[B:[a-zA-Z0-9_#]+]] = tensor.extract %[[V]][%[[PI]]] : tensor<8xf32>
// CHECK: %[[IB:[a-zA-Z0-9_#]+]] = tensor.extract %[[IDX]][%[[PI]]] : tensor<8xi32>
// CHECK: arith.andi %[[I]], %[[J]] : index
// CHECK: arith.andi %[[I]], %[[K]] : index
// CHECK: %[[ILT:[a-zA-Z0-9_#]+]] = arith.cmpi slt, %[[IA]], %[[IB]] : i32
// CHECK: %[[ANAN:[a-zA-Z0-9_#]+]] = arith.cmpf uno, %[[A]], %[[A]] : f32
// CHECK: %[[BNAN:[a-zA-Z0-9_#]+]] = arith.cmpf uno, %[[B]], %[[B]] : f32
// CHECK: arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK: arith.cmpf oeq, %[[A]], %[[B]] : f32
// CHECK: %[[DIR:[a-zA-Z0-9_#]+]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i1
// CHECK: %[[KEEP:[a-zA-Z0-9_#]+]] = arith.cmpi eq, %{{.*}}, %[[DIR]] : i1
// CHECK: %[[NV:[a-zA-Z0-9_#]+]] = arith.select %[[KEEP]], %[[A]], %[[B]] : f32
// CHECK: %[[NI:[a-zA-Z0-9_#]+]] = arith.select %[[KEEP]], %[[IA]], %[[IB]] : i32
// CHECK: linalg.yield %[[NV]], %[[NI]] : f32, i32
// CHECK: %[[VS:[a-zA-Z0-9_#]+]] = tensor.extract_slice %[[NET]]#0[0] [5] [1] : tensor<8xf32> to tensor<5xf32>
// CHECK: %[[IS:[a-zA-Z0-9_#]+]] = tensor.extract_slice %[[NET]]#1[0] [5] [1] : tensor<8xi32> to tensor<5xi32>
// CHECK: return %[[VS]], %[[IS]] : tensor<5xf32>, tensor<5xi32>
func.func @sort_1d(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xi32>) {
  %v, %i = mindir.sort %x : (tensor<5xf32>) -> (tensor<5xf32>, tensor<5xi32>)
  return %v, %i : tensor<5xf32>, tensor<5xi32>
}

// -----

// The last axis of a 2-D tensor: transposed to [5, 2], padded with INT_MAX to
// 8 rows; the row-pair loop; sliced and transposed back.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @sort_last_axis(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x5xi32>)
// CHECK: %[[T:[a-zA-Z0-9_#]+]] = linalg.transpose ins(%[[X]] : tensor<2x5xi32>) outs(%{{.*}} : tensor<5x2xi32>) permutation = [1, 0]
// CHECK: arith.constant 2147483647 : i32
// CHECK: tensor.pad {{.*}} low[0] high[6]
// CHECK: } : tensor<10xi32> to tensor<16xi32>
// CHECK: linalg.generic {{.*}} outs({{.*}} : tensor<8x2xi32>, tensor<8x2xi32>)
// CHECK: scf.for %[[KK:[a-zA-Z0-9_#]+]] = {{.*}} -> (tensor<8x2xi32>, tensor<8x2xi32>)
// CHECK: %[[K:[a-zA-Z0-9_#]+]] = arith.shli %{{.*}}, %[[KK]] : index
// CHECK: scf.for {{.*}} -> (tensor<8x2xi32>, tensor<8x2xi32>)
// CHECK: arith.subi
// CHECK: %[[LJ:[a-zA-Z0-9_#]+]] = arith.subi
// CHECK: %[[J:[a-zA-Z0-9_#]+]] = arith.shli %{{.*}}, %[[LJ]] : index
// CHECK: %[[C4:[a-zA-Z0-9_#]+]] = arith.constant 4 : index
// CHECK: scf.for %[[Q:[a-zA-Z0-9_#]+]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%[[CV:[a-zA-Z0-9_#]+]] = %{{.*}}, %[[CI:[a-zA-Z0-9_#]+]] = %{{.*}}) -> (tensor<8x2xi32>, tensor<8x2xi32>)
// CHECK: %[[LOW:[a-zA-Z0-9_#]+]] = arith.andi %[[Q]], %{{.*}} : index
// CHECK: %[[LO:[a-zA-Z0-9_#]+]] = arith.addi %{{.*}}, %[[LOW]] : index
// CHECK: %[[HI:[a-zA-Z0-9_#]+]] = arith.addi %[[LO]], %[[J]] : index
// CHECK: %[[LOK:[a-zA-Z0-9_#]+]] = arith.andi %[[LO]], %[[K]] : index
// CHECK: %[[UP:[a-zA-Z0-9_#]+]] = arith.cmpi eq, %[[LOK]], %{{.*}} : index
// CHECK: %[[RA:[a-zA-Z0-9_#]+]] = tensor.extract_slice %[[CV]][%[[LO]], 0] [1, 2] [1, 1] : tensor<8x2xi32> to tensor<2xi32>
// CHECK: %[[RB:[a-zA-Z0-9_#]+]] = tensor.extract_slice %[[CV]][%[[HI]], 0] [1, 2] [1, 1] : tensor<8x2xi32> to tensor<2xi32>
// CHECK: %[[RIA:[a-zA-Z0-9_#]+]] = tensor.extract_slice %[[CI]][%[[LO]], 0] [1, 2] [1, 1]
// CHECK: %[[RIB:[a-zA-Z0-9_#]+]] = tensor.extract_slice %[[CI]][%[[HI]], 0] [1, 2] [1, 1]
// CHECK: %[[G:[a-zA-Z0-9_#]+]]:4 = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[RA]], %[[RB]], %[[RIA]], %[[RIB]] : {{.*}}) outs(%[[RA]], %[[RB]], %[[RIA]], %[[RIB]] : {{.*}})
// CHECK: ^bb0(%[[A:[a-zA-Z0-9_#]+]]: i32, %[[B:[a-zA-Z0-9_#]+]]: i32, %[[IA:[a-zA-Z0-9_#]+]]: i32, %[[IB:[a-zA-Z0-9_#]+]]: i32,
// CHECK: %[[ILT:[a-zA-Z0-9_#]+]] = arith.cmpi slt, %[[IA]], %[[IB]] : i32
// CHECK: %[[LT:[a-zA-Z0-9_#]+]] = arith.cmpi slt, %[[A]], %[[B]] : i32
// CHECK: %[[EQ:[a-zA-Z0-9_#]+]] = arith.cmpi eq, %[[A]], %[[B]] : i32
// CHECK: %[[TIE:[a-zA-Z0-9_#]+]] = arith.andi %[[EQ]], %[[ILT]] : i1
// CHECK: %[[FIRST:[a-zA-Z0-9_#]+]] = arith.ori %[[LT]], %[[TIE]] : i1
// CHECK: %[[TAKEA:[a-zA-Z0-9_#]+]] = arith.cmpi eq, %[[FIRST]], %[[UP]] : i1
// CHECK: %[[S0:[a-zA-Z0-9_#]+]] = arith.select %[[TAKEA]], %[[A]], %[[B]] : i32
// CHECK: %[[S1:[a-zA-Z0-9_#]+]] = arith.select %[[TAKEA]], %[[B]], %[[A]] : i32
// CHECK: %[[S2:[a-zA-Z0-9_#]+]] = arith.select %[[TAKEA]], %[[IA]], %[[IB]] : i32
// CHECK: %[[S3:[a-zA-Z0-9_#]+]] = arith.select %[[TAKEA]], %[[IB]], %[[IA]] : i32
// CHECK: linalg.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]] : i32, i32, i32, i32
// CHECK: %[[W0:[a-zA-Z0-9_#]+]] = tensor.insert_slice %[[G]]#0 into %[[CV]][%[[LO]], 0] [1, 2] [1, 1]
// CHECK: %[[W1:[a-zA-Z0-9_#]+]] = tensor.insert_slice %[[G]]#1 into %[[W0]][%[[HI]], 0] [1, 2] [1, 1]
// CHECK: %[[W2:[a-zA-Z0-9_#]+]] = tensor.insert_slice %[[G]]#2 into %[[CI]][%[[LO]], 0] [1, 2] [1, 1]
// CHECK: %[[W3:[a-zA-Z0-9_#]+]] = tensor.insert_slice %[[G]]#3 into %[[W2]][%[[HI]], 0] [1, 2] [1, 1]
// CHECK: scf.yield %[[W1]], %[[W3]] : tensor<8x2xi32>, tensor<8x2xi32>
// CHECK: tensor.extract_slice %{{.*}}[0] [10] [1] : tensor<16xi32> to tensor<10xi32>
// CHECK: %[[VT:[a-zA-Z0-9_#]+]] = linalg.transpose ins(%{{.*}} : tensor<5x2xi32>) outs(%{{.*}} : tensor<2x5xi32>) permutation = [1, 0]
// CHECK: tensor.extract_slice %{{.*}}[0] [10] [1] : tensor<16xi32> to tensor<10xi32>
// CHECK: %[[IT:[a-zA-Z0-9_#]+]] = linalg.transpose ins(%{{.*}} : tensor<5x2xi32>) outs(%{{.*}} : tensor<2x5xi32>) permutation = [1, 0]
// CHECK: return %[[VT]], %[[IT]] : tensor<2x5xi32>, tensor<2x5xi32>
func.func @sort_last_axis(%x: tensor<2x5xi32>) -> (tensor<2x5xi32>, tensor<2x5xi32>) {
  %v, %i = mindir.sort %x : (tensor<2x5xi32>) -> (tensor<2x5xi32>, tensor<2x5xi32>)
  return %v, %i : tensor<2x5xi32>, tensor<2x5xi32>
}

// -----

// Descending floats: padded with -inf; "a before b" is a > b, or a NaN and b not.
// CHECK-LABEL: func.func @sort_descending(
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: tensor.pad
// CHECK: linalg.generic
// CHECK: ^bb0(%[[A:[a-zA-Z0-9_#]+]]: f32, %[[B:[a-zA-Z0-9_#]+]]: f32, %{{.*}}: i32, %{{.*}}: i32,
// CHECK: %[[ANAN:[a-zA-Z0-9_#]+]] = arith.cmpf uno, %[[A]], %[[A]] : f32
// CHECK: %[[BNAN:[a-zA-Z0-9_#]+]] = arith.cmpf uno, %[[B]], %[[B]] : f32
// CHECK: %[[GT:[a-zA-Z0-9_#]+]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK: %[[NOTB:[a-zA-Z0-9_#]+]] = arith.xori %[[BNAN]], %{{.*}} : i1
// CHECK: %[[NANFIRST:[a-zA-Z0-9_#]+]] = arith.andi %[[ANAN]], %[[NOTB]] : i1
// CHECK: arith.ori %[[GT]], %[[NANFIRST]] : i1
func.func @sort_descending(%x: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xi32>) {
  %v, %i = mindir.sort %x {axis = 0 : i64, descending = true} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xi32>)
  return %v, %i : tensor<3x3xf32>, tensor<3x3xi32>
}

// -----

// 128 columns: sorted in two blocks of 64 (each copied to a fresh [P, 64]
// buffer with its iota) and inserted into the result.
// CHECK-LABEL: func.func @sort_column_blocks(
// CHECK: %[[C0:[a-zA-Z0-9_#]+]] = arith.constant 0 : index
// CHECK: %[[C128:[a-zA-Z0-9_#]+]] = arith.constant 128 : index
// CHECK: %[[C64:[a-zA-Z0-9_#]+]] = arith.constant 64 : index
// CHECK: %[[EV:[a-zA-Z0-9_#]+]] = tensor.empty() : tensor<2x128xf64>
// CHECK: %[[EI:[a-zA-Z0-9_#]+]] = tensor.empty() : tensor<2x128xi32>
// CHECK: scf.for %[[C:[a-zA-Z0-9_#]+]] = %[[C0]] to %[[C128]] step %[[C64]] iter_args(%[[DV:[a-zA-Z0-9_#]+]] = %[[EV]], %[[DI:[a-zA-Z0-9_#]+]] = %[[EI]])
// CHECK: %[[BLK:[a-zA-Z0-9_#]+]] = tensor.extract_slice %{{.*}}[0, %[[C]]] [2, 64] [1, 1] : tensor<2x128xf64> to tensor<2x64xf64>
// CHECK: linalg.generic {{.*}} ins(%[[BLK]] : tensor<2x64xf64>) outs({{.*}} : tensor<2x64xf64>, tensor<2x64xi32>)
// CHECK: %[[NET:[a-zA-Z0-9_#]+]]:2 = scf.for
// CHECK: linalg.generic {{.*}} ins({{.*}} : tensor<64xf64>, tensor<64xf64>, tensor<64xi32>, tensor<64xi32>)
// CHECK: tensor.insert_slice %[[NET]]#0 into %[[DV]][0, %[[C]]] [2, 64] [1, 1] : tensor<2x64xf64> into tensor<2x128xf64>
// CHECK: tensor.insert_slice %[[NET]]#1 into %[[DI]][0, %[[C]]] [2, 64] [1, 1] : tensor<2x64xi32> into tensor<2x128xi32>
func.func @sort_column_blocks(%x: tensor<2x128xf64>) -> (tensor<2x128xf64>, tensor<2x128xi32>) {
  %v, %i = mindir.sort %x {axis = 0 : i64} : (tensor<2x128xf64>) -> (tensor<2x128xf64>, tensor<2x128xi32>)
  return %v, %i : tensor<2x128xf64>, tensor<2x128xi32>
}

// -----

// A unit axis: the values as they are, indices all 0.
// CHECK-LABEL: func.func @sort_unit_axis(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x1xf32>)
// CHECK: %[[E:[a-zA-Z0-9_#]+]] = tensor.empty() : tensor<3x1xi32>
// CHECK: %[[Z:[a-zA-Z0-9_#]+]] = arith.constant 0 : i32
// CHECK: %[[F:[a-zA-Z0-9_#]+]] = linalg.fill ins(%[[Z]] : i32) outs(%[[E]] : tensor<3x1xi32>) -> tensor<3x1xi32>
// CHECK-NOT: scf.for
// CHECK: return %[[X]], %[[F]] : tensor<3x1xf32>, tensor<3x1xi32>
func.func @sort_unit_axis(%x: tensor<3x1xf32>) -> (tensor<3x1xf32>, tensor<3x1xi32>) {
  %v, %i = mindir.sort %x : (tensor<3x1xf32>) -> (tensor<3x1xf32>, tensor<3x1xi32>)
  return %v, %i : tensor<3x1xf32>, tensor<3x1xi32>
}
