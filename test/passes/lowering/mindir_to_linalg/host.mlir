// mindir.host_callback -> a call of an external function taking the data
// pointers of the inputs and of freshly allocated result buffers.
// RUN: ms-opt %s --convert-mindir-to-linalg | FileCheck %s
// The whole CPU pipeline keeps the call and declares the symbol for the runtime.
// RUN: ms-opt %s --msmlir-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// CHECK-DAG: func.func private @msmlir_host_5(i64)
// CHECK-DAG: func.func private @msmlir_host_6(i64, i64, i64)
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<4xf32> to memref<4xf32>
// CHECK: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK: %[[XI:.*]] = arith.index_cast %[[XP]] : index to i64
// CHECK: call @msmlir_host_5(%[[XI]]) : (i64) -> ()
// CHECK: %[[R0:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[R1:.*]] = memref.alloc() : memref<i1>
// CHECK: call @msmlir_host_6({{.*}}) : (i64, i64, i64) -> ()
// CHECK-DAG: bufferization.to_tensor %[[R0]] restrict writable : memref<4xf32> to tensor<4xf32>
// CHECK-DAG: bufferization.to_tensor %[[R1]] restrict writable : memref<i1> to tensor<i1>
// CHECK-NOT: mindir.

// LLVM-DAG: llvm.func @msmlir_host_5(i64)
// LLVM-DAG: llvm.func @msmlir_host_6(i64, i64, i64)
// LLVM: llvm.call @msmlir_host_5
// LLVM: llvm.call @msmlir_host_6
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<i1>) {
  mindir.host_callback @msmlir_host_5 "print (t.py:3)" (%x) : (tensor<4xf32>) -> ()
  %r:2 = mindir.host_callback @msmlir_host_6 "np.f (t.py:4)" (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<i1>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<i1>
}
