// RUN: ms-opt %s --msmlir-shard-collectives-to-mindir --split-input-file | filecheck %s

// convert-shard-to-mpi has no all_gather pattern: msmlir's collective gathers
// along dim 0, other axes are transposed there and back.
module {
  shard.grid @g(shape = 2)
  // CHECK-LABEL: func.func @dim0
  // CHECK:         %[[G:.*]] = mindir.all_gather %arg0 {group_size = 2 : i64} : tensor<3xf32> -> tensor<6xf32>
  // CHECK:         return %[[G]]
  func.func @dim0(%x: tensor<3xf32>) -> tensor<6xf32> {
    %0 = shard.all_gather %x on @g grid_axes = [0] gather_axis = 0 : tensor<3xf32> -> tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  // CHECK-LABEL: func.func @dim1
  // CHECK:         %[[T:.*]] = mindir.transpose %arg0 {perm = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  // CHECK:         %[[G:.*]] = mindir.all_gather %[[T]] {group_size = 2 : i64} : tensor<3x4xf32> -> tensor<6x4xf32>
  // CHECK:         %[[B:.*]] = mindir.transpose %[[G]] {perm = array<i64: 1, 0>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  // CHECK:         return %[[B]]
  func.func @dim1(%x: tensor<4x3xf32>) -> tensor<4x6xf32> {
    %0 = shard.all_gather %x on @g grid_axes = [0] gather_axis = 1 : tensor<4x3xf32> -> tensor<4x6xf32>
    return %0 : tensor<4x6xf32>
  }
}

// -----

// all_slice: this rank's block, no communication.
// CHECK-LABEL: func.func @slice
// CHECK:         %[[R:.*]] = shard.process_multi_index on @g axes = [0] : index
// CHECK:         %[[O:.*]] = arith.muli %[[R]], %{{.*}} : index
// CHECK:         tensor.extract_slice %arg0[0, %[[O]]] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
module {
  shard.grid @g(shape = 2)
  func.func @slice(%x: tensor<4x6xf32>) -> tensor<4x3xf32> {
    %0 = shard.all_slice %x on @g grid_axes = [0] slice_axis = 1 : tensor<4x6xf32> -> tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
}

// -----

// all_to_all (split dim 0 -> split dim 1): one MPI_Alltoall of the 2 row
// blocks (block j to rank j), the received blocks (rank i's at i) joined
// along dim 1.
// CHECK: func.func private @msmlir_mpi_alltoall_2_12xf32(memref<12xf32>, memref<12xf32>) attributes {msmlir.mpi = "alltoall_2"}
// CHECK-LABEL: func.func @to_all
// CHECK-NOT:     all_gather
// CHECK:         %[[B:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [2, 2, 3] : tensor<4x3xf32> into tensor<2x2x3xf32>
// CHECK:         %[[F:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0, 1, 2]] : tensor<2x2x3xf32> into tensor<12xf32>
// CHECK:         %[[S:.*]] = bufferization.to_buffer %[[F]] read_only : tensor<12xf32> to memref<12xf32>
// CHECK:         %[[R:.*]] = memref.alloc() : memref<12xf32>
// CHECK:         call @msmlir_mpi_alltoall_2_12xf32(%[[S]], %[[R]])
// CHECK:         %[[G:.*]] = bufferization.to_tensor %[[R]] restrict writable
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1, 2]] output_shape [2, 2, 3]
// CHECK:         %[[T:.*]] = mindir.transpose %[[E]] {perm = array<i64: 1, 0, 2>} : (tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
// CHECK:         tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2]] : tensor<2x2x3xf32> into tensor<2x6xf32>
module {
  shard.grid @g(shape = 2)
  func.func @to_all(%x: tensor<4x3xf32>) -> tensor<2x6xf32> {
    %0 = shard.all_to_all %x on @g grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<4x3xf32> -> tensor<2x6xf32>
    return %0 : tensor<2x6xf32>
  }
}
