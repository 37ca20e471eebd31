// RUN: ms-opt %s --msmlir-cpu-unroll-transfers | FileCheck %s

// Vector transfers of i1 memrefs: the booleans are stored as bytes
// (msmlir-widen-bool-memrefs, run here, before the transfers are lowered: a
// vector<16xi1> load or store of a memref<...xi1> would be bit-packed), the
// vectors narrowed / widened at the transfers. The plain path's linalg ops
// in the same module read and write bytes too (narrowed in the payload).
// CHECK-LABEL: func.func @mask
// CHECK-SAME:    %{{.*}}: memref<64xf32>, %[[M:.*]]: memref<64xi8>, %[[N:.*]]: memref<64xi8>, %[[K:.*]]: memref<8xi8>
// CHECK:         %[[R:.*]] = vector.transfer_read %[[M]]{{.*}} : memref<64xi8>, vector<16xi8>
// CHECK:         %[[B:.*]] = arith.trunci %[[R]] : vector<16xi8> to vector<16xi1>
// CHECK:         arith.select %[[B]]
// CHECK:         %[[C:.*]] = arith.cmpf
// CHECK:         %[[W:.*]] = arith.extui %[[C]] : vector<16xi1> to vector<16xi8>
// CHECK:         vector.transfer_write %[[W]], %[[N]]{{.*}} : vector<16xi8>, memref<64xi8>
// CHECK:         linalg.fill ins(%{{.*}} : i8) outs(%[[K]] : memref<8xi8>)
// CHECK:         linalg.generic {{.*}} outs(%[[K]] : memref<8xi8>)
// CHECK:         ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: i8):
// CHECK:           %[[O1:.*]] = arith.trunci %[[OUT]] : i8 to i1
// CHECK:           %[[X:.*]] = arith.xori %[[O1]]
// CHECK:           %[[X8:.*]] = arith.extui %[[X]] : i1 to i8
// CHECK:           linalg.yield %[[X8]] : i8
func.func @mask(%g: memref<64xf32>, %m: memref<64xi1>, %n: memref<64xi1>, %k: memref<8xi1>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 0.0 : f32
  %fv = arith.constant dense<0.0> : vector<16xf32>
  %false = arith.constant false
  %true = arith.constant true
  scf.for %i = %c0 to %c64 step %c16 {
    %b = vector.transfer_read %m[%i], %false {in_bounds = [true]} : memref<64xi1>, vector<16xi1>
    %x = vector.transfer_read %g[%i], %f {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %s = arith.select %b, %x, %fv : vector<16xi1>, vector<16xf32>
    %c = arith.cmpf ogt, %s, %fv : vector<16xf32>
    vector.transfer_write %c, %n[%i] {in_bounds = [true]} : vector<16xi1>, memref<64xi1>
  }
  linalg.fill ins(%true : i1) outs(%k : memref<8xi1>)
  %sub = memref.subview %g[0] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1]>>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%sub : memref<8xf32, strided<[1]>>) outs(%k : memref<8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %v = arith.xori %out, %true : i1
    linalg.yield %v : i1
  }
  return
}
