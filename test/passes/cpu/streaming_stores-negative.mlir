// RUN: ms-opt %s --msmlir-cpu-streaming-stores --split-input-file | FileCheck %s --check-prefix=DEFAULT
// RUN: ms-opt %s --msmlir-cpu-streaming-stores="min-output-bytes=4096 min-footprint-bytes=8192" --split-input-file | FileCheck %s

// The default thresholds (output >= 4 MiB, all memref arguments >= 96 MiB):
// B3's layernorm size (16 MiB in, 16 MiB out) stays in this VM's L3 between
// calls, where ordinary stores are as fast: not marked. With the small
// thresholds of the second RUN line it is.
// DEFAULT-LABEL: func.func @b3_size
// DEFAULT-NOT:     nontemporal
// DEFAULT-NOT:     scf.if
// DEFAULT:         return
// CHECK-LABEL:   func.func @b3_size
// CHECK:           nontemporal = true
func.func @b3_size(%in: memref<4096x1024xf32>, %out: memref<4096x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  scf.for %r = %c0 to %c4096 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.load %in[%r, %j] : memref<4096x1024xf32>, vector<16xf32>
      vector.store %v, %out[%r, %j] : memref<4096x1024xf32>, vector<16xf32>
    }
  }
  return
}

// -----

// 32 MiB out, 64 MiB of arguments (measured: streaming 0.92x): not marked.
// DEFAULT-LABEL: func.func @at_64_mib
// DEFAULT-NOT:     nontemporal
// DEFAULT:         return
func.func @at_64_mib(%in: memref<8192x1024xf32>, %out: memref<8192x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %c8192 = arith.constant 8192 : index
  scf.for %r = %c0 to %c8192 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.load %in[%r, %j] : memref<8192x1024xf32>, vector<16xf32>
      vector.store %v, %out[%r, %j] : memref<8192x1024xf32>, vector<16xf32>
    }
  }
  return
}

// -----

// Four times as many rows (64 MiB out, 128 MiB in all): marked by default.
// DEFAULT-LABEL: func.func @big
// DEFAULT:         scf.if
// DEFAULT:           vector.store {{.*}} {alignment = 64 : i64, nontemporal = true}
// DEFAULT:           llvm.call_intrinsic "llvm.x86.sse.sfence"
func.func @big(%in: memref<16384x1024xf32>, %out: memref<16384x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %c16384 = arith.constant 16384 : index
  scf.for %r = %c0 to %c16384 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.load %in[%r, %j] : memref<16384x1024xf32>, vector<16xf32>
      vector.store %v, %out[%r, %j] : memref<16384x1024xf32>, vector<16xf32>
    }
  }
  return
}

// -----

// An output the kernel reads back (a softmax that normalizes in place): the
// second read would miss the caches; not marked.
// CHECK-LABEL: func.func @reread
// CHECK-NOT:     nontemporal
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @reread(%in: memref<4096xf32>, %out: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  scf.for %j = %c0 to %c4096 step %c16 {
    %v = vector.load %in[%j] : memref<4096xf32>, vector<16xf32>
    vector.store %v, %out[%j] : memref<4096xf32>, vector<16xf32>
  }
  scf.for %j = %c0 to %c4096 step %c16 {
    %v = vector.load %out[%j] : memref<4096xf32>, vector<16xf32>
    %w = arith.addf %v, %v : vector<16xf32>
    vector.store %w, %out[%j] : memref<4096xf32>, vector<16xf32>
  }
  return
}

// -----

