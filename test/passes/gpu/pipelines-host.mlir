// RUN: ms-opt %s --msmlir-gpu-pipeline='host=true' | FileCheck %s

// host=true: the host side for the in-process runtime. The kernels are
// inlined into @f, which works on device twins of its arguments (no
// msmlir.gpu_inputs here, so each is copied in and out), one stream for
// everything, the result computed in the result's device twin (no
// intermediate buffer, no device-to-device copy), and the gpu ops lowered to
// MLIR's CUDA runtime calls; the launches stay gpu.launch_func (translated
// to mgpuModuleLoad/mgpuLaunchKernel with the gpu.binary images).
// CHECK-LABEL: llvm.func @f(
// CHECK:         %[[S:.+]] = llvm.call @mgpuStreamCreate()
// CHECK-COUNT-3: llvm.call @mgpuMemcpy(%{{.*}}, %arg{{[0-9]+}}, %{{.*}}, %[[S]])
// CHECK-NOT:     llvm.call @mgpuMemAlloc
// CHECK-COUNT-3: gpu.launch_func <%[[S]] : !llvm.ptr> @{{.*}} blocks in
// CHECK-NOT:     llvm.call @mgpuMemAlloc
// CHECK-COUNT-3: llvm.call @mgpuMemcpy(%arg{{[0-9]+}}, %{{.*}}, %{{.*}}, %[[S]])
// CHECK-COUNT-3: llvm.call @mgpuMemFree
// CHECK:         llvm.call @mgpuStreamSynchronize(%[[S]])
// CHECK:         llvm.call @mgpuStreamDestroy(%[[S]])
// CHECK-NOT:     llvm.call @malloc
// CHECK:         gpu.binary
// CHECK-NOT:     func.func
// CHECK-NOT:     memref.
func.func @f(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %m = mindir.matmul %x, %w : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  %r = mindir.relu %m : tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
