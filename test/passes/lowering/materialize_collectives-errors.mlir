// RUN: ms-opt %s --msmlir-materialize-collectives --split-input-file --verify-diagnostics

// expected-error @below {{msmlir.mpi = 'allgather_sum': not an MPI helper kind (rank, allreduce_<op>, allgather, reduce_scatter_<op>, bcast_<root>; op: sum, max, min, prod)}}
func.func private @bad_kind(memref<3xf32>, memref<6xf32>) attributes {msmlir.mpi = "allgather_sum"}

// -----

// expected-error @below {{MPI helper allgather: element type f16 has no MPI datatype here (only f32, f64, i32, i64)}}
func.func private @bad_type(memref<3xf16>, memref<6xf16>) attributes {msmlir.mpi = "allgather"}

// -----

// expected-error @below {{MPI helper allgather: expected the signature (memref<NxT>, memref<MxT>) -> (), got (memref<3xf32>) -> ()}}
func.func private @one_buffer(memref<3xf32>) attributes {msmlir.mpi = "allgather"}

// -----

// expected-error @below {{MPI helper rank: expected the signature () -> i32, got () -> i64}}
func.func private @rank_i64() -> i64 attributes {msmlir.mpi = "rank"}

// -----

// expected-error @below {{MPI helper allreduce_sum: expected the signature (memref<NxT>, memref<MxT>) -> (), got (memref<3xf32>, memref<3xf64>) -> ()}}
func.func private @mixed(memref<3xf32>, memref<3xf64>) attributes {msmlir.mpi = "allreduce_sum"}
