// RUN: ms-opt %s --msmlir-widen-bool-memrefs | FileCheck %s

// i1 memrefs become i8 in signatures, allocations and globals; loads are
// truncated back to i1 and stored values zero-extended.
// CHECK: memref.global "private" constant @mask : memref<4xi8> = dense<[1, 0, 1, 0]>
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[M:.*]]: memref<4xi8>, %[[OUT:.*]]: memref<4xi8>)
// CHECK: %[[G:.*]] = memref.get_global @mask : memref<4xi8>
// CHECK: %[[L:.*]] = memref.load %[[M]][%{{.*}}] : memref<4xi8>
// CHECK: %[[T:.*]] = arith.trunci %[[L]] : i8 to i1
// CHECK: %[[L2:.*]] = memref.load %[[G]][%{{.*}}] : memref<4xi8>
// CHECK: %[[T2:.*]] = arith.trunci %[[L2]] : i8 to i1
// CHECK: %[[X:.*]] = arith.xori %[[T]], %[[T2]] : i1
// CHECK: %[[E:.*]] = arith.extui %[[X]] : i1 to i8
// CHECK: memref.store %[[E]], %[[OUT]][%{{.*}}] : memref<4xi8>
memref.global "private" constant @mask : memref<4xi1> = dense<[true, false, true, false]>
func.func @f(%m: memref<4xi1>, %out: memref<4xi1>) {
  %g = memref.get_global @mask : memref<4xi1>
  %c0 = arith.constant 0 : index
  %a = memref.load %m[%c0] : memref<4xi1>
  %b = memref.load %g[%c0] : memref<4xi1>
  %x = arith.xori %a, %b : i1
  memref.store %x, %out[%c0] : memref<4xi1>
  return
}

// Other element types are untouched.
// CHECK-LABEL: func.func @g
// CHECK-SAME: memref<4xf32>
// CHECK-NOT: arith.trunci
func.func @g(%m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.load %m[%c0] : memref<4xf32>
  memref.store %a, %m[%c0] : memref<4xf32>
  return
}

// Splat booleans (bit-packed inside MLIR) widen element by element.
// CHECK: memref.global "private" constant @all_true : memref<7x13xi8> = dense<1>
memref.global "private" constant @all_true : memref<7x13xi1> = dense<true>

// A huge i1 splat stays a splat (it used to be expanded into a 93 GiB array).
// CHECK: memref.global "private" constant @huge : memref<100000000000xi8> = dense<1>
memref.global "private" constant @huge : memref<100000000000xi1> = dense<true>
func.func @huge_splat() -> memref<100000000000xi1> {
  %m = memref.get_global @huge : memref<100000000000xi1>
  return %m : memref<100000000000xi1>
}
