// RUN: ms-opt %s --msmlir-gpu-pipeline | FileCheck %s --implicit-check-not=ld.local --implicit-check-not=st.local
// RUN: ms-opt %s --msmlir-gpu-pipeline='chip=sm_80 features=+ptx70' | FileCheck %s --check-prefix=SM80
// RUN: ms-opt %s --msmlir-gpu-pipeline='chip=sm_75 features=+ptx70' | FileCheck %s --check-prefix=SM75
// RUN: ms-opt %s --msmlir-gpu-pipeline='tf32=true' | FileCheck %s --check-prefix=TF32

// Half-precision matmuls through the whole GPU pipeline on the tensor cores:
// f16 (1024^3, f32 accumulation) as ldmatrix + mma.sync m16n8k16 from
// 16-byte aligned shared tiles in two stages (B, n contiguous, kept k-major
// and read by ldmatrix .trans), both loaded by cp.async (the prologue's
// chunks whole, the K loop's zero-filled past K), committed and waited for
// before each barrier; bf16 (inputs cast in the graph, the casts
// fused into the kernel) the same through nvvm.mma.sync; f32 stays on FMA
// unless tf32=true. The accumulators never touch local memory.
// CHECK-LABEL: func.func private @cpu_matmul_matmul_
// CHECK:         gpu.launch_func @{{.*}} blocks in (%c8, %c16, %c1) threads in (%c256, %c1, %c1)
// CHECK:         gpu.binary
// CHECK:         gpu.binary
// CHECK-SAME:      .target sm_90
// CHECK-SAME:      .shared .align 16 .b8 {{.*}}[10240]
// CHECK-SAME:      .shared .align 16 .b8 {{.*}}[17408]
// CHECK-NOT:       ld.global.b16
// CHECK-SAME:      cp.async.cg.shared.global [%r{{[a-z]*[0-9]+}}], [%rd{{[0-9]+}}], 16, 16;
// CHECK-SAME:      cp.async.commit_group;
// CHECK-SAME:      cp.async.wait_group \091;
// CHECK-SAME:      bar.sync
// CHECK-SAME:      cp.async.cg.shared.global [%r{{[a-z]*[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-SAME:      ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME:      ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-SAME:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-LABEL: func.func private @cpu_matmul_matmul_cast_
// CHECK:         gpu.binary
// CHECK:         gpu.binary
// CHECK-SAME:      ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME:      mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-LABEL: func.func private @cpu_matmul_matmul_
// CHECK-NOT:     mma.sync
// CHECK:         gpu.binary
// CHECK:         gpu.binary
// CHECK-SAME:      fma.rn.f32
// CHECK-NOT:     mma.sync

// SM80:          gpu.binary
// SM80:          gpu.binary
// SM80-SAME:       .target sm_80
// SM80-SAME:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM75-NOT:      mma.sync
// SM75-NOT:      ldmatrix

// TF32:          mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// TF32:          mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// TF32:          mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

func.func @f16(%a: tensor<1024x1024xf16>, %b: tensor<1024x1024xf16>) -> tensor<1024x1024xf16> {
  %r = mindir.matmul %a, %b : (tensor<1024x1024xf16>, tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
  return %r : tensor<1024x1024xf16>
}
func.func @bf16(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>) -> tensor<256x512xf32> {
  %ac = mindir.cast %a : tensor<256x128xf32> to tensor<256x128xbf16>
  %bc = mindir.cast %b : tensor<128x512xf32> to tensor<128x512xbf16>
  %r = mindir.matmul %ac, %bc : (tensor<256x128xbf16>, tensor<128x512xbf16>) -> tensor<256x512xbf16>
  %o = mindir.cast %r : tensor<256x512xbf16> to tensor<256x512xf32>
  return %o : tensor<256x512xf32>
}
func.func @f32(%a: tensor<512x64xf32>, %b: tensor<64x256xf32>) -> tensor<512x256xf32> {
  %r = mindir.matmul %a, %b : (tensor<512x64xf32>, tensor<64x256xf32>) -> tensor<512x256xf32>
  return %r : tensor<512x256xf32>
}
