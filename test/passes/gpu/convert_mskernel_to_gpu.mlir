// RUN: ms-opt %s --convert-mskernel-to-gpu='launch=false' | FileCheck %s
// RUN: ms-opt %s --convert-mskernel-to-gpu | FileCheck %s --check-prefix=LAUNCH
// RUN: ms-opt %s --convert-mskernel-to-gpu='threads=64 launch=false' | FileCheck %s --check-prefix=T64

// A 2-D elementwise kernel (100x1000): threads along the inner dim (256 of
// its 1000: 4 tiles, the last one partial, hence the guard), blocks over the
// tiles (x) and the rows (y). The host function gets an out-parameter.
// CHECK-LABEL: func.func @host
// CHECK-SAME:    (%{{.*}}: memref<100x1000xf32>, %{{.*}}: memref<100x1000xf32>)
// CHECK:         call @ew(%{{.*}}, %{{.*}}) : (memref<100x1000xf32>, memref<100x1000xf32>) -> ()
// CHECK-LABEL: func.func private @ew
// CHECK:         scf.parallel (%[[BX:.+]], %[[BY:.+]]) = (%{{.*}}, %{{.*}}) to (%c4, %c100)
// CHECK:           %[[C256:.+]] = arith.constant 256 : index
// CHECK:           scf.parallel (%[[TX:.+]]) = (%{{.*}}) to (%[[C256]])
// CHECK:             %[[M:.+]] = arith.muli %[[BX]], %[[C256]] : index
// CHECK:             %[[J:.+]] = arith.addi %[[M]], %[[TX]] : index
// CHECK:             %[[C1000:.+]] = arith.constant 1000 : index
// CHECK:             %[[IN:.+]] = arith.cmpi ult, %[[J]], %[[C1000]] : index
// CHECK:             scf.if %[[IN]] {
// CHECK:               memref.load %{{.*}}[%[[BY]], %[[J]]] : memref<100x1000xf32>
// CHECK:               math.exp
// CHECK:               memref.store %{{.*}}, %{{.*}}[%[[BY]], %[[J]]] : memref<100x1000xf32>
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = block_y, map = (d0) -> (d0), bound = (d0) -> (d0)>]}

// LAUNCH-LABEL: func.func private @ew
// LAUNCH:         gpu.launch blocks({{[^)]*}}) in ({{%[a-z0-9]+}} = %c4, {{%[a-z0-9]+}} = %c100, {{%[a-z0-9]+}} = %c1)
// LAUNCH-SAME:               threads({{[^)]*}}) in ({{%[a-z0-9]+}} = %c256, {{%[a-z0-9]+}} = %c1, {{%[a-z0-9]+}} = %c1)
// LAUNCH:           math.exp
// LAUNCH:           gpu.terminator
// LAUNCH-NOT:     scf.parallel

// 64 threads per block: still 1-D threads along the inner dim, 16 tiles.
// T64-LABEL: func.func private @ew
// T64:         scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c16, %c100)
// T64:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%c64)

// A small inner dim (10): threads take 10 columns x 25 rows, a 2-D block.
// CHECK-LABEL: func.func private @narrow
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c6)
// CHECK:           scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c10, %c25)
// CHECK:           {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>, #gpu.loop_dim_map<processor = thread_y{{.*}}>]}
// CHECK:         {mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>]}

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @host(%x: tensor<100x1000xf32>) -> tensor<100x1000xf32> {
  %r = call @ew(%x) : (tensor<100x1000xf32>) -> tensor<100x1000xf32>
  return %r : tensor<100x1000xf32>
}
func.func private @ew(%x: tensor<100x1000xf32>) -> tensor<100x1000xf32> attributes {mskernel.kind = #mskernel.kind<elemwise>} {
  %e = tensor.empty() : tensor<100x1000xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<100x1000xf32>) outs(%e : tensor<100x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<100x1000xf32>
  return %r : tensor<100x1000xf32>
}
func.func @host2(%x: tensor<128x10xf32>) -> tensor<128x10xf32> {
  %r = call @narrow(%x) : (tensor<128x10xf32>) -> tensor<128x10xf32>
  return %r : tensor<128x10xf32>
}
func.func private @narrow(%x: tensor<128x10xf32>) -> tensor<128x10xf32> attributes {mskernel.kind = #mskernel.kind<elemwise>} {
  %e = tensor.empty() : tensor<128x10xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<128x10xf32>) outs(%e : tensor<128x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.negf %a : f32
    linalg.yield %v : f32
  } -> tensor<128x10xf32>
  return %r : tensor<128x10xf32>
}

// A 0-d tensor's value read at the kernel's top level (tensor.extract) is
// re-read inside the mapped loop: the host cannot read device memory.
// CHECK-LABEL: func.func private @scale
// CHECK-NOT:     memref.load
// CHECK:         scf.parallel
// CHECK-NEXT:      %[[S:.+]] = memref.load %{{.*}}[] : memref<f32>
// CHECK:           scf.parallel
// CHECK:             arith.mulf %{{.*}}, %[[S]] : f32
func.func @host3(%x: tensor<100xf32>, %s: tensor<f32>) -> tensor<100xf32> {
  %r = call @scale(%x, %s) : (tensor<100xf32>, tensor<f32>) -> tensor<100xf32>
  return %r : tensor<100xf32>
}
#id1 = affine_map<(d0) -> (d0)>
func.func private @scale(%x: tensor<100xf32>, %s: tensor<f32>) -> tensor<100xf32> attributes {mskernel.kind = #mskernel.kind<elemwise>} {
  %v = tensor.extract %s[] : tensor<f32>
  %e = tensor.empty() : tensor<100xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<100xf32>) outs(%e : tensor<100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %v : f32
    linalg.yield %m : f32
  } -> tensor<100xf32>
  return %r : tensor<100xf32>
}
