// RUN: ms-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s

// "same", stride 2: out = ceil(8 / 2) = 4, total padding 1, at the bottom/right.
// CHECK-LABEL: func.func @conv2d_same_stride2
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x4x8x8xf32>, %[[W:.+]]: tensor<6x4x3x3xf32>)
//       CHECK:   %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
//       CHECK:   } : tensor<1x4x8x8xf32> to tensor<1x4x9x9xf32>
//       CHECK:   %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x6x4x4xf32>)
//       CHECK:   %[[Y:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[P]], %[[W]] : tensor<1x4x9x9xf32>, tensor<6x4x3x3xf32>) outs(%[[INIT]] : tensor<1x6x4x4xf32>)
//       CHECK:   return %[[Y]]
func.func @conv2d_same_stride2(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %y = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}

// -----

// Explicit padding, dilation 2, 2 groups: grouped named conv on expanded shapes.
// CHECK-LABEL: func.func @conv2d_group_dilation
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x4x9x9xf32>, %[[W:.+]]: tensor<6x2x3x3xf32>)
//       CHECK:   %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 2, 2]
//       CHECK:   %[[XG:.+]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 12, 12]
//       CHECK:   %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
//       CHECK:   %[[INIT:.+]] = linalg.fill {{.*}} -> tensor<2x2x3x8x8xf32>
//       CHECK:   %[[Y:.+]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[XG]], %[[WG]] : tensor<2x2x2x12x12xf32>, tensor<2x3x2x3x3xf32>) outs(%[[INIT]] :
//       CHECK:   %[[R:.+]] = tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x8x8xf32> into tensor<2x6x8x8xf32>
//       CHECK:   return %[[R]]
func.func @conv2d_group_dilation(%x: tensor<2x4x9x9xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x8x8xf32> {
  %y = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 2, 1, 2>, dilation = array<i64: 2, 2>, group = 2 : i64} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x8x8xf32>
  return %y : tensor<2x6x8x8xf32>
}

// -----

