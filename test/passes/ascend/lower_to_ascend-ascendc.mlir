// RUN: ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{fallback=false tile-elems=2048})" 2>/dev/null | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{fallback=false tile-elems=2048 emit-dir=%t/a})" -o %t/lowered.mlir 2>/dev/null
// RUN: ms-opt %t/lowered.mlir | ms-opt --ascendc-emit="emit-dir=%t/b" -o /dev/null
// RUN: diff -r %t/a/op_kernel %t/b/op_kernel
// RUN: ms-opt %t/lowered.mlir --ascendc-emit 2>&1 >/dev/null | FileCheck %s --check-prefix=SRC

// mskernel-lower-to-ascend lowers vector kernels to the ascendc dialect: one
// ascendc.kernel after each kernel function. The second and third RUN lines
// print that module, parse it back (ms-opt reads its own ascendc output) and
// emit the kernels from the ascendc IR alone with ascendc-emit: the same
// Ascend C as the lowering's emit-dir, byte for byte.

func.func @softmax(%x: tensor<37x100xf32>) -> tensor<37x100xf32> {
  %r = mindir.softmax %x {axis = -1 : i64} : tensor<37x100xf32>
  return %r : tensor<37x100xf32>
}

// Rows of 100 f32 (400 bytes, not a multiple of 32): DataCopyPad in and out;
// queues of depth 2 (double buffering) holding one 104-element pitched row;
// the reductions count `cols` (100: the padding is never reduced), the
// elementwise ops the pitched tile (rows of 104). The tiles (the cost
// model's choice, at most 2048 elements) are split over block_dim cores,
// tilesPerCore each: the tile loop says the same.
// CHECK-LABEL: ascendc.kernel "ascend_reduce_reduce_max_sub_exp_{{[0-9a-f]+}}"
// CHECK-SAME: from @cpu_reduce_reduce_max_sub_exp_{{[0-9a-f]+}} soc "Ascend910B" mode "row" block_dim [[BD:[0-9]+]] tiling {blockDim = [[BD]] : i64, {{.*}} tileNum = [[TN:[0-9]+]] : i64, tileRows = [[TR:[0-9]+]] : i64, tilesPerCore = [[PC:[0-9]+]] : i64, totalRows = 37 : i64}
// CHECK-NEXT: ascendc.global @in0Gm param "x0" : 3700 x f32
// CHECK-NEXT: ascendc.global @out0Gm param "y0" : 3700 x f32
// CHECK-NEXT: ascendc.queue @in0Que <VECIN> depth 2 bytes {{[0-9]+}} : f32 size "tileRows * pitch * sizeof(float)"
// CHECK-NEXT: ascendc.queue @out0Que <VECOUT> depth 2 bytes {{[0-9]+}} : f32
// CHECK: ascendc.for_tiles [[TN]] per_core [[PC]] {
// CHECK-NEXT: ascendc.stage <CopyIn> {
// CHECK-NEXT: ascendc.alloc_tensor @in0Que -> "x0" : f32
// CHECK-NEXT: ascendc.data_copy_pad "x0", "in0Gm[row0 * rowLen + col0]" {block_bytes = array<i64: 400>, count = "rows * cols", pad = f32, params = ["(uint16_t)rows", "cols * (uint32_t)sizeof(float)", "(rowLen - cols) * (uint32_t)sizeof(float)", "0", "0"]}
// CHECK-NEXT: ascendc.enque @in0Que, "x0"
// CHECK: ascendc.stage <Compute> {
// CHECK-NEXT: ascendc.deque @in0Que -> "in0" : f32
// CHECK: ascendc.for_rows {
// CHECK-NEXT: ascendc.vec <ReduceMax> ["red", "in0[r * pitch]", "work"] count "cols" elems 100
// CHECK-NEXT: ascendc.sync <V_S>
// CHECK: ascendc.sync <S_V>
// CHECK: ascendc.vec <Exp> ["tF0", "tF0"] count "cntF" elems {{[0-9]+}}
// CHECK: ascendc.stage <CopyOut> {
// CHECK-NEXT: ascendc.deque @out0Que -> "y0" : f32
// CHECK-NEXT: ascendc.data_copy_pad "out0Gm[row0 * rowLen + col0]", "y0" {block_bytes = array<i64: 400>

func.func @bias_add(%x: tensor<100x64xf32>, %b: tensor<64xf32>) -> tensor<100x64xf32> {
  %r = mindir.add %x, %b : (tensor<100x64xf32>, tensor<64xf32>) -> tensor<100x64xf32>
  return %r : tensor<100x64xf32>
}

