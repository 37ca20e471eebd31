// RUN: ms-opt %s --msmlir-materialize-collectives | FileCheck %s

// The helper declarations get mpi dialect bodies; the module gets the MPI ABI.

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// CHECK-LABEL: func.func private @msmlir_mpi_rank() -> i32
// CHECK-NEXT:    %[[C:.*]] = mpi.comm_world : !mpi.comm
// CHECK-NEXT:    %[[R:.*]] = mpi.comm_rank(%[[C]]) : i32
// CHECK-NEXT:    return %[[R]] : i32
// CHECK-LABEL: func.func private @msmlir_mpi_allreduce_prod_6xi64(%arg0: memref<6xi64>, %arg1: memref<6xi64>)
// CHECK-NOT:     msmlir.mpi
// CHECK-NEXT:    %[[C2:.*]] = mpi.comm_world : !mpi.comm
// CHECK-NEXT:    mpi.allreduce(%arg0, %arg1, MPI_PROD, %[[C2]]) : memref<6xi64>, memref<6xi64>
// CHECK-NEXT:    return
func.func private @msmlir_mpi_rank() -> i32 attributes {msmlir.mpi = "rank"}
func.func private @msmlir_mpi_allreduce_prod_6xi64(memref<6xi64>, memref<6xi64>) attributes {msmlir.mpi = "allreduce_prod"}
func.func private @other(memref<6xi64>)
