// RUN: ms-opt %s --msmlir-shard-collectives-to-mindir --split-input-file --verify-diagnostics

module {
  shard.grid @g2(shape = 2x2)
  func.func @axes_out_of_order(%x: tensor<3xf32>) -> tensor<12xf32> {
    // expected-error @+1 {{'shard.all_gather': only collectives over grid axes in increasing order are supported}}
    %0 = shard.all_gather %x on @g2 grid_axes = [1, 0] gather_axis = 0 : tensor<3xf32> -> tensor<12xf32>
    return %0 : tensor<12xf32>
  }
}

// -----

module {
  shard.grid @g(shape = 2)
  func.func @reduce_scatter(%x: tensor<4xf32>) -> tensor<2xf32> {
    // expected-error @+1 {{'shard.reduce_scatter': no MPI lowering (MLIR 22's convert-shard-to-mpi has none, nor has msmlir)}}
    %0 = shard.reduce_scatter %x on @g grid_axes = [0] scatter_axis = 0 : tensor<4xf32> -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
