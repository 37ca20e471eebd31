// RUN: ms-opt %s --msmlir-shard-collectives-to-mindir | filecheck %s

// On a 2x2 grid, a gather over grid axis 1 (a row of the mesh) runs on the
// row's communicator (a group made host side, world_comm.py's
// mesh_group_name); a slice over axis 0 takes the rank's column coordinate.
shard.grid @g(shape = 2x2)
// CHECK-LABEL: func.func @row_gather
// CHECK:         mindir.all_gather %arg0 {group = "msmlir_mesh_2x2_axes_1", group_size = 2 : i64} : tensor<3xf32> -> tensor<6xf32>
func.func @row_gather(%x: tensor<3xf32>) -> tensor<6xf32> {
  %0 = shard.all_gather %x on @g grid_axes = [1] gather_axis = 0 : tensor<3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
// CHECK-LABEL: func.func @whole_gather
// CHECK:         mindir.all_gather %arg0 {group_size = 4 : i64} : tensor<3xf32> -> tensor<12xf32>
func.func @whole_gather(%x: tensor<3xf32>) -> tensor<12xf32> {
  %0 = shard.all_gather %x on @g grid_axes = [0, 1] gather_axis = 0 : tensor<3xf32> -> tensor<12xf32>
  return %0 : tensor<12xf32>
}
// CHECK-LABEL: func.func @column_slice
// CHECK:         %[[I:.*]] = shard.process_multi_index on @g axes = [0] : index
// CHECK:         %[[O:.*]] = arith.muli %[[I]], %c4 : index
// CHECK:         tensor.extract_slice %arg0[%[[O]]] [4] [1] : tensor<8xf32> to tensor<4xf32>
func.func @column_slice(%x: tensor<8xf32>) -> tensor<4xf32> {
  %0 = shard.all_slice %x on @g grid_axes = [0] slice_axis = 0 : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
