// RUN: ms-opt %s --convert-mindir-to-linalg | FileCheck %s
// RUN: ms-opt %s --pass-pipeline="builtin.module(msmlir-cpu-pipeline)" | FileCheck %s --check-prefix=LLVM

// The integer bitwise ops become linalg.generic with arith bodies; the shifts
// select numpy's result for a shift amount outside [0, bit width), where
// arith.shli / arith.shrsi are poison.

// CHECK-LABEL: func.func @f
// CHECK:         linalg.generic
// CHECK:           arith.andi %{{.*}}, %{{.*}} : i32
// CHECK:         linalg.generic
// CHECK:           arith.ori %{{.*}}, %{{.*}} : i8
// CHECK:         linalg.generic
// CHECK:           arith.xori %{{.*}}, %{{.*}} : i64
// CHECK:         linalg.generic
// CHECK:           %[[GE:.*]] = arith.cmpi sge, %[[S:.*]], %c0_i32
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %[[S]], %c32_i32
// CHECK:           %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:           %[[SAFE:.*]] = arith.select %[[OK]], %[[S]], %{{.*}} : i32
// CHECK:           %[[SH:.*]] = arith.shli %{{.*}}, %[[SAFE]] : i32
// CHECK:           arith.select %[[OK]], %[[SH]], %{{.*}} : i32
// CHECK:         linalg.generic
// CHECK:           %[[SIGN:.*]] = arith.shrsi %[[X:.*]], %c31_i32 : i32
// CHECK:           %[[R:.*]] = arith.shrsi %[[X]], %{{.*}} : i32
// CHECK:           arith.select %{{.*}}, %[[R]], %[[SIGN]] : i32
// CHECK:         linalg.generic
// CHECK:           arith.xori %{{.*}}, %c-1_i8 : i8

// LLVM-LABEL: llvm.func @f
// LLVM-DAG: llvm.and
// LLVM-DAG: llvm.shl
// LLVM-DAG: llvm.ashr
// LLVM-DAG: llvm.xor
func.func @f(%a: tensor<4xi32>, %b: tensor<i32>, %c: tensor<2x4xi8>, %d: tensor<3xi64>)
    -> (tensor<4xi32>, tensor<2x4xi8>, tensor<3xi64>, tensor<4xi32>, tensor<4xi32>, tensor<2x4xi8>) {
  %0 = mindir.bitwise_and %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %1 = mindir.bitwise_or %c, %c : (tensor<2x4xi8>, tensor<2x4xi8>) -> tensor<2x4xi8>
  %2 = mindir.bitwise_xor %d, %d : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %3 = mindir.left_shift %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %4 = mindir.right_shift %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = mindir.bitwise_not %c : tensor<2x4xi8>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi32>, tensor<2x4xi8>, tensor<3xi64>, tensor<4xi32>, tensor<4xi32>, tensor<2x4xi8>
}