// Small output (4 KiB > 2 KiB here, under min-output-bytes), offsets not
// known to be multiples of the vector (lower bound 4; a block argument), a
// 12-byte vector, an output with padded rows, an output passed on to a call, an
// index output (no byte size): not marked. (The big input makes the footprint.)
// CHECK-LABEL: func.func @ineligible
// CHECK-NOT:     nontemporal
// CHECK-NOT:     scf.if
// CHECK:         return
func.func private @sink(memref<4096xf32>)
func.func @ineligible(%in: memref<8192xf32>, %small: memref<512xf32>, %odd: memref<4096xf32>,
                      %any: memref<4096xf32>, %v3: memref<4096xf32>,
                      %strided: memref<16x128xf32, strided<[256, 1]>>, %called: memref<4096xf32>, %k: index,
                      %idx: memref<4096xindex>, %vi: vector<16xindex>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  %c2048 = arith.constant 2048 : index
  %v = vector.load %in[%c0] : memref<8192xf32>, vector<16xf32>
  %w = vector.extract_strided_slice %v {offsets = [0], sizes = [2], strides = [1]} : vector<16xf32> to vector<2xf32>
  scf.for %j = %c0 to %c512 step %c16 {
    vector.store %v, %small[%j] : memref<512xf32>, vector<16xf32>
  }
  scf.for %j = %c4 to %c2048 step %c16 {
    vector.store %v, %odd[%j] : memref<4096xf32>, vector<16xf32>
    vector.store %v, %any[%k] : memref<4096xf32>, vector<16xf32>
  }
  scf.for %j = %c0 to %c2048 step %c16 {
    vector.store %v, %strided[%c4, %c16] : memref<16x128xf32, strided<[256, 1]>>, vector<16xf32>
    vector.store %v, %called[%j] : memref<4096xf32>, vector<16xf32>
    vector.store %w, %v3[%j] : memref<4096xf32>, vector<2xf32>
    vector.store %vi, %idx[%j] : memref<4096xindex>, vector<16xindex>
  }
  func.call @sink(%called) : (memref<4096xf32>) -> ()
  return
}

// -----

// A compute-bound loop (here 40 ops for its one store, over
// max-ops-per-store = 32): its stores' traffic hides behind the math; not
// marked.
// CHECK-LABEL: func.func @compute_bound
// CHECK-NOT:     nontemporal
// CHECK:         return
func.func @compute_bound(%in: memref<4096xf32>, %out: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  scf.for %j = %c0 to %c4096 step %c16 {
    %v0 = vector.load %in[%j] : memref<4096xf32>, vector<16xf32>
    %v1 = arith.mulf %v0, %v0 : vector<16xf32>
    %v2 = arith.mulf %v1, %v1 : vector<16xf32>
    %v3 = arith.mulf %v2, %v2 : vector<16xf32>
    %v4 = arith.mulf %v3, %v3 : vector<16xf32>
    %v5 = arith.mulf %v4, %v4 : vector<16xf32>
    %v6 = arith.mulf %v5, %v5 : vector<16xf32>
    %v7 = arith.mulf %v6, %v6 : vector<16xf32>
    %v8 = arith.mulf %v7, %v7 : vector<16xf32>
    %v9 = arith.mulf %v8, %v8 : vector<16xf32>
    %v10 = arith.mulf %v9, %v9 : vector<16xf32>
    %v11 = arith.mulf %v10, %v10 : vector<16xf32>
    %v12 = arith.mulf %v11, %v11 : vector<16xf32>
    %v13 = arith.mulf %v12, %v12 : vector<16xf32>
    %v14 = arith.mulf %v13, %v13 : vector<16xf32>
    %v15 = arith.mulf %v14, %v14 : vector<16xf32>
    %v16 = arith.mulf %v15, %v15 : vector<16xf32>
    %v17 = arith.mulf %v16, %v16 : vector<16xf32>
    %v18 = arith.mulf %v17, %v17 : vector<16xf32>
    %v19 = arith.mulf %v18, %v18 : vector<16xf32>
    %v20 = arith.mulf %v19, %v19 : vector<16xf32>
    %v21 = arith.mulf %v20, %v20 : vector<16xf32>
    %v22 = arith.mulf %v21, %v21 : vector<16xf32>
    %v23 = arith.mulf %v22, %v22 : vector<16xf32>
    %v24 = arith.mulf %v23, %v23 : vector<16xf32>
    %v25 = arith.mulf %v24, %v24 : vector<16xf32>
    %v26 = arith.mulf %v25, %v25 : vector<16xf32>
    %v27 = arith.mulf %v26, %v26 : vector<16xf32>
    %v28 = arith.mulf %v27, %v27 : vector<16xf32>
    %v29 = arith.mulf %v28, %v28 : vector<16xf32>
    %v30 = arith.mulf %v29, %v29 : vector<16xf32>
    %v31 = arith.mulf %v30, %v30 : vector<16xf32>
    %v32 = arith.mulf %v31, %v31 : vector<16xf32>
    %v33 = arith.mulf %v32, %v32 : vector<16xf32>
    %v34 = arith.mulf %v33, %v33 : vector<16xf32>
    %v35 = arith.mulf %v34, %v34 : vector<16xf32>
    %v36 = arith.mulf %v35, %v35 : vector<16xf32>
    vector.store %v36, %out[%j] : memref<4096xf32>, vector<16xf32>
  }
  return
}
