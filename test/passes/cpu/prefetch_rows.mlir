// RUN: ms-opt %s --msmlir-cpu-prefetch-rows | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-prefetch-rows="min-row-bytes=8192" | FileCheck %s --check-prefix=LONG

// A row loop reading each 4 KiB row in two passes (a max, then a heavier
// pass writing the output): the heavier pass prefetches row min(i + 1, last)
// once per 64-byte line (16 f32 per step: one prefetch per iteration).
// CHECK-LABEL: func.func @two_passes
// CHECK:         scf.for %[[I:.*]] = %c0 to %c512 step %c1
// CHECK:           scf.for
// CHECK-NOT:         memref.prefetch
// CHECK:             vector.transfer_read %arg0[%[[I]], %{{.*}}]
// CHECK:           %[[ONE:.*]] = arith.constant 1 : index
// CHECK:           %[[LAST:.*]] = arith.subi %c512, %[[ONE]]
// CHECK:           %[[NEXT:.*]] = arith.addi %[[I]], %[[ONE]]
// CHECK:           %[[ROW:.*]] = arith.minsi %[[NEXT]], %[[LAST]]
// CHECK:           scf.for %[[J:.*]] = %c0 to %c1024 step %c16
// CHECK-NEXT:        memref.prefetch %arg0[%[[ROW]], %[[J]]], read, locality<3>, data
// CHECK-NOT:         memref.prefetch
// CHECK:             vector.transfer_read %arg0[%[[I]], %[[J]]]
// Rows shorter than min-row-bytes are left alone.
// LONG-LABEL: func.func @two_passes
// LONG-NOT:     memref.prefetch
func.func @two_passes(%x: memref<512x1024xf32>, %y: memref<512x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  %ninf = arith.constant dense<0xFF800000> : vector<16xf32>
  scf.for %i = %c0 to %c512 step %c1 {
    %m = scf.for %j = %c0 to %c1024 step %c16 iter_args(%acc = %ninf) -> (vector<16xf32>) {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<512x1024xf32>, vector<16xf32>
      %r = arith.maximumf %acc, %v : vector<16xf32>
      scf.yield %r : vector<16xf32>
    }
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<512x1024xf32>, vector<16xf32>
      %d = arith.subf %v, %m : vector<16xf32>
      %e = math.exp %d : vector<16xf32>
      vector.transfer_write %e, %y[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<512x1024xf32>
    }
  }
  return
}

// 64 f32 per step: four prefetches, one per line.
// CHECK-LABEL: func.func @wide_steps
// CHECK:         arith.minsi
// CHECK-NEXT:    scf.for %[[J:.*]] = %c0 to %c1024 step %c64
// CHECK-NEXT:      memref.prefetch %arg0[%{{.*}}, %[[J]]]
// CHECK-NEXT:      %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[J16:.*]] = arith.addi %[[J]], %[[C16]]
// CHECK-NEXT:      memref.prefetch %arg0[%{{.*}}, %[[J16]]]
// CHECK-COUNT-2:   memref.prefetch
// CHECK-NOT:       memref.prefetch
// CHECK:         return
func.func @wide_steps(%x: memref<512x1024xf32>, %y: memref<512x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  %z = arith.constant dense<0.0> : vector<64xf32>
  scf.for %i = %c0 to %c512 step %c1 {
    %s = scf.for %j = %c0 to %c1024 step %c64 iter_args(%acc = %z) -> (vector<64xf32>) {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<512x1024xf32>, vector<64xf32>
      %r = arith.addf %acc, %v : vector<64xf32>
      scf.yield %r : vector<64xf32>
    }
    scf.for %j = %c0 to %c1024 step %c64 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<512x1024xf32>, vector<64xf32>
      %d = arith.subf %v, %s : vector<64xf32>
      %e = arith.mulf %d, %d : vector<64xf32>
      vector.transfer_write %e, %y[%i, %j] {in_bounds = [true]} : vector<64xf32>, memref<512x1024xf32>
    }
  }
  return
}

// One pass per row (the row is streamed once: nothing to overlap with), and
// a loop whose rows are read in two passes of another memref each: no
// prefetch.
// CHECK-LABEL: func.func @one_pass
// CHECK-NOT:     memref.prefetch
// CHECK:         return
func.func @one_pass(%x: memref<512x1024xf32>, %w: memref<512x1024xf32>, %y: memref<512x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  scf.for %i = %c0 to %c512 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<512x1024xf32>, vector<16xf32>
      %e = math.exp %v : vector<16xf32>
      vector.transfer_write %e, %y[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<512x1024xf32>
    }
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.transfer_read %w[%i, %j], %pad {in_bounds = [true]} : memref<512x1024xf32>, vector<16xf32>
      %e = math.exp %v : vector<16xf32>
      vector.transfer_write %e, %y[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<512x1024xf32>
    }
  }
  return
}
