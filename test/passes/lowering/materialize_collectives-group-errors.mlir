// RUN: ms-opt %s --msmlir-materialize-collectives --verify-diagnostics

// expected-error @below {{msmlir.mpi_group must be a non-empty string (a group name), got 7 : i64}}
func.func private @msmlir_mpi_rank_bad() -> i32 attributes {msmlir.mpi = "rank", msmlir.mpi_group = 7}
