// RUN: rm -rf %t && ms-opt %s --mskernel-lower-to-ascend="emit-dir=%t fallback=false" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --input-file=%t/op_kernel/ascend_opaque_dpool.cpp
// RUN: FileCheck %s --check-prefix=HOST --input-file=%t/op_host/ascend_opaque_dpool.cpp

// A dilated max pooling (a linalg-level kernel: mindir pooling has no
// dilation) on the vector path: the Gather tables step the window by the
// dilation (kh * dh rows, kw * dw columns), built by the vector unit.

// IR: remark: mskernel-lower-to-ascend: ascend_opaque_dpool: {{.*}} double-buffer=on

// CHECK: window 3x3, stride 1x2,
// CHECK: sh = td.sh; sw = td.sw; dh = td.dh; dw = td.dw;
// CHECK: Adds(rr, fi, (float)((k / KW * dh * Wp + k % KW * dw) * sizeof(float)), cnt);
// CHECK: Gather(m, x, tab, 0, cnt);
// HOST: tiling.set_dh(2);
// HOST-NEXT: tiling.set_dw(3);

func.func @cpu_opaque_dpool(%x: tensor<2x3x11x13xf32>) -> tensor<2x3x7x4xf32> attributes {mskernel.kind = #mskernel.kind<opaque>} {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x3x7x4xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x3x7x4xf32>) -> tensor<2x3x7x4xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %y = linalg.pooling_nchw_max {dilations = dense<[2, 3]> : vector<2xi64>, strides = dense<[1, 2]> : vector<2xi64>} ins(%x, %win : tensor<2x3x11x13xf32>, tensor<3x3xf32>) outs(%i : tensor<2x3x7x4xf32>) -> tensor<2x3x7x4xf32>
  return %y : tensor<2x3x7x4xf32>
}
