// RUN: ms-opt %s --msmlir-mpi-world-comm | filecheck %s

// A 2x2 grid: convert-shard-to-mpi's output for a shard.all_reduce over
// grid_axes = [1] (the rows) and then over [0] (the columns). Each split's
// color and key, evaluated for ranks 0..3, make the sub-grids of one axis:
// the split becomes a load of that sub-grid's communicator from the cell the
// linker binds (made host side by msmlir.parallel, runtime/mpi.py).
// CHECK-DAG:     llvm.mlir.global external @msmlir_mpi_group_msmlir_5fmesh_5f2x2_5faxes_5f1() {addr_space = 0 : i32} : i64
// CHECK-DAG:     llvm.mlir.global external @msmlir_mpi_group_msmlir_5fmesh_5f2x2_5faxes_5f0() {addr_space = 0 : i32} : i64
// CHECK-LABEL: func.func @f
// CHECK-NOT:     mpi.comm_split
// CHECK:         %[[A1:.*]] = llvm.mlir.addressof @msmlir_mpi_group_msmlir_5fmesh_5f2x2_5faxes_5f1 : !llvm.ptr
// CHECK:         %[[H1:.*]] = llvm.load %[[A1]] : !llvm.ptr -> i64
// CHECK:         %[[C1:.*]] = builtin.unrealized_conversion_cast %[[H1]] : i64 to !mpi.comm
// CHECK:         mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %[[C1]])
// CHECK-NOT:     mpi.comm_split
// CHECK:         %[[A0:.*]] = llvm.mlir.addressof @msmlir_mpi_group_msmlir_5fmesh_5f2x2_5faxes_5f0 : !llvm.ptr
// CHECK:         %[[H0:.*]] = llvm.load %[[A0]] : !llvm.ptr -> i64
// CHECK:         %[[C0:.*]] = builtin.unrealized_conversion_cast %[[H0]] : i64 to !mpi.comm
// CHECK:         mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %[[C0]])
// CHECK-NOT:     mpi.comm_split
#map = affine_map<()[s0, s1] -> (s0 * s1)>
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {
  shard.grid @g(shape = 2x2)
  func.func @f(%alloc: memref<4xf32>) {
    %c2 = arith.constant 2 : index
    %1 = mpi.comm_world : !mpi.comm
    %retval, %rank = mpi.comm_rank(%1) : !mpi.retval, i32
    %2 = arith.index_cast %rank : i32 to index
    %3 = arith.remsi %2, %c2 : index
    %4 = arith.divsi %2, %c2 : index
    %5 = arith.remsi %4, %c2 : index
    %6 = affine.apply #map()[%5, %c2]
    %7 = arith.index_cast %6 : index to i32
    %8 = arith.index_cast %3 : index to i32
    %9 = mpi.comm_world : !mpi.comm
    %newcomm = mpi.comm_split(%9, %7, %8) : !mpi.comm
    mpi.allreduce(%alloc, %alloc, MPI_SUM, %newcomm) : memref<4xf32>, memref<4xf32>
    %10 = mpi.comm_world : !mpi.comm
    %retval_1, %rank_2 = mpi.comm_rank(%10) : !mpi.retval, i32
    %11 = arith.index_cast %rank_2 : i32 to index
    %12 = arith.remsi %11, %c2 : index
    %13 = arith.divsi %11, %c2 : index
    %14 = arith.remsi %13, %c2 : index
    %15 = arith.index_cast %12 : index to i32
    %16 = affine.apply #map()[%14, %c2]
    %17 = arith.index_cast %16 : index to i32
    %18 = mpi.comm_world : !mpi.comm
    %newcomm_3 = mpi.comm_split(%18, %15, %17) : !mpi.comm
    mpi.allreduce(%alloc, %alloc, MPI_SUM, %newcomm_3) : memref<4xf32>, memref<4xf32>
    return
  }
}