// Input gradient, stride 2: dout is zero-interleaved (strided insert_slice) and
// padded by k-1-pad_top = 2 on the top/left, then convolved (stride 1) with the
// flipped, transposed weight wt[c, o, i, j] = w[o, c, 2 - i, 2 - j] (a
// tensor.extract gather: no negative coefficients in indexing maps).
// CHECK-LABEL: func.func @conv2d_backprop_input
//  CHECK-SAME:   (%[[DY:.+]]: tensor<1x6x4x4xf32>, %[[W:.+]]: tensor<6x4x3x3xf32>)
//       CHECK:   %[[Z:.+]] = linalg.fill {{.*}} -> tensor<1x6x10x10xf32>
//       CHECK:   %[[P:.+]] = tensor.insert_slice %[[DY]] into %[[Z]][0, 0, 2, 2] [1, 6, 4, 4] [1, 1, 2, 2] : tensor<1x6x4x4xf32> into tensor<1x6x10x10xf32>
//       CHECK:   %[[WT:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<4x6x3x3xf32>)
//       CHECK:     %[[C:.+]] = linalg.index 0 : index
//       CHECK:     %[[O:.+]] = linalg.index 1 : index
//       CHECK:     %[[I:.+]] = linalg.index 2 : index
//       CHECK:     %[[J:.+]] = linalg.index 3 : index
//       CHECK:     %[[FI:.+]] = arith.subi %{{.+}}, %[[I]] : index
//       CHECK:     %[[FJ:.+]] = arith.subi %{{.+}}, %[[J]] : index
//       CHECK:     %[[E:.+]] = tensor.extract %[[W]][%[[O]], %[[C]], %[[FI]], %[[FJ]]] : tensor<6x4x3x3xf32>
//       CHECK:     linalg.yield %[[E]]
//       CHECK:   %[[INIT:.+]] = linalg.fill {{.*}} -> tensor<1x4x8x8xf32>
//       CHECK:   %[[DX:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, msmlir.conv_input_grad = array<i64: 2, 2, 1, 1, 0, 0, 4, 4>, strides = dense<1> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[P]], %[[WT]] : tensor<1x6x10x10xf32>, tensor<4x6x3x3xf32>) outs(%[[INIT]] :
//       CHECK:   return %[[DX]]
func.func @conv2d_backprop_input(%dy: tensor<1x6x4x4xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %dx = mindir.conv2d_backprop_input %dy, %w {input_shape = array<i64: 1, 4, 8, 8>, pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x6x4x4xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %dx : tensor<1x4x8x8xf32>
}

// -----

// Stride 1, dilation 2, 2 groups: plain tensor.pad of dout (eff - 1 - top = 3),
// per-group flipped weight [G, C/G, O/G, kh, kw], grouped conv with dilation 2.
// CHECK-LABEL: func.func @conv2d_backprop_input_group
//  CHECK-SAME:   (%[[DY:.+]]: tensor<2x6x8x8xf32>, %[[W:.+]]: tensor<6x2x3x3xf32>)
//       CHECK:   %[[P:.+]] = tensor.pad %[[DY]] low[0, 0, 3, 3] high[0, 0, 2, 2]
//       CHECK:   } : tensor<2x6x8x8xf32> to tensor<2x6x13x13xf32>
//       CHECK:   %[[W5:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
//       CHECK:   %[[WT:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2x2x3x3x3xf32>)
//       CHECK:     %[[G:.+]] = linalg.index 0 : index
//       CHECK:     %[[C:.+]] = linalg.index 1 : index
//       CHECK:     %[[O:.+]] = linalg.index 2 : index
//       CHECK:     tensor.extract %[[W5]][%[[G]], %[[O]], %[[C]], %{{.+}}, %{{.+}}] : tensor<2x3x2x3x3xf32>
//       CHECK:   %[[PG:.+]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 3, 13, 13]
//       CHECK:   %[[R:.+]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[PG]], %[[WT]] : tensor<2x2x3x13x13xf32>, tensor<2x2x3x3x3xf32>)
//       CHECK:   %[[DX:.+]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x2x9x9xf32> into tensor<2x4x9x9xf32>
//       CHECK:   return %[[DX]]
func.func @conv2d_backprop_input_group(%dy: tensor<2x6x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32> {
  %dx = mindir.conv2d_backprop_input %dy, %w {input_shape = array<i64: 2, 4, 9, 9>, pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 2, 1, 2>, dilation = array<i64: 2, 2>, group = 2 : i64} : (tensor<2x6x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
  return %dx : tensor<2x4x9x9xf32>
}

// -----

// Padding larger than the kernel reach (top 4 > k-1 = 2): the interleaved dout
// is cropped on the top instead of padded.
// CHECK-LABEL: func.func @conv2d_backprop_input_crop
//       CHECK:   %[[Z:.+]] = linalg.fill {{.*}} -> tensor<1x3x10x9xf32>
//       CHECK:   %[[I:.+]] = tensor.insert_slice %{{.+}} into %[[Z]][0, 0, 0, 2] [1, 3, 3, 4] [1, 1, 3, 2]
//       CHECK:   %[[C:.+]] = tensor.extract_slice %[[I]][0, 0, 2, 0] [1, 3, 8, 9] [1, 1, 1, 1] : tensor<1x3x10x9xf32> to tensor<1x3x8x9xf32>
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}} ins(%[[C]], %{{.+}} : tensor<1x3x8x9xf32>, tensor<2x3x3x3xf32>) {{.*}} -> tensor<1x2x6x7xf32>
func.func @conv2d_backprop_input_crop(%dy: tensor<1x3x3x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x2x6x7xf32> {
  %dx = mindir.conv2d_backprop_input %dy, %w {input_shape = array<i64: 1, 2, 6, 7>, pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 4, 0, 0, 3>, stride = array<i64: 3, 2>} : (tensor<1x3x3x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x6x7xf32>
  return %dx : tensor<1x2x6x7xf32>
}

// -----

// Filter gradient: a convolution of the padded input seen as [C, N, H, W] with
// dout seen as [O, N, Ho, Wo]; strides and dilations swap roles.
// CHECK-LABEL: func.func @conv2d_backprop_filter
//  CHECK-SAME:   (%[[DY:.+]]: tensor<1x6x4x4xf32>, %[[X:.+]]: tensor<1x4x8x8xf32>)
//       CHECK:   %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
//       CHECK:   %[[XT:.+]] = linalg.transpose ins(%[[P]] : tensor<1x4x9x9xf32>) outs(%{{.+}} : tensor<4x1x9x9xf32>) permutation = [1, 0, 2, 3]
//       CHECK:   %[[DT:.+]] = linalg.transpose ins(%[[DY]] : tensor<1x6x4x4xf32>) outs(%{{.+}} : tensor<6x1x4x4xf32>) permutation = [1, 0, 2, 3]
//       CHECK:   %[[R:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[XT]], %[[DT]] : tensor<4x1x9x9xf32>, tensor<6x1x4x4xf32>) outs(%{{.+}} : tensor<4x6x3x3xf32>)
//       CHECK:   %[[DW:.+]] = linalg.transpose ins(%[[R]] : tensor<4x6x3x3xf32>) outs(%{{.+}} : tensor<6x4x3x3xf32>) permutation = [1, 0, 2, 3]
//       CHECK:   return %[[DW]]
func.func @conv2d_backprop_filter(%dy: tensor<1x6x4x4xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<6x4x3x3xf32> {
  %dw = mindir.conv2d_backprop_filter %dy, %x {filter_shape = array<i64: 6, 4, 3, 3>, pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x6x4x4xf32>, tensor<1x4x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %dw : tensor<6x4x3x3xf32>
}

// -----

// Grouped filter gradient: [Cg, G, N, H, W] x [G, Og, N, Ho, Wo] -> [Cg, G, Og, kh, kw].
// CHECK-LABEL: func.func @conv2d_backprop_filter_group
//       CHECK:   %[[P:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 2, 2]
//       CHECK:   %[[XE:.+]] = tensor.expand_shape %[[P]] {{.*}} into tensor<2x2x2x12x12xf32>
//       CHECK:   %[[XT:.+]] = linalg.transpose ins(%[[XE]] : {{.*}} permutation = [2, 1, 0, 3, 4]
//       CHECK:   %[[DE:.+]] = tensor.expand_shape %{{.+}} {{.*}} into tensor<2x2x3x8x8xf32>
//       CHECK:   %[[DT:.+]] = linalg.transpose ins(%[[DE]] : {{.*}} outs(%{{.+}} : tensor<2x3x2x8x8xf32>) permutation = [1, 2, 0, 3, 4]
//       CHECK:   %[[R:.+]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[XT]], %[[DT]] : {{.*}}) outs(%{{.+}} : tensor<2x2x3x3x3xf32>)
//       CHECK:   %[[T:.+]] = linalg.transpose ins(%[[R]] : {{.*}} outs(%{{.+}} : tensor<2x3x2x3x3xf32>) permutation = [1, 2, 0, 3, 4]
//       CHECK:   %[[DW:.+]] = tensor.collapse_shape %[[T]] {{\[}}[0, 1], [2], [3], [4]] : tensor<2x3x2x3x3xf32> into tensor<6x2x3x3xf32>
//       CHECK:   return %[[DW]]
func.func @conv2d_backprop_filter_group(%dy: tensor<2x6x8x8xf32>, %x: tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32> {
  %dw = mindir.conv2d_backprop_filter %dy, %x {filter_shape = array<i64: 6, 2, 3, 3>, pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 2, 1, 2>, dilation = array<i64: 2, 2>, group = 2 : i64} : (tensor<2x6x8x8xf32>, tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32>
  return %dw : tensor<6x2x3x3xf32>
}

// -----

// Max pooling pads with -inf (padding never wins).
// CHECK-LABEL: func.func @max_pool2d
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x2x5x5xf32>)
//       CHECK:   %[[NINF:.+]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
//       CHECK:     tensor.yield %[[NINF]] : f32
//       CHECK:   %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x3x3xf32>)
//       CHECK:   %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
//       CHECK:   %[[Y:.+]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[P]], %[[WIN]] : tensor<1x2x7x7xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x2x3x3xf32>)
//       CHECK:   return %[[Y]]
func.func @max_pool2d(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = mindir.max_pool2d %x {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Average pooling: zero-padded sum divided by the per-row x per-column count of
// in-bounds elements (2, 3, 2 for a 5-wide input, k 3, s 2, "same").
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @avg_pool2d
//       CHECK:   %[[P:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 1, 1]
//       CHECK:   %[[S:.+]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[P]], %{{.+}} : tensor<1x2x7x7xf32>, tensor<3x3xf32>)
//       CHECK:   %[[CH:.+]] = arith.constant dense<[2.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<3xf32>
//       CHECK:   %[[CW:.+]] = arith.constant dense<[2.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<3xf32>
//       CHECK:   %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[COL]], #[[ID]]]
//  CHECK-SAME:     ins(%[[S]], %[[CH]], %[[CW]] :
//       CHECK:   ^bb0(%[[V:.+]]: f32, %[[H:.+]]: f32, %[[W:.+]]: f32, %{{.+}}: f32):
//       CHECK:     %[[N:.+]] = arith.mulf %[[H]], %[[W]] : f32
//       CHECK:     %[[D:.+]] = arith.divf %[[V]], %[[N]] : f32
//       CHECK:     linalg.yield %[[D]] : f32
//       CHECK:   return %[[Y]]
func.func @avg_pool2d(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = mindir.avg_pool2d %x {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Without padding the divisor is the constant window size.
// CHECK-LABEL: func.func @avg_pool2d_valid
//   CHECK-NOT:   tensor.pad
//       CHECK:   %[[S:.+]] = linalg.pooling_nchw_sum
//       CHECK:   %[[K:.+]] = arith.constant 4.000000e+00 : f32
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%[[S]] : tensor<1x2x2x2xf32>)
//       CHECK:     arith.divf %{{.+}}, %[[K]] : f32
func.func @avg_pool2d_valid(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %y = mindir.avg_pool2d %x {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Max-pool gradient: (1) first argmax k = kh * KW + kw of every window, with an
// explicit tie-break (smaller k wins); (2) every padded-input position visits
// its ceil(3 / 2) x ceil(3 / 2) candidate windows (floordiv map, positive
// coefficients, into dout / argmax padded by 1 window on top/left) and sums
// dout where the window's argmax is this position; (3) the padding is cropped.
// CHECK-DAG: #[[WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[CAND:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 floordiv 2 + d4, d3 floordiv 2 + d5)>
// CHECK-LABEL: func.func @max_pool2d_grad
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x2x5x5xf32>, %[[DY:.+]]: tensor<1x2x3x3xf32>)
//       CHECK:   %[[XP:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
//       CHECK:   %[[K0:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<1x2x3x3xi32>)
//       CHECK:   %[[ARG:.+]]:2 = linalg.generic {indexing_maps = [#[[WIN]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%[[XP]], %{{.+}} : tensor<1x2x7x7xf32>, tensor<3x3xf32>) outs(%{{.+}}, %[[K0]] : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi32>)
//       CHECK:     %[[GT:.+]] = arith.cmpf ogt
//       CHECK:     %[[EQ:.+]] = arith.cmpf oeq
//       CHECK:     %[[LT:.+]] = arith.cmpi slt
//       CHECK:     %[[TIE:.+]] = arith.andi %[[EQ]], %[[LT]] : i1
//       CHECK:     %[[TAKE:.+]] = arith.ori %[[GT]], %[[TIE]] : i1
//       CHECK:   %[[DYP:.+]] = tensor.pad %[[DY]] low[0, 0, 1, 1] high[0, 0, 1, 1]
//       CHECK:   %[[AP:.+]] = tensor.pad %[[ARG]]#1 low[0, 0, 1, 1] high[0, 0, 1, 1]
//       CHECK:   %[[G:.+]] = linalg.generic {indexing_maps = [#[[CAND]], #[[CAND]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%[[DYP]], %[[AP]], %{{.+}} : tensor<1x2x5x5xf32>, tensor<1x2x5x5xi32>, tensor<2x2xf32>) outs(%{{.+}} : tensor<1x2x7x7xf32>)
//       CHECK:     arith.cmpi eq
//       CHECK:     arith.select
//       CHECK:     arith.addf
//       CHECK:   %[[DX:.+]] = tensor.extract_slice %[[G]][0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
//       CHECK:   return %[[DX]]
func.func @max_pool2d_grad(%x: tensor<1x2x5x5xf32>, %dy: tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %dx = mindir.max_pool2d_grad %x, %dy {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : (tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %dx : tensor<1x2x5x5xf32>
}

// -----

// Avg-pool gradient: dout / count, then the same candidate-window gather.
// CHECK-DAG: #[[CAND:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 floordiv 2 + d4, d3 floordiv 2 + d5)>
// CHECK-LABEL: func.func @avg_pool2d_grad
//  CHECK-SAME:   (%[[DY:.+]]: tensor<1x2x3x3xf32>)
//       CHECK:   %[[SC:.+]] = linalg.generic
//  CHECK-SAME:     ins(%[[DY]], %{{.+}}, %{{.+}} : tensor<1x2x3x3xf32>, tensor<3xf32>, tensor<3xf32>)
//       CHECK:     arith.divf
//       CHECK:   %[[P:.+]] = tensor.pad %[[SC]] low[0, 0, 1, 1] high[0, 0, 1, 1]
//       CHECK:   %[[G:.+]] = linalg.generic {indexing_maps = [#[[CAND]], {{.+}}]
//  CHECK-SAME:     ins(%[[P]], %{{.+}} : tensor<1x2x5x5xf32>, tensor<2x2xf32>) outs(%{{.+}} : tensor<1x2x7x7xf32>)
//       CHECK:   %[[DX:.+]] = tensor.extract_slice %[[G]][0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1]
//       CHECK:   return %[[DX]]
func.func @avg_pool2d_grad(%dy: tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %dx = mindir.avg_pool2d_grad %dy {input_shape = array<i64: 1, 2, 5, 5>, kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %dx : tensor<1x2x5x5xf32>
}

// -----

// softmax along axis 0: max, e = exp(x - max) computed once (an elementwise
// generic), sum of e, e / sum.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @softmax
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x10xf32>)
//       CHECK:   %[[NINF:.+]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[M0:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<10xf32>)
//       CHECK:   %[[M:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<4x10xf32>) outs(%[[M0]] : tensor<10xf32>)
//       CHECK:     arith.maximumf
//       CHECK:   %[[E:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[M]] :
//       CHECK:     %[[D:.+]] = arith.subf
//       CHECK:     %[[EX:.+]] = math.exp %[[D]]
//       CHECK:     linalg.yield %[[EX]]
//       CHECK:   %[[S:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["reduction", "parallel"]} ins(%[[E]] :
//   CHECK-NOT:     math.exp
//       CHECK:     arith.addf
//       CHECK:   %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[E]], %[[S]] :
//       CHECK:   ^bb0(%[[A:.+]]: f32, %[[SS:.+]]: f32, %{{.+}}: f32):
//   CHECK-NOT:     math.exp
//       CHECK:     %[[Q:.+]] = arith.divf %[[A]], %[[SS]]
//       CHECK:     linalg.yield %[[Q]]
//       CHECK:   return %[[Y]]
func.func @softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %y = mindir.softmax %x {axis = 0 : i64} : tensor<4x10xf32>
  return %y : tensor<4x10xf32>
}

// -----

// log_softmax: x - max - log(sum(exp(x - max))).
// CHECK-LABEL: func.func @log_softmax
//       CHECK:   %[[M:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//       CHECK:     arith.maximumf
//       CHECK:   %[[S:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//       CHECK:     math.exp
//       CHECK:   %[[Y:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[M]], %[[S]] :
//       CHECK:   ^bb0(%[[A:.+]]: f32, %[[MM:.+]]: f32, %[[SS:.+]]: f32, %{{.+}}: f32):
//       CHECK:     %[[D:.+]] = arith.subf %[[A]], %[[MM]] : f32
//       CHECK:     %[[L:.+]] = math.log %[[SS]] : f32
//       CHECK:     %[[R:.+]] = arith.subf %[[D]], %[[L]] : f32
//       CHECK:     linalg.yield %[[R]]
//       CHECK:   return %[[Y]]
func.func @log_softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %y = mindir.log_softmax %x : tensor<4x10xf32>
  return %y : tensor<4x10xf32>
}

// -----

// layer_norm over dims [1, 3): two-pass mean and biased variance, rstd =
// rsqrt(var + eps), gamma/beta indexed by dims [1, 3); mean/rstd keep rank.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[PAR:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x8xf32>, %[[G:.+]]: tensor<3x8xf32>, %[[B:.+]]: tensor<3x8xf32>)
//       CHECK:   %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]]
//       CHECK:   %[[CNT:.+]] = arith.constant 2.400000e+01 : f32
//       CHECK:   %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2xf32>)
//       CHECK:     arith.divf %{{.+}}, %[[CNT]]
//       CHECK:   %[[SS:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X]], %[[MEAN]]
//       CHECK:   %[[VAR:.+]] = linalg.generic {{.*}} ins(%[[SS]] : tensor<2xf32>)
//       CHECK:   %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
//       CHECK:   %[[RSTD:.+]] = linalg.generic {{.*}} ins(%[[VAR]] : tensor<2xf32>)
//       CHECK:     %[[VE:.+]] = arith.addf %{{.+}}, %[[EPS]] : f32
//       CHECK:     math.rsqrt %[[VE]] : f32
//       CHECK:   %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[PAR]], #[[PAR]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
//  CHECK-SAME:     ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[G]], %[[B]] :
//       CHECK:   %[[M3:.+]] = tensor.expand_shape %[[MEAN]] {{\[}}[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
//       CHECK:   %[[R3:.+]] = tensor.expand_shape %[[RSTD]] {{\[}}[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
//       CHECK:   return %[[Y]], %[[M3]], %[[R3]]
func.func @layer_norm(%x: tensor<2x3x8xf32>, %g: tensor<3x8xf32>, %b: tensor<3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %y, %m, %r = mindir.layer_norm %x, %g, %b {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64} : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %y, %m, %r : tensor<2x3x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
}

// -----

// batch_norm, training: statistics over all dims but 1 (count 2*4*4 = 32),
// biased variance, rstd once per channel; returns (y, batch_mean, batch_var).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4x4xf32>, %[[S:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<3xf32>, %{{.+}}: tensor<3xf32>, %{{.+}}: tensor<3xf32>)
//       CHECK:   %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]]
//       CHECK:   arith.constant 3.200000e+01 : f32
//       CHECK:   %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf32>)
//       CHECK:   %[[SS:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[MEAN]]
//       CHECK:   %[[VAR:.+]] = linalg.generic {{.*}} ins(%[[SS]] : tensor<3xf32>)
//       CHECK:   %[[RSTD:.+]] = linalg.generic {{.*}} ins(%[[VAR]] : tensor<3xf32>)
//       CHECK:     math.rsqrt
//       CHECK:   %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
//  CHECK-SAME:     ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[S]], %[[B]] :
//       CHECK:   return %[[Y]], %[[MEAN]], %[[VAR]]
func.func @batch_norm_train(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %mm: tensor<3xf32>, %mv: tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %v = mindir.batch_norm %x, %s, %b, %mm, %mv {is_training = true} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %m, %v : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// batch_norm, eval: the given mean/variance are used and returned.
// CHECK-LABEL: func.func @batch_norm_eval
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4x4xf32>, %[[S:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<3xf32>, %[[M:.+]]: tensor<3xf32>, %[[V:.+]]: tensor<3xf32>)
//   CHECK-NOT:   iterator_types = ["reduction"
//       CHECK:   %[[EPS:.+]] = arith.constant 1.000000e-03 : f32
//       CHECK:   %[[RSTD:.+]] = linalg.generic {{.*}} ins(%[[V]] : tensor<3xf32>)
//       CHECK:     %[[VE:.+]] = arith.addf %{{.+}}, %[[EPS]] : f32
//       CHECK:     math.rsqrt %[[VE]]
//       CHECK:   %[[Y:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[M]], %[[RSTD]], %[[S]], %[[B]] :
//       CHECK:   return %[[Y]], %[[M]], %[[V]]
func.func @batch_norm_eval(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %mm: tensor<3xf32>, %mv: tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %v = mindir.batch_norm %x, %s, %b, %mm, %mv {epsilon = 1.0e-3 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %m, %v : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// dropout: the counter-based generator (splitmix64) of (seed 7, stream 3,
// linear index): the key k = mix(mix(7 * G + 3 + 1)) = -7414371635850079361
// (with G = 0x9E3779B97F4A7C15), element i hashes k + (i + 1) * G; the top 24
// bits give u in [0, 1); mask = u < keep_prob, y = x * mask / keep_prob. The
// run-time offset operand: random_offset.mlir.
// CHECK-LABEL: func.func @dropout
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x8xf32>)
//       CHECK:   %[[KP:.+]] = arith.constant 7.500000e-01 : f32
//       CHECK:   %[[R:.+]]:2 = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<4x8xf32>)
//       CHECK:   ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
//       CHECK:     %[[I0:.+]] = linalg.index 0 : index
//       CHECK:     %[[I1:.+]] = linalg.index 1 : index
//       CHECK:     %[[C8:.+]] = arith.constant 8 : index
//       CHECK:     %[[ROW:.+]] = arith.muli %[[I0]], %[[C8]] : index
//       CHECK:     %[[LIN:.+]] = arith.addi %[[ROW]], %[[I1]] : index
//       CHECK:     %[[LIN64:.+]] = arith.index_cast %[[LIN]] : index to i64
//       CHECK:     %[[K:.+]] = arith.constant -7414371635850079361 : i64
//       CHECK:     %[[NEXT:.+]] = arith.addi %[[LIN64]], %{{.+}} : i64
//       CHECK:     %[[G:.+]] = arith.constant -7046029254386353131 : i64
//       CHECK:     %[[STEP:.+]] = arith.muli %[[NEXT]], %[[G]] : i64
//       CHECK:     %[[Z:.+]] = arith.addi %[[K]], %[[STEP]] : i64
//       CHECK:     arith.shrui %[[Z]], %{{.+}} : i64
//       CHECK:     arith.constant -4658895280553007687 : i64
//       CHECK:     arith.constant -7723592293110705685 : i64
//       CHECK:     arith.xori
//       CHECK:     %[[C40:.+]] = arith.constant 40 : i64
//       CHECK:     %[[TOP:.+]] = arith.shrui %{{.+}}, %[[C40]] : i64
//       CHECK:     %[[F:.+]] = arith.uitofp %[[TOP]] : i64 to f32
//       CHECK:     %[[U:.+]] = arith.mulf %[[F]], %{{.+}} : f32
//       CHECK:     %[[KEEP:.+]] = arith.cmpf olt, %[[U]], %[[KP]] : f32
//       CHECK:     %[[MASK:.+]] = arith.select %[[KEEP]], %{{.+}}, %{{.+}} : f32
//       CHECK:     %[[XM:.+]] = arith.mulf %[[IN]], %[[MASK]] : f32
//       CHECK:     %[[Y:.+]] = arith.divf %[[XM]], %[[KP]] : f32
//       CHECK:     linalg.yield %[[Y]], %[[MASK]] : f32, f32
//       CHECK:   return %[[R]]#0, %[[R]]#1
func.func @dropout(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %y, %m = mindir.dropout %x {keep_prob = 0.75 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %y, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// one_hot along axis 0: the position (linalg.index 0) is compared with the
// index sign-extended to `index`.
// CHECK-DAG: #[[IDX:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @one_hot
//  CHECK-SAME:   (%[[I:.+]]: tensor<4xi32>, %[[ON:.+]]: tensor<f32>, %[[OFF:.+]]: tensor<f32>)
//       CHECK:   %[[Y:.+]] = linalg.generic {indexing_maps = [#[[IDX]], #[[SCALAR]], #[[SCALAR]], {{.+}}], iterator_types = ["parallel", "parallel"]}
//  CHECK-SAME:     ins(%[[I]], %[[ON]], %[[OFF]] : tensor<4xi32>, tensor<f32>, tensor<f32>) outs(%{{.+}} : tensor<10x4xf32>)
//       CHECK:   ^bb0(%[[V:.+]]: i32, %[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
//       CHECK:     %[[VI:.+]] = arith.index_cast %[[V]] : i32 to index
//       CHECK:     %[[POS:.+]] = linalg.index 0 : index
//       CHECK:     %[[HIT:.+]] = arith.cmpi eq, %[[POS]], %[[VI]] : index
//       CHECK:     %[[R:.+]] = arith.select %[[HIT]], %[[A]], %[[B]] : f32
//       CHECK:     linalg.yield %[[R]]
//       CHECK:   return %[[Y]]
func.func @one_hot(%i: tensor<4xi32>, %on: tensor<f32>, %off: tensor<f32>) -> tensor<10x4xf32> {
  %y = mindir.one_hot %i, %on, %off {depth = 10 : i64, axis = 0 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<10x4xf32>
  return %y : tensor<10x4xf32>
}

// -----

// Dense-label cross entropy: loss[n] = -sum_c labels * log_softmax,
// backprop = softmax - labels.
// CHECK-LABEL: func.func @softmax_ce
//  CHECK-SAME:   (%[[L:.+]]: tensor<4x10xf32>, %[[T:.+]]: tensor<4x10xf32>)
//       CHECK:   %[[M:.+]] = linalg.generic {{.*}} ins(%[[L]] : tensor<4x10xf32>) outs(%{{.+}} : tensor<4xf32>)
//       CHECK:   %[[S:.+]] = linalg.generic {{.*}} ins(%[[L]], %[[M]] :
//       CHECK:   %[[LOSS:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[L]], %[[M]], %[[S]], %[[T]] : {{.*}}) outs(%{{.+}} : tensor<4xf32>)
//       CHECK:     %[[LOG:.+]] = math.log
//       CHECK:     %[[LS:.+]] = arith.subf %{{.+}}, %[[LOG]] : f32
//       CHECK:     %[[PROD:.+]] = arith.mulf %{{.+}}, %[[LS]] : f32
//       CHECK:     arith.subf %{{.+}}, %[[PROD]] : f32
//       CHECK:   %[[GRAD:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[L]], %[[M]], %[[S]], %[[T]] : {{.*}}) outs(%{{.+}} : tensor<4x10xf32>)
//       CHECK:     %[[P:.+]] = arith.divf
//       CHECK:     arith.subf %[[P]], %{{.+}} : f32
//       CHECK:   return %[[LOSS]], %[[GRAD]]
func.func @softmax_ce(%l: tensor<4x10xf32>, %t: tensor<4x10xf32>) -> (tensor<4xf32>, tensor<4x10xf32>) {
  %loss, %d = mindir.softmax_cross_entropy_with_logits %l, %t : (tensor<4x10xf32>, tensor<4x10xf32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  return %loss, %d : tensor<4xf32>, tensor<4x10xf32>
}

// -----

// Class-index labels: the one-hot label is formed in the body (no gather, so an
// out-of-range label reads nothing out of bounds).
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @sparse_softmax_ce
//  CHECK-SAME:   (%[[L:.+]]: tensor<4x10xf32>, %[[T:.+]]: tensor<4xi32>)
//       CHECK:   %[[LOSS:.+]] = linalg.generic {indexing_maps = [{{.+}}, #[[ROW]], #[[ROW]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
//  CHECK-SAME:     ins(%[[L]], %{{.+}}, %{{.+}}, %[[T]] : tensor<4x10xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>)
//       CHECK:   ^bb0(%{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32, %[[LAB:.+]]: i32, %{{.+}}: f32):
//       CHECK:     %[[LI:.+]] = arith.index_cast %[[LAB]] : i32 to index
//       CHECK:     %[[C:.+]] = linalg.index 1 : index
//       CHECK:     %[[EQ:.+]] = arith.cmpi eq, %[[C]], %[[LI]] : index
//       CHECK:     arith.select %[[EQ]]
//       CHECK:   %[[GRAD:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<4x10xf32>)
//       CHECK:   return %[[LOSS]], %[[GRAD]]
func.func @sparse_softmax_ce(%l: tensor<4x10xf32>, %t: tensor<4xi32>) -> (tensor<4xf32>, tensor<4x10xf32>) {
  %loss, %d = mindir.sparse_softmax_cross_entropy_with_logits %l, %t : (tensor<4x10xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  return %loss, %d : tensor<4xf32>, tensor<4x10xf32>
}
