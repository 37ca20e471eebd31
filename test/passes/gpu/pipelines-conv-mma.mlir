// RUN: ms-opt %s --msmlir-gpu-pipeline | FileCheck %s --implicit-check-not=ld.local --implicit-check-not=st.local
// RUN: ms-opt %s --msmlir-gpu-pipeline='chip=sm_80 features=+ptx70' | FileCheck %s --check-prefix=SM80
// RUN: ms-opt %s --msmlir-gpu-pipeline='tensor-cores=false' | FileCheck %s --check-prefix=OFF

// An f16 convolution on the tensor cores (passes/gpu/conv.py): accumulated
// in f32 (a fill of f32 zeros), as an implicit GEMM: upstream's im2col
// gather fused into the contraction (M = 32 filters, N = 32*32 output
// pixels, K = 16*3*3, a block column per image), so no im2col buffer: the
// MMA tiles' load phase reads the input windows (ld.global.b16) straight
// into the column tile in shared memory, the filter tile comes by cp.async;
// ldmatrix + mma.sync m16n8k16 from 16-byte aligned shared tiles in two
// stages (the columns k-major, read by ldmatrix .trans), and the result
// truncated back to f16. An f32 convolution stays one thread per output.
// CHECK-LABEL: func.func private @cpu_conv_conv2d_
// CHECK-NOT:     memref<8x144x1024xf16>
// CHECK:         gpu.launch_func {{.*}} blocks in (%c4, %c32, %c8)
// CHECK-NOT:     memref<8x144x1024xf16>
// CHECK:         gpu.launch_func {{.*}} blocks in (%c16, %c8, %c1) threads in (%c128, %c1, %c1){{.*}}%arg0 : memref<8x16x34x34xf16>
// CHECK:         gpu.launch_func
// CHECK:         gpu.binary
// CHECK:         gpu.binary
// CHECK-SAME:      .target sm_90
// CHECK-SAME:      .shared .align 16 .b8 {{.*}}[10240]
// CHECK-SAME:      .shared .align 16 .b8 {{.*}}[9216]
// CHECK-SAME:      ld.global.b16
// CHECK-SAME:      st.shared.b16
// CHECK-SAME:      cp.async.cg.shared.global
// CHECK-SAME:      cp.async.commit_group;
// CHECK-SAME:      cp.async.wait_group \091;
// CHECK-SAME:      bar.sync
// CHECK-SAME:      ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME:      ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-SAME:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:         gpu.binary
// CHECK-SAME:      cvt.rn.f16.f32
// CHECK-LABEL: func.func private @cpu_conv_conv2d_
// CHECK-NOT:     mma.sync
// CHECK-NOT:     ldmatrix
// CHECK:         gpu.binary {{.*}}fma.rn.f32
// CHECK-NOT:     mma.sync

// SM80:          gpu.binary
// SM80:          gpu.binary
// SM80-SAME:       .target sm_80
// SM80-SAME:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// OFF-NOT:       mma.sync
// OFF-NOT:       memref<8x144x1024xf16>

func.func @f16(%x: tensor<8x16x34x34xf16>, %w: tensor<32x16x3x3xf16>) -> tensor<8x32x32x32xf16> {
  %r = mindir.conv2d %x, %w : (tensor<8x16x34x34xf16>, tensor<32x16x3x3xf16>) -> tensor<8x32x32x32xf16>
  return %r : tensor<8x32x32x32xf16>
}
func.func @f32(%x: tensor<2x16x18x18xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<2x32x16x16xf32> {
  %r = mindir.conv2d %x, %w : (tensor<2x16x18x18xf32>, tensor<32x16x3x3xf32>) -> tensor<2x32x16x16xf32>
  return %r : tensor<2x32x16x16xf32>
}
