// RUN: ms-opt %s --msmlir-mpi-world-comm --verify-diagnostics

// On a 2x2 grid, a split into {0, 3} and {1, 2} (a diagonal) is no sub-grid
// along grid axes: no host-made communicator stands for it.
module {
  shard.grid @g(shape = 2x2)
  func.func @diagonal(%b: memref<4xf32>) {
    %c2 = arith.constant 2 : index
    %w = mpi.comm_world : !mpi.comm
    %retval, %rank = mpi.comm_rank(%w) : !mpi.retval, i32
    %r = arith.index_cast %rank : i32 to index
    %q = arith.divsi %r, %c2 : index
    %s = arith.addi %r, %q : index
    %m = arith.remsi %s, %c2 : index
    %color = arith.index_cast %m : index to i32
    // expected-error @+1 {{mpi.comm_split of a sub-grid that is none of the module's one shard.grid}}
    %c = mpi.comm_split(%w, %color, %rank) : !mpi.comm
    mpi.allreduce(%b, %b, MPI_SUM, %c) : memref<4xf32>, memref<4xf32>
    return
  }
}
