// RUN: ms-opt %s --pass-pipeline="builtin.module(mindir-insert-shardings,convert-mindir-to-linalg,msmlir-sink-constants,msmlir-shard-partition,msmlir-shard-collectives-to-mindir,convert-mindir-to-linalg,convert-shard-to-mpi,msmlir-mpi-world-comm,msmlir-outline-mpi,symbol-dce,canonicalize,cse)" | filecheck %s --check-prefix=MPI
// RUN: ms-opt %s --msmlir-cpu-shard-pipeline | filecheck %s --check-prefix=LLVM

// mindir -> shard -> partitioned -> mpi -> LLVM, for a Megatron MLP (the
// all_reduce through convert-shard-to-mpi) and a row sum of row-split data
// (the all_gather through msmlir's collective: one MPI_Allgather).

// MPI:       module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// MPI-NOT:   shard.grid
// MPI-DAG:   func.func private @msmlir_shard_mpi_0(memref<32xf32>, !mpi.comm) attributes {msmlir.mpi_attrs = {op = 3 : i32}, msmlir.mpi_op = "mpi.allreduce"
// MPI-DAG:   func.func private @msmlir_mpi_allgather_3xf32(memref<3xf32>, memref<6xf32>) attributes {msmlir.mpi = "allgather"}
// MPI-LABEL: func.func @mlp(
// MPI-SAME:      %{{[a-z0-9]+}}: tensor<4x8xf32>, %{{[a-z0-9]+}}: tensor<8x8xf32>, %{{[a-z0-9]+}}: tensor<8x8xf32>) -> tensor<4x8xf32>
// MPI:         linalg.matmul {{.*}} -> tensor<4x8xf32>
// MPI:         %[[Y:.*]] = linalg.matmul {{.*}} -> tensor<4x8xf32>
// MPI:         %[[B:.*]] = bufferization.to_buffer %[[Y]]
// MPI:         %[[W:.*]] = mpi.comm_world
// MPI:         %[[F:.*]] = memref.collapse_shape %{{.*}} {{\[\[0, 1\]\]}} : memref<4x8xf32> into memref<32xf32>
// MPI:         call @msmlir_shard_mpi_0(%[[F]], %[[W]])
// MPI-NOT:     mpi.comm_split
// MPI-LABEL: func.func @rowsum(
// MPI-SAME:      tensor<3x8xf32>
// MPI:         linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf32>)
// MPI:         %[[S:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<3xf32> to memref<3xf32>
// MPI:         %[[G:.*]] = memref.alloc() : memref<6xf32>
// MPI:         call @msmlir_mpi_allgather_3xf32(%[[S]], %[[G]])

// LLVM-DAG:   llvm.func @MPI_Allreduce(
// LLVM-DAG:   llvm.func @MPI_Allgather(
// LLVM-NOT:   MPI_Comm_split
// LLVM-LABEL: llvm.func @msmlir_shard_mpi_0(
// LLVM:         %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// LLVM:         %[[IN_PLACE:.*]] = llvm.inttoptr %[[ONE]] : i64 to !llvm.ptr
// LLVM:         llvm.call @MPI_Allreduce(%[[IN_PLACE]],
// LLVM-LABEL: llvm.func @mlp(
// LLVM:         llvm.call @msmlir_shard_mpi_0(
// LLVM-LABEL: llvm.func @rowsum(
// LLVM:         llvm.call @msmlir_mpi_allgather_3xf32(

func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>) -> tensor<4x8xf32>
    attributes {mindir.device_num = 2 : i64} {
  %0 = mindir.matmul %x, %w1 {mindir.in_strategy = [array<i64: 1, 1>, array<i64: 1, 2>]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mindir.relu %0 : tensor<4x16xf32>
  %2 = mindir.matmul %1, %w2 {mindir.in_strategy = [array<i64: 1, 2>, array<i64: 2, 1>]} : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

func.func @rowsum(%x: tensor<6x8xf32> {mindir.strategy = array<i64: 2, 1>}) -> (tensor<6xf32> {mindir.strategy = array<i64: 1>})
    attributes {mindir.device_num = 2 : i64} {
  %0 = mindir.exp %x : tensor<6x8xf32>
  %1 = mindir.reduce_sum %0 {axes = array<i64: 1>} : (tensor<6x8xf32>) -> tensor<6xf32>
  return %1 : tensor<6xf32>
}
