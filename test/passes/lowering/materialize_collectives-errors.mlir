// RUN: ms-opt %s --msmlir-materialize-collectives --split-input-file --verify-diagnostics

// expected-error @below {{msmlir.mpi = 'allgather_sum': not an MPI helper kind (rank, allreduce_<op>, allgather, reduce_scatter_<op>, bcast_<root>, alltoall_<ranks>, alltoallv; op: sum, max, min, prod)}}
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

// -----

// expected-error @below {{msmlir.mpi = 'alltoall_0': not an MPI helper kind}}
func.func private @no_ranks(memref<4xf32>, memref<4xf32>) attributes {msmlir.mpi = "alltoall_0"}

// -----

// expected-error @below {{MPI helper alltoall_2: the send and receive buffers must both hold 2 equal blocks, got 5 and 5 elements}}
func.func private @odd_blocks(memref<5xf32>, memref<5xf32>) attributes {msmlir.mpi = "alltoall_2"}

// -----

// expected-error @below {{MPI helper alltoall_2: the send and receive buffers must both hold 2 equal blocks, got 4 and 6 elements}}
func.func private @sizes_differ(memref<4xf32>, memref<6xf32>) attributes {msmlir.mpi = "alltoall_2"}

// -----

// expected-error @below {{MPI helper alltoallv: needs msmlir.mpi_counts = array<i32: send counts, send displacements, receive counts, receive displacements> (4 x ranks values), got None}}
func.func private @no_counts(memref<4xf32>, memref<4xf32>) attributes {msmlir.mpi = "alltoallv"}

// -----

// expected-error @below {{MPI helper alltoallv: needs msmlir.mpi_counts}}
func.func private @counts_not_4k(memref<4xf32>, memref<4xf32>) attributes {msmlir.mpi = "alltoallv", msmlir.mpi_counts = array<i32: 1, 2, 3>}

// -----

// expected-error @below {{MPI helper alltoallv: send block 1 (3 elements at 2) is not inside the 4-element send buffer}}
func.func private @past_send(memref<4xf32>, memref<4xf32>) attributes {msmlir.mpi = "alltoallv", msmlir.mpi_counts = array<i32: 2, 3, 0, 2, 2, 2, 0, 2>}

// -----

// expected-error @below {{MPI helper alltoallv: receive block 0 (-1 elements at 0) is not inside the 4-element receive buffer}}
func.func private @negative_count(memref<4xf32>, memref<4xf32>) attributes {msmlir.mpi = "alltoallv", msmlir.mpi_counts = array<i32: 2, 2, 0, 2, -1, 2, 0, 2>}

// -----

// expected-error @below {{MPI helper alltoallv: expected the signature (memref<NxT>, memref<MxT>) -> (), got (memref<2x2xf32>, memref<4xf32>) -> ()}}
func.func private @two_d(memref<2x2xf32>, memref<4xf32>) attributes {msmlir.mpi = "alltoallv", msmlir.mpi_counts = array<i32: 2, 2, 0, 2, 2, 2, 0, 2>}
