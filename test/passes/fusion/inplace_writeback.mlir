// RUN: ms-opt %s --msmlir-inplace-writeback | FileCheck %s

// Bufferized host functions (results are the out-parameters after
// msmlir.num_inputs arguments). A write-back pair is listed in msmlir.inplace
// only when the kernel writing the out-parameter reads each element of the
// argument before writing the same element and nothing reads the argument
// afterwards.

#id = affine_map<(d0) -> (d0)>
#plus16 = affine_map<()[s0, s1] -> (s0 + s1 * 16)>

// SGD-like update: reads of %w and writes of %out at the same index, read
// first; the argument is read by an earlier kernel call. Both pairs pass.
// CHECK-LABEL: func.func @accepted
// CHECK-SAME:    attributes {msmlir.inplace = {{\[}}[0, 1], [1, 2]], msmlir.num_inputs
func.func @accepted(%x: memref<64xf32>, %w: memref<64xf32>, %b: memref<64xf32>,
                    %nw: memref<64xf32>, %nb: memref<64xf32>)
    attributes {msmlir.num_inputs = 3 : i64, msmlir.writeback = [[0, 1], [1, 2]]} {
  %t = memref.alloc() : memref<64xf32>
  call @use(%w, %x, %t) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  call @update(%t, %w, %nw) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  call @update(%t, %b, %nb) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  memref.dealloc %t : memref<64xf32>
  return
}

func.func private @use(%a: memref<64xf32>, %b: memref<64xf32>, %o: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<64xf32>, memref<64xf32>) outs(%o : memref<64xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32):
    %s = arith.mulf %p, %q : f32
    linalg.yield %s : f32
  }
  return
}

