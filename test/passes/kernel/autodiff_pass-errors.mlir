// RUN: ms-opt %s --split-input-file --mskernel-autodiff --verify-diagnostics

func.func @no_rule(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32>
    attributes {mskernel.grad = {name = "g"}} {
  // expected-error @+1 {{kernel-level autodiff: no derivative rule for 'math.atan2' in a kernel body}}
  %r = mskernel.fused(%x, %y) {kind = #mskernel.kind<compute>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
        ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%u: f32, %v: f32, %o: f32):
      %t = math.atan2 %u, %v : f32
      linalg.yield %t : f32
    } -> tensor<4xf32>
    mskernel.yield %g : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @product(%x: tensor<2x4xf32>) -> tensor<2xf32>
    attributes {mskernel.grad = {name = "g"}} {
  // expected-error @+1 {{unsupported reduction: the body must be combine(out, f(...)) with combine one of}}
  %r = mskernel.fused(%x) {kind = #mskernel.kind<compute>} : (tensor<2x4xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    %one = arith.constant 1.0 : f32
    %e = tensor.empty() : tensor<2xf32>
    %i = linalg.fill ins(%one : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
        ins(%a : tensor<2x4xf32>) outs(%i : tensor<2xf32>) {
    ^bb0(%u: f32, %acc: f32):
      %p = arith.mulf %acc, %u : f32
      linalg.yield %p : f32
    } -> tensor<2xf32>
    mskernel.yield %g : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @named_op(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32>
    attributes {mskernel.grad = {name = "g"}} {
  // expected-error @+1 {{'linalg.matmul' in a compute kernel: kernel-level AD handles bodies made of linalg.generic stages}}
  %r = mskernel.fused(%a, %b) {kind = #mskernel.kind<compute>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x4xf32>
    %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
    %m = linalg.matmul ins(%x, %y : tensor<2x3xf32>, tensor<3x4xf32>) outs(%i : tensor<2x4xf32>) -> tensor<2x4xf32>
    mskernel.yield %m : tensor<2x4xf32>
  }
  return %r : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{@two must consist of one mskernel.fused kernel and a return}}
func.func @two(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mskernel.grad = {name = "g"}} {
  %e = mindir.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

func.func private @dx(%y: f32) -> f32 {
  return %y : f32
}
func.func @bad_fdiff(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mskernel.grad = {name = "g"}} {
  // expected-error @+1 {{fdiff function @dx takes 1 scalars; expected 2 (the output element, then one per input operand of the output stage)}}
  %r = mskernel.fused(%x) {kind = #mskernel.kind<compute>, mskernel.fdiff = {in0 = @dx}} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
        ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%u: f32, %o: f32):
      %t = math.tanh %u : f32
      linalg.yield %t : f32
    } -> tensor<4xf32>
    mskernel.yield %g : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
// expected-error @+1 {{kernel-level autodiff: @dyn has the dynamically shaped type tensor<?xf32>: kernel-level autodiff needs static shapes}}
func.func @dyn(%x: tensor<?xf32>) -> tensor<?xf32>
    attributes {mskernel.grad = {name = "dyn_grad"}} {
  %r = mskernel.fused(%x) {kind = #mskernel.kind<compute>} : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%xa: tensor<?xf32>):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %xa, %c0 : tensor<?xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%xa : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%xv: f32, %o: f32):
      %s = math.exp %xv : f32
      linalg.yield %s : f32
    } -> tensor<?xf32>
    mskernel.yield %g : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
