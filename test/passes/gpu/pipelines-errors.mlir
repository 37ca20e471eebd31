// A chip/features combination the NVPTX back end rejects is a clear error before
// anything runs (LLVM would abort the process), as are bad option values.
// RUN: not ms-opt %s --msmlir-gpu-pipeline='chip=sm_90 features=+ptx60' 2>&1 | FileCheck %s --check-prefix=PTX60
// RUN: not ms-opt %s --msmlir-gpu-pipeline='chip=sm_91' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not ms-opt %s --msmlir-gpu-pipeline='features=+ptx99' 2>&1 | FileCheck %s --check-prefix=FEAT
// RUN: not ms-opt %s --msmlir-gpu-pipeline='chip=gfx90a' 2>&1 | FileCheck %s --check-prefix=BADCHIP
// RUN: not ms-opt %s --msmlir-gpu-pipeline='format=cuda' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not ms-opt %s --msmlir-gpu-pipeline='threads=4096' 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not ms-opt %s --msmlir-gpu-pipeline='opt-level=4' 2>&1 | FileCheck %s --check-prefix=OPT

// PTX60: ms-opt: for the --msmlir-gpu-pipeline option: chip=sm_90 features=+ptx60 cannot be compiled by the NVPTX back end: PTX version 6.0 does not support target 'sm_90'. Minimum required PTX version is 7.8.
// CHIP: chip=sm_91 features=+ptx80 cannot be compiled by the NVPTX back end: 'sm_91' is not a recognized processor for this target
// FEAT: chip=sm_90 features=+ptx99 cannot be compiled by the NVPTX back end: '+ptx99' is not a recognized feature for this target
// BADCHIP: invalid chip 'gfx90a': expected sm_<NN>[a|f], e.g. sm_90
// FORMAT: format=cuda is not one of isa, bin, fatbin
// THREADS: threads=4096 is not in 1..1024
// OPT: opt-level=4 is not in 0..3
// PTX60-NOT: LLVM ERROR

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
