// RUN: rm -rf %t && ms-opt %s --mskernel-lower-to-ascend="emit-dir=%t cores=4" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --input-file=%t/op_kernel/ascend_reduce_softmax.cpp
// RUN: FileCheck %s --check-prefix=HOST --input-file=%t/op_host/ascend_reduce_softmax.cpp
// RUN: FileCheck %s --check-prefix=TILING --input-file=%t/op_host/ascend_reduce_softmax_tiling.h
// RUN: FileCheck %s --check-prefix=LAUNCH --input-file=%t/launch/ascend_reduce_softmax_launch.cpp

// A softmax kernel (as mskernel-outline-kernels + convert-mindir-to-linalg
// leave it) becomes an Ascend C kernel: rows of 100 f32 (400 bytes, not a
// multiple of 32) are moved with DataCopyPad into rows of pitch 104, double
// buffered queues, the two reductions per row with the exact count `cols`,
// the broadcasts per row, tiles split over GetBlockIdx (5-row tiles, two per
// core: the cost model's choice among the tilings that fit UB).

// IR: remark: mskernel-lower-to-ascend: ascend_reduce_softmax: soc=Ascend910B blockDim=4 tiles=8 tile=5x100 UB={{[0-9]+}}B L1=0B L0A=0B L0B=0B L0C=0B double-buffer=on DataCopy=16 est-cycles={{[0-9]+}}
// IR: func.func private @cpu_reduce_softmax({{.*}}attributes {ascend.kernel = "ascend_reduce_softmax"
// IR-SAME: mskernel.target = #mskernel.target<ascend>

// CHECK: #include "kernel_operator.h"
// CHECK: constexpr int32_t BUFFER_NUM = 2;
// CHECK: class KernelAscendReduceSoftmax {
// CHECK: __aicore__ inline void Init(GM_ADDR x0, GM_ADDR y0, const AscendReduceSoftmaxTilingData& td) {
// CHECK: tileBegin = GetBlockIdx() * td.tilesPerCore;
// CHECK: in0Gm.SetGlobalBuffer((__gm__ float*)x0, 3700);
// CHECK: pipe.InitBuffer(in0Que, BUFFER_NUM, tileRows * pitch * sizeof(float));
// CHECK: pipe.InitBuffer(out0Que, BUFFER_NUM, tileRows * pitch * sizeof(float));
// CHECK: pipe.InitBuffer(workBuf,
// CHECK-LABEL: void CopyIn() {
// CHECK: LocalTensor<float> x0 = in0Que.AllocTensor<float>();
// CHECK: DataCopyPad(x0, in0Gm[row0 * rowLen + col0], DataCopyExtParams{(uint16_t)rows, cols * (uint32_t)sizeof(float), (rowLen - cols) * (uint32_t)sizeof(float), 0, 0}, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
// CHECK: in0Que.EnQue(x0);
// CHECK-LABEL: void Compute() {
// CHECK: LocalTensor<float> in0 = in0Que.DeQue<float>();
// CHECK: LocalTensor<float> out0 = out0Que.AllocTensor<float>();
// CHECK: ReduceMax(red, in0[r * pitch], work, cols);
// CHECK: Adds([[T:tF[0-9]]][r * pitch], in0[r * pitch], v, colsAl);
// CHECK: Exp([[T]], [[T]], cntF);
// CHECK: ReduceSum(red, [[T]][r * pitch], work, cols);
// CHECK: Duplicate([[D:tF[0-9]]][r * pitch], v, colsAl);
// CHECK: Div(out0, [[T]], [[D]], cntF);
// CHECK: out0Que.EnQue(out0);
// CHECK: in0Que.FreeTensor(in0);
// CHECK-LABEL: void CopyOut() {
// CHECK: LocalTensor<float> y0 = out0Que.DeQue<float>();
// CHECK: DataCopyPad(out0Gm[row0 * rowLen + col0], y0, DataCopyExtParams{(uint16_t)rows, cols * (uint32_t)sizeof(float), 0, (rowLen - cols) * (uint32_t)sizeof(float), 0});
// CHECK: out0Que.FreeTensor(y0);
// CHECK: TQue<QuePosition::VECIN, BUFFER_NUM> in0Que;
// CHECK: TQue<QuePosition::VECOUT, BUFFER_NUM> out0Que;
// CHECK: extern "C" __global__ __aicore__ void ascend_reduce_softmax(GM_ADDR x0, GM_ADDR y0, GM_ADDR workspace, GM_ADDR tiling) {
// CHECK-NEXT: GET_TILING_DATA(tilingData, tiling);

// HOST: tiling.set_totalRows(37);
// HOST: tiling.set_rowLen(100);
// HOST: tiling.set_tileRows(5);
// HOST: context->SetBlockDim(4);
// HOST: this->Input("x0").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
// HOST: this->AICore().SetTiling(optiling::TilingFunc);
// HOST: OP_ADD(AscendReduceSoftmax);

// TILING: BEGIN_TILING_DATA_DEF(AscendReduceSoftmaxTilingData)
// TILING: TILING_DATA_FIELD_DEF(uint32_t, tilesPerCore);
// TILING: REGISTER_TILING_DATA_CLASS(AscendReduceSoftmax, AscendReduceSoftmaxTilingData)

// LAUNCH: ACLRT_LAUNCH_KERNEL(ascend_reduce_softmax)(4, stream, x0, y0, nullptr, tiling);

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
module {
  func.func private @cpu_reduce_softmax(%arg0: tensor<37x100xf32>) -> tensor<37x100xf32> attributes {mskernel.kind = #mskernel.kind<reduce>, mskernel.target = #mskernel.target<cpu>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %0 = tensor.empty() : tensor<37xf32>
    %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<37xf32>) -> tensor<37xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<37x100xf32>) outs(%1 : tensor<37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.maximumf %in, %out : f32
      linalg.yield %9 : f32
    } -> tensor<37xf32>
    %3 = tensor.empty() : tensor<37x100xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %2 : tensor<37x100xf32>, tensor<37xf32>) outs(%3 : tensor<37x100xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %9 = arith.subf %in, %in_1 : f32
      linalg.yield %9 : f32
    } -> tensor<37x100xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<37x100xf32>) outs(%3 : tensor<37x100xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = math.exp %in : f32
      linalg.yield %9 : f32
    } -> tensor<37x100xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%0 : tensor<37xf32>) -> tensor<37xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%5 : tensor<37x100xf32>) outs(%6 : tensor<37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.addf %in, %out : f32
      linalg.yield %9 : f32
    } -> tensor<37xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %7 : tensor<37x100xf32>, tensor<37xf32>) outs(%3 : tensor<37x100xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %9 = arith.divf %in, %in_1 : f32
      linalg.yield %9 : f32
    } -> tensor<37x100xf32>
    return %8 : tensor<37x100xf32>
  }
}
