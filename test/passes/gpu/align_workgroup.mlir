// RUN: ms-opt %s --msmlir-gpu-align-workgroup | FileCheck %s

// Every workgroup attribution gets llvm.align = 16 (ldmatrix reads 16-byte
// rows); a larger alignment already there is kept, private attributions and
// functions without workgroup buffers are left alone.
// CHECK-LABEL: gpu.func @two
// CHECK-SAME:    workgroup(%{{.*}} : memref<16x40xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64})
// CHECK-SAME:    private(%{{.*}} : memref<4xf32, #gpu.address_space<private>>)
// CHECK-LABEL: gpu.func @none
// CHECK-NOT:     llvm.align
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @two(%o: memref<4xf32>)
        workgroup(%a: memref<16x40xf16, #gpu.address_space<workgroup>>,
                  %b: memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64})
        private(%p: memref<4xf32, #gpu.address_space<private>>) kernel {
      gpu.return
    }
    gpu.func @none(%o: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
