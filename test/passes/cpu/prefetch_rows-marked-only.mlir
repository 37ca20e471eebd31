// RUN: ms-opt %s --msmlir-cpu-prefetch-rows="marked-only=true" | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-prefetch-rows | FileCheck %s --check-prefix=ALL

// marked-only (msmlir-cpu-pipeline): only the functions msmlir-fuse-rows
// marked msmlir.row_loops get prefetches, and the mark is dropped; the
// others are not walked. Without the option every function is.
// CHECK-LABEL: func.func @marked
// CHECK-NOT:     msmlir.row_loops
// CHECK:         memref.prefetch
// CHECK-LABEL: func.func @unmarked
// CHECK-NOT:     memref.prefetch
// CHECK:         return
// ALL-LABEL:   func.func @marked
// ALL:           memref.prefetch
// ALL-LABEL:   func.func @unmarked
// ALL:           memref.prefetch
func.func @marked(%x: memref<512x1024xf32>, %y: memref<512x1024xf32>) attributes {msmlir.row_loops} {
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

func.func @unmarked(%x: memref<512x1024xf32>, %y: memref<512x1024xf32>) {
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
