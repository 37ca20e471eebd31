// RUN: ms-opt %s --msmlir-cpu-lower-vectors --split-input-file | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-lower-vectors="threads=2" --split-input-file | FileCheck %s --check-prefix=PAR

// The accumulator transfers are loop invariant: hoisted, carried in
// registers (iter_args), and the contraction becomes broadcast + FMA. The
// transfers become 1-D in-bounds ones (convert-vector-to-llvm makes them
// loads and stores).
// CHECK-LABEL: func.func @kernel
// CHECK:         vector.transfer_read %arg2{{.*}} {in_bounds = [true]} : memref<2x16xf32>, vector<16xf32>
// CHECK:         vector.transfer_read %arg2{{.*}} {in_bounds = [true]} : memref<2x16xf32>, vector<16xf32>
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<2x16xf32>)
// CHECK-NOT:       vector.contract
// CHECK-NOT:       %arg2
// CHECK:           vector.broadcast {{.*}} : f32 to vector<16xf32>
// CHECK:           vector.fma
// CHECK:           scf.yield
// CHECK:         vector.transfer_write {{.*}}, %arg2{{.*}} : vector<16xf32>, memref<2x16xf32>
// CHECK:         vector.transfer_write {{.*}}, %arg2{{.*}} : vector<16xf32>, memref<2x16xf32>
#a = affine_map<(k, m, n) -> (k, m)>
#b = affine_map<(k, m, n) -> (k, n)>
#c = affine_map<(k, m, n) -> (m, n)>
func.func @kernel(%A: memref<256x2xf32>, %B: memref<256x16xf32>, %C: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %p = ub.poison : f32
  scf.for %k = %c0 to %c256 step %c4 {
    %a = vector.transfer_read %A[%k, %c0], %p {in_bounds = [true, true]} : memref<256x2xf32>, vector<4x2xf32>
    %b = vector.transfer_read %B[%k, %c0], %p {in_bounds = [true, true]} : memref<256x16xf32>, vector<4x16xf32>
    %acc = vector.transfer_read %C[%c0, %c0], %p {in_bounds = [true, true]} : memref<2x16xf32>, vector<2x16xf32>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["reduction", "parallel", "parallel"],
                          kind = #vector.kind<add>} %a, %b, %acc : vector<4x2xf32>, vector<4x16xf32> into vector<2x16xf32>
    vector.transfer_write %r, %C[%c0, %c0] {in_bounds = [true, true]} : vector<2x16xf32>, memref<2x16xf32>
  }
  return
}

// -----

// scf.forall tasks: serial loops without threads, scf.parallel with them.
// CHECK-LABEL: func.func @tasks
// CHECK-NOT:     scf.forall
// CHECK:         scf.for
// PAR-LABEL:   func.func @tasks
// PAR:           scf.parallel
func.func @tasks(%x: memref<64xf32>) {
  %p = ub.poison : f32
  scf.forall (%i) in (4) {
    %c16 = arith.constant 16 : index
    %o = arith.muli %i, %c16 : index
    %v = vector.transfer_read %x[%o], %p {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %w = arith.addf %v, %v : vector<16xf32>
    vector.transfer_write %w, %x[%o] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  }
  return
}