// reads first, then writes (the matmul epilogue's order)
func.func private @update(%g: memref<64xf32>, %w: memref<64xf32>, %o: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %lr = arith.constant dense<0.01> : vector<16xf32>
  scf.for %i = %c0 to %c64 step %c32 {
    %i16 = arith.addi %i, %c16 : index
    %w0 = vector.transfer_read %w[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %w1 = vector.transfer_read %w[%i16], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %g0 = vector.transfer_read %g[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %g1 = vector.transfer_read %g[%i16], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %d0 = arith.mulf %g0, %lr : vector<16xf32>
    %d1 = arith.mulf %g1, %lr : vector<16xf32>
    %n0 = arith.subf %w0, %d0 : vector<16xf32>
    %n1 = arith.subf %w1, %d1 : vector<16xf32>
    // the same element computed another way (the tile base plus the row offset)
    %j = affine.apply #plus16()[%i, %c1]
    vector.transfer_write %n0, %o[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
    vector.transfer_write %n1, %o[%j] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  }
  return
}

// Rejected: the kernel accumulates into its output (fill, then a reduction
// and an update that read it), as the small bias-gradient kernels do.
// CHECK-LABEL: func.func @accumulator
// CHECK-SAME:    attributes {msmlir.num_inputs
func.func @accumulator(%g: memref<8x16xf32>, %b: memref<16xf32>, %nb: memref<16xf32>)
    attributes {msmlir.num_inputs = 2 : i64, msmlir.writeback = [[0, 1]]} {
  call @bias_grad(%g, %b, %nb) : (memref<8x16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  return
}

func.func private @bias_grad(%g: memref<8x16xf32>, %b: memref<16xf32>, %o: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%g : memref<8x16xf32>) outs(%o : memref<16xf32>) {
  ^bb0(%p: f32, %acc: f32):
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%b, %o : memref<16xf32>, memref<16xf32>) outs(%o : memref<16xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32):
    %s = arith.subf %p, %q : f32
    linalg.yield %s : f32
  }
  return
}

// Rejected: a later kernel still reads the old parameter.
// CHECK-LABEL: func.func @read_after
// CHECK-SAME:    attributes {msmlir.num_inputs
func.func @read_after(%x: memref<64xf32>, %w: memref<64xf32>, %nw: memref<64xf32>, %y: memref<64xf32>)
    attributes {msmlir.num_inputs = 2 : i64, msmlir.writeback = [[0, 1]]} {
  call @update(%x, %w, %nw) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  call @use(%w, %x, %y) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  return
}

// Rejected: each element is written before it is read.
// CHECK-LABEL: func.func @write_first
// CHECK-SAME:    attributes {msmlir.num_inputs
func.func @write_first(%x: memref<64xf32>, %w: memref<64xf32>, %nw: memref<64xf32>)
    attributes {msmlir.num_inputs = 2 : i64, msmlir.writeback = [[0, 1]]} {
  call @write_then_read(%x, %w, %nw) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  return
}

func.func private @write_then_read(%g: memref<64xf32>, %w: memref<64xf32>, %o: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %scratch = memref.alloca() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c16 {
    %g0 = vector.transfer_read %g[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    vector.transfer_write %g0, %o[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
    %w0 = vector.transfer_read %w[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    vector.transfer_write %w0, %scratch[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  }
  return
}

// Rejected: a stencil reads the neighbour element, which the previous
// iteration has already overwritten.
// CHECK-LABEL: func.func @stencil
// CHECK-SAME:    attributes {msmlir.num_inputs
func.func @stencil(%w: memref<64xf32>, %nw: memref<64xf32>)
    attributes {msmlir.num_inputs = 1 : i64, msmlir.writeback = [[0, 0]]} {
  call @shifted(%w, %nw) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}

func.func private @shifted(%w: memref<64xf32>, %o: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  scf.for %i = %c1 to %c63 step %c1 {
    %im1 = arith.subi %i, %c1 : index
    %a = memref.load %w[%im1] : memref<64xf32>
    %s = arith.addf %a, %a : f32
    memref.store %s, %o[%i] : memref<64xf32>
  }
  return
}

// Accepted: per-thread row blocks written through a subview whose offset is
// dynamic (the indices compared as linear forms); the plain path's
// elementwise linalg.generic with identity maps.
// CHECK-LABEL: func.func @views_and_generic
// CHECK-SAME:    attributes {msmlir.inplace = {{\[}}[0, 0], [1, 1]], msmlir.num_inputs
func.func @views_and_generic(%w: memref<4x64xf32>, %b: memref<64xf32>,
                             %nw: memref<4x64xf32>, %nb: memref<64xf32>)
    attributes {msmlir.num_inputs = 2 : i64, msmlir.writeback = [[0, 0], [1, 1]]} {
  call @rows(%w, %nw) : (memref<4x64xf32>, memref<4x64xf32>) -> ()
  call @scale(%b, %nb) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}

func.func private @rows(%w: memref<4x64xf32>, %o: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%t) in (2) {
    %r0 = arith.muli %t, %c2 : index
    %view = memref.subview %o[%r0, 0] [2, 64] [1, 1] : memref<4x64xf32> to memref<2x64xf32, strided<[64, 1], offset: ?>>
    scf.for %r = %c0 to %c2 step %c16 {
      scf.for %j = %c0 to %c64 step %c16 {
        %row = arith.addi %r0, %r : index
        %v = vector.transfer_read %w[%row, %j], %pad {in_bounds = [true]} : memref<4x64xf32>, vector<16xf32>
        %s = arith.addf %v, %v : vector<16xf32>
        vector.transfer_write %s, %view[%r, %j] {in_bounds = [true]} : vector<16xf32>, memref<2x64xf32, strided<[64, 1], offset: ?>>
      }
    }
  }
  return
}

func.func private @scale(%b: memref<64xf32>, %o: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%o : memref<64xf32>) {
  ^bb0(%p: f32, %r: f32):
    %s = arith.addf %p, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Rejected: the read and the write of an element are in different branches,
// and a reversed elementwise map reads another element than it writes.
// CHECK-LABEL: func.func @branches_and_reversed
// CHECK-SAME:    attributes {msmlir.num_inputs
func.func @branches_and_reversed(%w: memref<64xf32>, %b: memref<64xf32>, %c: i1,
                                 %nw: memref<64xf32>, %nb: memref<64xf32>)
    attributes {msmlir.num_inputs = 3 : i64, msmlir.writeback = [[0, 0], [1, 1]]} {
  call @branches(%w, %c, %nw) : (memref<64xf32>, i1, memref<64xf32>) -> ()
  call @reversed(%b, %nb) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}

func.func private @branches(%w: memref<64xf32>, %c: i1, %o: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %z = arith.constant dense<0.0> : vector<16xf32>
  scf.if %c {
    %v = vector.transfer_read %w[%c0], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
  } else {
    vector.transfer_write %z, %o[%c0] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  }
  return
}

func.func private @reversed(%b: memref<64xf32>, %o: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (63 - d0)>, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%o : memref<64xf32>) {
  ^bb0(%p: f32, %r: f32):
    linalg.yield %p : f32
  }
  return
}

// Kernels inlined into the host (inline-kernels=true): an earlier loop nest
// reads the parameter, the last one updates it element by element. The
// earlier reads are not part of the writer's pairing; the writer's are.
// CHECK-LABEL: func.func @inlined
// CHECK-SAME:    attributes {msmlir.inplace = {{\[}}[0, 1]], msmlir.num_inputs
func.func @inlined(%x: memref<64xf32>, %w: memref<64xf32>, %nw: memref<64xf32>)
    attributes {msmlir.num_inputs = 2 : i64, msmlir.writeback = [[0, 1]]} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c16 {
    %a = vector.transfer_read %w[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %b = vector.transfer_read %x[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %p = arith.mulf %a, %b : vector<16xf32>
    vector.transfer_write %p, %t[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c16 {
    %a = vector.transfer_read %w[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %g = vector.transfer_read %t[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %n = arith.subf %a, %g : vector<16xf32>
    vector.transfer_write %n, %nw[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}

// ... but not when a loop nest after the update still reads the parameter.
// CHECK-LABEL: func.func @inlined_read_after
// CHECK-SAME:    attributes {msmlir.num_inputs
func.func @inlined_read_after(%x: memref<64xf32>, %w: memref<64xf32>, %nw: memref<64xf32>)
    attributes {msmlir.num_inputs = 2 : i64, msmlir.writeback = [[0, 1]]} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c16 {
    %a = vector.transfer_read %w[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %n = arith.addf %a, %a : vector<16xf32>
    vector.transfer_write %n, %nw[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c16 {
    %a = vector.transfer_read %w[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    vector.transfer_write %a, %x[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  }
  return
}
