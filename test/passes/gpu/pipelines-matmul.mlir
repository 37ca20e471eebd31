// RUN: ms-opt %s --msmlir-gpu-pipeline | FileCheck %s --implicit-check-not=ld.local --implicit-check-not=mul.rn.f32
// RUN: ms-opt %s --msmlir-gpu-pipeline='fma=false' | FileCheck %s --check-prefix=NOFMA --implicit-check-not=fma.rn.f32
// RUN: ms-opt %s --msmlir-gpu-pipeline='tile-matmul=false' | FileCheck %s --check-prefix=PLAIN --implicit-check-not=bar.sync --implicit-check-not=ld.shared

// A 1024^3 matmul through the whole GPU pipeline: 64x128 output tiles (128
// blocks of 256 threads, 4x8 outputs each), K in steps of 16 through two
// stages of shared memory: A [2][64][16 + 4], B [2][16][128 + 4], both
// copied by cp.async in 16-byte chunks (the prologue's whole, the K loop's
// zero-filled past K), commit + wait for all but the newest group, bar.sync,
// ld.shared feeding fma.rn.f32 (the mul/add contracted), bar.sync; the
// register tile never touches local memory.
// CHECK-LABEL: func.func @mm
// CHECK:         gpu.launch_func @{{.*}} blocks in (%c8, %c16, %c1) threads in (%c256, %c1, %c1)
// CHECK:         gpu.binary
// CHECK:         gpu.binary
// CHECK-SAME:      .target sm_90
// CHECK-SAME:      .maxntid 256, 1, 1
// CHECK-SAME:      .shared .align 16 .b8 {{.*}}[10240]
// CHECK-SAME:      .shared .align 16 .b8 {{.*}}[16896]
// CHECK-SAME:      ld.global.b32
// CHECK-SAME:      bar.sync
// CHECK-SAME:      cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, 16;
// CHECK-SAME:      cp.async.commit_group;
// CHECK-SAME:      cp.async.wait_group \091;
// CHECK-SAME:      bar.sync
// CHECK-SAME:      cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-SAME:      cp.async.commit_group;
// CHECK-SAME:      cp.async.wait_group \091;
// CHECK-SAME:      bar.sync
// CHECK-SAME:      ld.shared.b32
// CHECK-SAME:      fma.rn.f32
// CHECK-SAME:      bar.sync
// CHECK-SAME:      st.global.b32

// fma=false: separate mul.rn / add.rn, no fma.
// NOFMA:         gpu.binary
// NOFMA:         gpu.binary
// NOFMA-SAME:      mul.rn.f32
// NOFMA-SAME:      add.rn.f32

// tile-matmul=false: one thread per output, no shared memory, no barrier.
// PLAIN:         gpu.binary
// PLAIN:         gpu.binary
// PLAIN-SAME:      fma.rn.f32

func.func @mm(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %r = mindir.matmul %a, %b : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
