// RUN: ms-opt %s --msmlir-materialize-collectives | FileCheck %s

// all_gather / reduce_scatter / broadcast helpers call MPI directly (the
// pinned `mpi` dialect has no op for them), with OpenMPI's handles declared
// as the `mpi` lowering declares them; a group's helper loads its
// communicator from the group's cell.

// CHECK-DAG: llvm.func @MPI_Alltoall(!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @MPI_Alltoallv(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.mlir.global private constant @msmlir_mpi_alltoallv_5xi64_3_g0_counts(dense<[2, 3, 0, 2, 1, 2, 0, 1]> : tensor<8xi32>) {addr_space = 0 : i32} : !llvm.array<8 x i32>
// CHECK-DAG: llvm.func @MPI_Allgather(!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @MPI_Bcast(!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @MPI_Reduce_scatter_block(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_comm_world() {addr_space = 0 : i32} : !llvm.struct<"ompi_communicator_t", opaque>
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_double() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_datatype_t", opaque>
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_op_min() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
// CHECK-DAG: llvm.mlir.global external @msmlir_mpi_group_g0() {addr_space = 0 : i32} : i64

// CHECK-LABEL: func.func private @msmlir_mpi_allgather_3xf64(%arg0: memref<3xf64>, %arg1: memref<6xf64>) {
// CHECK-NOT:     msmlir.mpi
// CHECK:         %[[C:.*]] = llvm.mlir.addressof @ompi_mpi_comm_world : !llvm.ptr
// CHECK:         %[[T:.*]] = llvm.mlir.addressof @ompi_mpi_double : !llvm.ptr
// CHECK:         %[[N:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK:         memref.extract_aligned_pointer_as_index %arg0
// CHECK:         %[[S:.*]] = llvm.inttoptr
// CHECK:         memref.extract_aligned_pointer_as_index %arg1
// CHECK:         %[[R:.*]] = llvm.inttoptr
// CHECK:         llvm.call @MPI_Allgather(%[[S]], %[[N]], %[[T]], %[[R]], %[[N]], %[[T]], %[[C]])
// CHECK-NEXT:    return
func.func private @msmlir_mpi_allgather_3xf64(memref<3xf64>, memref<6xf64>) attributes {msmlir.mpi = "allgather"}

// CHECK-LABEL: func.func private @msmlir_mpi_reduce_scatter_min_6xf64(%arg0: memref<6xf64>, %arg1: memref<3xf64>) {
// CHECK:         %[[O:.*]] = llvm.mlir.addressof @ompi_mpi_op_min : !llvm.ptr
// CHECK:         %[[K:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK:         llvm.call @MPI_Reduce_scatter_block(%{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %[[O]], %{{.*}})
func.func private @msmlir_mpi_reduce_scatter_min_6xf64(memref<6xf64>, memref<3xf64>) attributes {msmlir.mpi = "reduce_scatter_min"}

// The root's data is copied into the result buffer, which MPI_Bcast fills on
// the other ranks.
// CHECK-LABEL: func.func private @msmlir_mpi_bcast_root1_4xf64_g0(%arg0: memref<4xf64>, %arg1: memref<4xf64>) {
// CHECK:         %[[A:.*]] = llvm.mlir.addressof @msmlir_mpi_group_g0 : !llvm.ptr
// CHECK-NEXT:    %[[H:.*]] = llvm.load %[[A]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[G:.*]] = llvm.inttoptr %[[H]] : i64 to !llvm.ptr
// CHECK:         memref.copy %arg0, %arg1
// CHECK:         %[[ROOT:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         llvm.call @MPI_Bcast(%{{.*}}, %{{.*}}, %{{.*}}, %[[ROOT]], %[[G]])
func.func private @msmlir_mpi_bcast_root1_4xf64_g0(memref<4xf64>, memref<4xf64>) attributes {msmlir.mpi = "bcast_1", msmlir.mpi_group = "g0"}

// all_to_all (ops.comm.all_to_all, python/msmlir/ops/comm.py): MPI_Alltoall
// of 2 equal blocks, 4 elements to each rank.
// CHECK-LABEL: func.func private @msmlir_mpi_alltoall_2_8xf32(%arg0: memref<8xf32>, %arg1: memref<8xf32>) {
// CHECK:         %[[C:.*]] = llvm.mlir.addressof @ompi_mpi_comm_world : !llvm.ptr
// CHECK:         %[[T:.*]] = llvm.mlir.addressof @ompi_mpi_float : !llvm.ptr
// CHECK:         %[[N:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         %[[S:.*]] = llvm.inttoptr
// CHECK:         %[[R:.*]] = llvm.inttoptr
// CHECK:         llvm.call @MPI_Alltoall(%[[S]], %[[N]], %[[T]], %[[R]], %[[N]], %[[T]], %[[C]])
// CHECK-NEXT:    return
func.func private @msmlir_mpi_alltoall_2_8xf32(memref<8xf32>, memref<8xf32>) attributes {msmlir.mpi = "alltoall_2"}

// all_to_all_v (AlltoAllV) on a group: MPI_Alltoallv with the counts and
// displacements (send counts, send displs, receive counts, receive displs)
// from a constant table.
// CHECK-LABEL: func.func private @msmlir_mpi_alltoallv_5xi64_3_g0(%arg0: memref<5xi64>, %arg1: memref<3xi64>) {
// CHECK-NOT:     msmlir.mpi_counts
// CHECK:         %[[G:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK:         %[[T:.*]] = llvm.mlir.addressof @ompi_mpi_int64_t : !llvm.ptr
// CHECK:         %[[TAB:.*]] = llvm.mlir.addressof @msmlir_mpi_alltoallv_5xi64_3_g0_counts : !llvm.ptr
// CHECK:         %[[S:.*]] = llvm.inttoptr
// CHECK:         %[[SC:.*]] = llvm.getelementptr %[[TAB]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK:         %[[SD:.*]] = llvm.getelementptr %[[TAB]][2] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK:         %[[R:.*]] = llvm.inttoptr
// CHECK:         %[[RC:.*]] = llvm.getelementptr %[[TAB]][4] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK:         %[[RD:.*]] = llvm.getelementptr %[[TAB]][6] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK:         llvm.call @MPI_Alltoallv(%[[S]], %[[SC]], %[[SD]], %[[T]], %[[R]], %[[RC]], %[[RD]], %[[T]], %[[G]])
func.func private @msmlir_mpi_alltoallv_5xi64_3_g0(memref<5xi64>, memref<3xi64>) attributes {msmlir.mpi = "alltoallv", msmlir.mpi_counts = array<i32: 2, 3, 0, 2, 1, 2, 0, 1>, msmlir.mpi_group = "g0"}
