// RUN: ms-opt %s --msmlir-materialize-collectives | FileCheck %s
// RUN: ms-opt %s --msmlir-materialize-collectives --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// A helper of a group runs on the group's communicator, loaded (as the i64
// the pinned MPI lowering represents !mpi.comm with) from the cell the
// runtime binds @msmlir_mpi_group_<name> to; one global per group.

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// CHECK-COUNT-1: llvm.mlir.global external @msmlir_mpi_group_g0() {addr_space = 0 : i32} : i64
// CHECK-NOT:     llvm.mlir.global
// CHECK-LABEL: func.func private @msmlir_mpi_rank_g0() -> i32 {
// CHECK-NEXT:    %[[A:.*]] = llvm.mlir.addressof @msmlir_mpi_group_g0 : !llvm.ptr
// CHECK-NEXT:    %[[H:.*]] = llvm.load %[[A]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[C:.*]] = builtin.unrealized_conversion_cast %[[H]] : i64 to !mpi.comm
// CHECK-NEXT:    %[[R:.*]] = mpi.comm_rank(%[[C]]) : i32
// CHECK-NEXT:    return %[[R]] : i32
// CHECK-LABEL: func.func private @msmlir_mpi_allreduce_sum_6xf32_g0(%arg0: memref<6xf32>, %arg1: memref<6xf32>) {
// CHECK-NOT:     msmlir.mpi
// CHECK:         %[[H2:.*]] = llvm.load
// CHECK-NEXT:    %[[C2:.*]] = builtin.unrealized_conversion_cast %[[H2]] : i64 to !mpi.comm
// CHECK-NEXT:    mpi.allreduce(%arg0, %arg1, MPI_SUM, %[[C2]]) : memref<6xf32>, memref<6xf32>
// CHECK-LABEL: func.func private @msmlir_mpi_allreduce_sum_6xf32(%arg0
// CHECK-NEXT:    mpi.comm_world

// LLVM-LABEL: llvm.func @msmlir_mpi_rank_g0() -> i32
// LLVM:         %[[A:.*]] = llvm.mlir.addressof @msmlir_mpi_group_g0 : !llvm.ptr
// LLVM-NEXT:    %[[H:.*]] = llvm.load %[[A]] : !llvm.ptr -> i64
// LLVM-NEXT:    %[[C:.*]] = llvm.inttoptr %[[H]] : i64 to !llvm.ptr
// LLVM:         llvm.call @MPI_Comm_rank(%[[C]], %{{.*}})
// LLVM-NOT:     unrealized_conversion_cast
func.func private @msmlir_mpi_rank_g0() -> i32 attributes {msmlir.mpi = "rank", msmlir.mpi_group = "g0"}
func.func private @msmlir_mpi_allreduce_sum_6xf32_g0(memref<6xf32>, memref<6xf32>) attributes {msmlir.mpi = "allreduce_sum", msmlir.mpi_group = "g0"}
func.func private @msmlir_mpi_allreduce_sum_6xf32(memref<6xf32>, memref<6xf32>) attributes {msmlir.mpi = "allreduce_sum"}
