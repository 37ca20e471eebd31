// RUN: ms-opt %s --msmlir-gpu-pipeline='chip=sm_90 features=+ptx80 opt-level=3' | FileCheck %s
// RUN: ms-opt %s --msmlir-gpu-pipeline='chip=sm_80 features=+ptx70' | FileCheck %s --check-prefix=SM80

// The whole GPU pipeline on a mindir graph: fusion makes one softmax kernel
// (reduce max, exp, reduce sum, divide), mapped to blocks/threads (the row
// reductions to one block per row), outlined into device kernels, lowered to
// NVVM and serialized to PTX for sm_90. The host function stays on memrefs and
// launches the binaries.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%{{.*}}: memref<64x300xf32>, %{{.*}}: memref<64x300xf32>)
// CHECK:         call @[[K:.+]](%{{.*}}, %{{.*}})
// CHECK-LABEL: func.func private @{{.*}}reduce_max_sub_exp
// CHECK-SAME:    mskernel.kind = #mskernel.kind<reduce>
// CHECK:         gpu.launch_func @[[B0:[a-z0-9_]+kernel]]::@{{.*}} blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK:         gpu.launch_func @[[B1:[a-z0-9_]+kernel_0]]::@{{.*}} blocks in (%c64, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK:         gpu.launch_func @{{.*}} blocks in (%c2, %c64, %c1) threads in (%c256, %c1, %c1)
// CHECK:         gpu.binary @[[B0]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK-SAME:      .version 8.0
// CHECK-SAME:      .target sm_90
// CHECK-SAME:      .visible .entry
// CHECK-SAME:      .maxntid 64, 1, 1
// CHECK-SAME:      st.global.b32
// The row max: one block per row, strided partial maxima, a shared-memory tree
// down to one warp, then five warp shuffles (16, 8, 4, 2, 1 lanes down).
// CHECK:         gpu.binary @[[B1]]
// CHECK-SAME:      .target sm_90
// CHECK-SAME:      .maxntid 256, 1, 1
// CHECK-SAME:      .shared .align 16 .b8 {{.*}}[1024]
// CHECK-SAME:      %ctaid.x
// CHECK-SAME:      %tid.x
// CHECK-SAME:      ld.global.b32
// CHECK-SAME:      max.NaN.f32
// CHECK-SAME:      st.shared.b32
// CHECK-SAME:      bar.sync
// CHECK-SAME:      ld.shared.b32
// CHECK-SAME:      max.NaN.f32
// CHECK-SAME:      bar.sync
// CHECK-SAME:      shfl.sync.down.b32
// CHECK-SAME:      max.NaN.f32
// CHECK-SAME:      shfl.sync.down.b32
// CHECK-SAME:      shfl.sync.down.b32
// CHECK-SAME:      shfl.sync.down.b32
// CHECK-SAME:      shfl.sync.down.b32
// CHECK-SAME:      max.NaN.f32
// CHECK-SAME:      bar.sync
// CHECK-SAME:      st.global.b32
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     gpu.module

// SM80: gpu.binary
// SM80-SAME: chip = "sm_80", features = "+ptx70"
// SM80-SAME: .version 7.0
// SM80-SAME: .target sm_80

func.func @softmax(%x: tensor<64x300xf32>) -> tensor<64x300xf32> {
  %r = "mindir.softmax"(%x) {axis = -1 : i64} : (tensor<64x300xf32>) -> tensor<64x300xf32>
  return %r : tensor<64x300xf32>
}
