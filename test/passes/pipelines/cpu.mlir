// RUN: ms-opt %s --pass-pipeline="builtin.module(msmlir-cpu-pipeline{codegen=true})" | FileCheck %s
// RUN: ms-opt %s --pass-pipeline="builtin.module(msmlir-cpu-pipeline{codegen=true threads=2})" | FileCheck %s --check-prefix=THREADS
// RUN: ms-opt %s --pass-pipeline="builtin.module(msmlir-cpu-pipeline{codegen=false})" | FileCheck %s --check-prefix=PLAIN

// The whole CPU pipeline, mindir -> LLVM dialect. With codegen the softmax is
// 16-lane vector code with the polynomial exp (FMAs, no libm call) and one
// reciprocal per row for the normalization (a multiplication per vector); with
// threads its row loop is an OpenMP parallel region with a static work-sharing
// loop (libomp runs it); the plain path is scalar
// and uses the llvm.exp intrinsic (a libm call per element).

// CHECK-LABEL:  llvm.func @softmax
// CHECK:          llvm.intr.fma({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:          llvm.fdiv {{.*}} : vector<1xf32>
// CHECK:          llvm.fmul {{.*}} : vector<16xf32>
// CHECK-NOT:      llvm.intr.exp
// CHECK-NOT:      llvm.call @expf

// THREADS-LABEL:  llvm.func @softmax
// THREADS:          omp.parallel num_threads(%{{.*}} : i32)
// THREADS-NEXT:       omp.wsloop
// THREADS-NEXT:         omp.loop_nest
// THREADS:                llvm.intr.fma({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// THREADS:              omp.yield

// PLAIN-LABEL:    llvm.func @softmax
// PLAIN-NOT:      vector<16xf32>
// PLAIN:          llvm.intr.exp({{.*}}) : (f32) -> f32
func.func @softmax(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %r = mindir.softmax %x {axis = -1 : i64} : tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}
