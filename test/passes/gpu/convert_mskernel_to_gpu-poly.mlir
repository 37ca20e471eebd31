// RUN: ms-opt %s --convert-mskernel-to-gpu='launch=false poly-schedule=true' | FileCheck %s
// RUN: ms-opt %s --convert-mskernel-to-gpu='launch=false poly-schedule=true' --mskernel-print-schedule 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: ms-opt %s --convert-mskernel-to-gpu='poly-schedule=true' 2>/dev/null | FileCheck %s --check-prefix=LAUNCH

// poly-schedule: the isl schedule (target gpu, 256 threads) maps the generic
// kernel. A 2-D parallel band (100x1000) is tiled 16x16 (the coincident point
// members: 256 threads; the tile's footprint within shared memory); the tile
// loops (marked "blocks") become the block loop, the point loops ("threads")
// the thread loop, the inner one -> x; partial tiles guarded.
// CHECK-LABEL: func.func private @ew
// CHECK-SAME:    mskernel.gpu_mapping = "blocks 7x63 (block_y,block_x) threads 16x16 (thread_y,thread_x)"
// CHECK-SAME:    mskernel.schedule = "tile-sizes: shared 16x16 | target: gpu shared=49152 threads=256
// CHECK:         scf.parallel (%[[BX:.+]], %[[BY:.+]]) = (%{{.*}}, %{{.*}}) to (%c63, %c7)
// CHECK:           %[[I0:.+]] = arith.muli %[[BY]], %c16 : index
// CHECK:           %[[J0:.+]] = arith.muli %[[BX]], %c16 : index
// CHECK:           scf.parallel (%[[TX:.+]], %[[TY:.+]]) = (%{{.*}}, %{{.*}}) to (%c16, %c16)
// CHECK:             %[[IN:.+]] = arith.andi
// CHECK:             scf.if %[[IN]] {
// CHECK:               memref.load %{{.*}}[%[[I:.+]], %[[J:.+]]] : memref<100x1000xf32>
// CHECK:               math.exp
// CHECK:               memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<100x1000xf32>
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>, #gpu.loop_dim_map<processor = thread_y, {{.*}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>, #gpu.loop_dim_map<processor = block_y, {{.*}}>]}

// A contraction keeps the matcher's shared-memory tiles (no schedule), with a
// remark; its mapping is described too (no mskernel.schedule).
// CHECK-LABEL: func.func private @mm
// CHECK-SAME:    mskernel.gpu_mapping = "matmul tiles 16x16, 1x1 outputs per thread, k step 16"
// CHECK-NOT:     mskernel.schedule
// CHECK:         memref.alloc() {msmlir.gpu_shared} : memref<2x{{.*}}xf32>

// REMARK: remark: convert-mskernel-to-gpu: @mm is mapped by the matcher, not the poly schedule: a contraction (shared-memory / tensor-core tiles)
// REMARK: remark: mskernel-print-schedule: tile-sizes: shared 16x16 | target: gpu shared=49152 threads=256 registers=255 warp=32 | reductions: none | schedule: { domain: "{ S0[i0, i1] : 0 <= i0 <= 99 and 0 <= i1 <= 999 }", child: { mark: "band:shared", child: { mark: "blocks"
// REMARK-SAME:  mark: "threads"
// REMARK-SAME:  | gpu mapping: blocks 7x63 (block_y,block_x) threads 16x16 (thread_y,thread_x)

// LAUNCH-LABEL: func.func private @ew
// LAUNCH:         gpu.launch blocks({{[^)]*}}) in ({{%[a-z0-9]+}} = %c63, {{%[a-z0-9]+}} = %c7, {{%[a-z0-9]+}} = %c1)
// LAUNCH-SAME:               threads({{[^)]*}}) in ({{%[a-z0-9]+}} = %c16, {{%[a-z0-9]+}} = %c16, {{%[a-z0-9]+}} = %c1)
// LAUNCH:           math.exp
// LAUNCH-NOT:     scf.parallel

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @host(%x: tensor<100x1000xf32>, %a: tensor<64x128xf32>, %b: tensor<128x64xf32>)
    -> (tensor<100x1000xf32>, tensor<64x64xf32>) {
  %r = call @ew(%x) : (tensor<100x1000xf32>) -> tensor<100x1000xf32>
  %m = call @mm(%a, %b) : (tensor<64x128xf32>, tensor<128x64xf32>) -> tensor<64x64xf32>
  return %r, %m : tensor<100x1000xf32>, tensor<64x64xf32>
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
func.func private @mm(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>) -> tensor<64x64xf32> attributes {mskernel.kind = #mskernel.kind<matmul>} {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