// Rows of 256 bytes: DataCopy, whose block lengths are checked for every tile
// shape: the full tiles and the last, shorter one (100 rows are no multiple
// of the tile). The bias column is loaded once (LoadCols) and added per row.
// CHECK-LABEL: ascendc.kernel "ascend_broadcast_add_{{[0-9a-f]+}}" {{.*}} mode "row" block_dim
// CHECK: ascendc.tbuf @col1 <VECCALC> bytes 256 : f32 size "pitch * sizeof(float)"
// CHECK-NEXT: ascendc.stage <LoadCols> {
// CHECK-NEXT: ascendc.get_buf @col1 -> "c1"
// CHECK-NEXT: ascendc.data_copy "c1", "in1Gm[c0]" {block_bytes = array<i64: 256>, count = "n"}
// CHECK-NEXT: ascendc.set_flag <MTE2_V>
// CHECK-NEXT: ascendc.wait_flag <MTE2_V>
// CHECK: ascendc.for_tiles {{[0-9]+}} per_core {{[0-9]+}} {
// CHECK: ascendc.data_copy "x0", "in0Gm[row0 * rowLen + col0]" {block_bytes = array<i64: {{[0-9]+}}, {{[0-9]+}}>, count = "rows * cols"}
// CHECK: ascendc.vec <Add> ["out0[r * pitch]", "in0[r * pitch]", "col1"] count "colsAl" elems 64

func.func @colsum(%x: tensor<37x100xf32>) -> tensor<100xf32> {
  %r = mindir.reduce_sum %x {axes = array<i64: 0>} : (tensor<37x100xf32>) -> tensor<100xf32>
  return %r : tensor<100xf32>
}

// A sum over the first axis (column mode): two column chunks of 64 over two
// cores, each streaming its rows (an inner loop over two row tiles) into an
// accumulator TBuf; the 36-column tail chunk is 144 bytes: DataCopyPad.
// CHECK-LABEL: ascendc.kernel "ascend_reduce_reduce_sum_{{[0-9a-f]+}}" {{.*}} mode "col" block_dim 2
// CHECK: ascendc.for_tiles 2 per_core 1 {
// CHECK-NEXT: ascendc.stage <StartChunk> {
// CHECK-NEXT: ascendc.get_buf @tC0
// CHECK-NEXT: ascendc.vec <Duplicate> ["tC0", "0.0f"] count "colsAl" elems 64
// CHECK: ascendc.for_tiles 2 {
// CHECK-NEXT: ascendc.stage <CopyIn> {
// CHECK: ascendc.data_copy_pad "x0", "in0Gm[row0 * rowLen + col0]" {block_bytes = array<i64: 256, 144>, pad = f32
// CHECK: ascendc.vec <Add> ["tC0", "tC0", "in0[r * pitch]"] count "colsAl" elems 64
// CHECK: ascendc.stage <Finish> {
// CHECK: ascendc.stage <CopyOutCols> {
// CHECK-NEXT: ascendc.deque @out0Que -> "y0" : f32
// CHECK-NEXT: ascendc.data_copy_pad "out0Gm[col0]", "y0" {block_bytes = array<i64: 256, 144>, count = "cols"

// SRC: remark: ascendc-emit: ascend_reduce_reduce_max_sub_exp_{{[0-9a-f]+}}
// SRC-NEXT: // Ascend C kernel generated by msmlir
// SRC: constexpr int32_t BUFFER_NUM = 2;
// SRC: tileBegin = GetBlockIdx() * td.tilesPerCore;
// SRC: pipe.InitBuffer(in0Que, BUFFER_NUM, tileRows * pitch * sizeof(float));
// SRC-LABEL: void CopyIn() {
// SRC-NEXT: LocalTensor<float> x0 = in0Que.AllocTensor<float>();
// SRC-NEXT: DataCopyPad(x0, in0Gm[row0 * rowLen + col0], DataCopyExtParams{(uint16_t)rows, cols * (uint32_t)sizeof(float), (rowLen - cols) * (uint32_t)sizeof(float), 0, 0}, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
// SRC-NEXT: in0Que.EnQue(x0);
// SRC: for (uint32_t r = 0; r < rows; ++r) { ReduceMax(red, in0[r * pitch], work, cols); SetFlag<HardEvent::V_S>(0); WaitFlag<HardEvent::V_S>(0); float v = red.GetValue(0); tR0.SetValue(r, v); }
// SRC: Exp(tF0, tF0, cntF);
// SRC: remark: ascendc-emit: ascend_broadcast_add_{{[0-9a-f]+}}
// SRC: remark: ascendc-emit: ascend_reduce_reduce_sum_{{[0-9a-f]+}}
// SRC: void StartChunk() {
