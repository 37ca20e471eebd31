"""The mindir IR that msmlir.jit builds from Python source (FileCheck on `lower()`)."""
from __future__ import annotations

import inspect

import numpy as np

import msmlir as ms
from msmlir import ops
from jit_testutil import filecheck

X23 = np.ones((2, 3), np.float32)
W34 = np.ones((3, 4), np.float32)
B4 = np.zeros(4, np.float32)


def _line(fn, text):
    """The file line number of the first source line of fn containing text."""
    lines, start = inspect.getsourcelines(fn)
    for i, ln in enumerate(lines):
        if text in ln:
            return start + i
    raise AssertionError(text)


# ---------------------------------------------------------------------------
# straight-line code
# ---------------------------------------------------------------------------

def test_straight_line_mlp_layer():
    @ms.jit
    def layer(x, w, b):
        y = ops.relu(x @ w + b)
        return ops.softmax(y, axis=-1)

    filecheck(layer.lower(X23, W34, B4), """
        CHECK: module
        CHECK: func.func @layer(%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4xf32>) -> tensor<2x4xf32>
        CHECK-NEXT: %[[MM:.*]] = mindir.matmul %[[X]], %[[W]] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
        CHECK-NEXT: %[[ADD:.*]] = mindir.add %[[MM]], %[[B]] : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
        CHECK-NEXT: %[[R:.*]] = mindir.relu %[[ADD]] : tensor<2x4xf32>
        CHECK-NEXT: %[[S:.*]] = mindir.softmax %[[R]] {axis = 1 : i64} : tensor<2x4xf32>
        CHECK-NEXT: return %[[S]] : tensor<2x4xf32>
    """)


def test_assignments_tuple_unpacking_and_augmented_assignment():
    @ms.jit
    def f(x, y):
        a, (b, c) = x, (y, x * y)
        a += 1
        b -= c
        a, b = b, a
        return a, b

    filecheck(f.lower(X23, X23), """
        CHECK: func.func @f(%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
        CHECK: %[[C:.*]] = mindir.mul %[[X]], %[[Y]]
        CHECK: %[[ONE:.*]] = mindir.constant dense<1.000000e+00> : tensor<f32>
        CHECK: %[[A:.*]] = mindir.add %[[X]], %[[ONE]]
        CHECK: %[[B:.*]] = mindir.sub %[[Y]], %[[C]]
        CHECK: return %[[B]], %[[A]]
    """)


def test_python_scalars_take_the_tensor_dtype_and_promotion_inserts_casts():
    @ms.jit
    def f(xi, xf, xd):
        a = xi + 2          # int scalar: int32 constant
        b = xi * 0.5        # float scalar with an int tensor: float32 (cast)
        c = xf + xd         # f32 + f64 -> f64 (cast)
        d = 3 - xf          # reflected operator
        return a, b, c, d

    xi = np.ones((2,), np.int32)
    xf = np.ones((2,), np.float32)
    xd = np.ones((2,), np.float64)
    filecheck(f.lower(xi, xf, xd), """
        CHECK: mindir.constant dense<2> : tensor<i32>
        CHECK: mindir.add {{.*}} : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
        CHECK: mindir.cast {{.*}} : tensor<2xi32> to tensor<2xf32>
        CHECK: mindir.constant dense<5.000000e-01> : tensor<f32>
        CHECK: mindir.mul {{.*}} -> tensor<2xf32>
        CHECK: mindir.cast {{.*}} : tensor<2xf32> to tensor<2xf64>
        CHECK: mindir.add {{.*}} : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
        CHECK: %[[THREE:.*]] = mindir.constant dense<3.000000e+00> : tensor<f32>
        CHECK: mindir.sub %[[THREE]], %arg1
    """)


def test_indexing_becomes_strided_slice_squeeze_expand_dims():
    @ms.jit
    def f(x):
        return x[1], x[:, 1:3], x[..., None, -1], x[::-1, ::2]

    x = np.ones((4, 5), np.float32)
    filecheck(f.lower(x), """
        CHECK: %[[S0:.*]] = mindir.strided_slice %arg0 {begin = array<i64: 1, 0>, end = array<i64: 2, 5>, strides = array<i64: 1, 1>} : (tensor<4x5xf32>) -> tensor<1x5xf32>
        CHECK: mindir.squeeze %[[S0]] {axis = array<i64: 0>} : (tensor<1x5xf32>) -> tensor<5xf32>
        CHECK: mindir.strided_slice %arg0 {begin = array<i64: 0, 1>, end = array<i64: 4, 3>, strides = array<i64: 1, 1>} : (tensor<4x5xf32>) -> tensor<4x2xf32>
        CHECK: %[[S2:.*]] = mindir.strided_slice %arg0 {begin = array<i64: 0, 4>, end = array<i64: 4, 5>, {{.*}}} : (tensor<4x5xf32>) -> tensor<4x1xf32>
        CHECK: %[[Q2:.*]] = mindir.squeeze %[[S2]] {axis = array<i64: 1>} : (tensor<4x1xf32>) -> tensor<4xf32>
        CHECK: mindir.expand_dims %[[Q2]] {axis = 1 : i64} : (tensor<4xf32>) -> tensor<4x1xf32>
        CHECK: mindir.strided_slice %arg0 {begin = array<i64: 3, 0>, end = array<i64: -1, 5>, strides = array<i64: -1, 2>} : (tensor<4x5xf32>) -> tensor<4x3xf32>
    """)


def test_shape_dtype_ndim_are_compile_time_constants_and_methods_build_ops():
    @ms.jit
    def f(x):
        n, m = x.shape
        assert x.ndim == 2 and x.dtype == ms.float32
        y = x.reshape(m, n).transpose()
        return y.sum(axis=1, keepdims=True), y.mean(), y.max(axis=0), x.astype(ms.int32), n * m

    lowered = f.lower(np.ones((2, 3), np.float32))
    filecheck(lowered, """
        CHECK: func.func @f(%arg0: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<f32>, tensor<3xf32>, tensor<2x3xi32>)
        CHECK: mindir.reshape %arg0 {shape = array<i64: 3, 2>}
        CHECK: mindir.transpose {{.*}} {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
        CHECK: mindir.reduce_sum {{.*}} {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
        CHECK: mindir.reduce_mean {{.*}} : (tensor<2x3xf32>) -> tensor<f32>
        CHECK: mindir.reduce_max {{.*}} {axes = array<i64: 0>, msmlir.first_extremum} : (tensor<2x3xf32>) -> tensor<3xf32>
        CHECK: mindir.cast %arg0 : tensor<2x3xf32> to tensor<2x3xi32>
    """)


def test_every_op_carries_the_users_file_line_col():
    @ms.jit
    def f(x, w):
        h = x @ w
        return ops.exp(h)

    text = f.lower(X23, W34, debug_info=True)
    fname = __file__
    mm_line = _line(f, "h = x @ w")
    exp_line = _line(f, "return ops.exp(h)")
    filecheck(text, f"""
        CHECK: mindir.matmul {{{{.*}}}} loc(#[[MM:loc[0-9]+]])
        CHECK: mindir.exp {{{{.*}}}} loc(#[[EXP:loc[0-9]+]])
        CHECK: return {{{{.*}}}} loc(#[[RET:loc[0-9]+]])
        CHECK-DAG: #[[MM]] = loc("{fname}":{mm_line}:13)
        CHECK-DAG: #[[EXP]] = loc("{fname}":{exp_line}:16)
        CHECK-DAG: #[[RET]] = loc("{fname}":{exp_line}:9)
    """)


def test_all_ops_including_control_flow_have_file_locations():
    def helper(t):
        return t * 2

    @ms.jit
    def f(x):
        i = 0
        while x.sum() < 10:
            x = helper(x) if x.max() > 1 else x + 1
            i += 1
        return x, i

    from mlir import ir
    lowered = f.lower_module(X23)
    seen = []

    def visit(op):
        seen.append(op.name)
        if op.name != "builtin.module":
            loc = op.location
            assert loc.is_a_file() and loc.filename == __file__, (op.name, loc)
            assert _line(f, "def f(x):") <= loc.start_line <= _line(f, "return x, i") or \
                _line(helper, "def helper") <= loc.start_line <= _line(helper, "return t * 2")
        return ir.WalkResult.ADVANCE

    with lowered.context:
        lowered.module.operation.walk(visit)
    for name in ("func.func", "func.call", "scf.while", "scf.condition", "scf.if", "scf.yield",
                 "tensor.extract", "mindir.constant", "mindir.reduce_sum", "func.return"):
        assert name in seen, name


# ---------------------------------------------------------------------------
# calls: helpers, jitted functions, closures, globals
# ---------------------------------------------------------------------------

def _helper_dense(x, w, b):
    return ops.relu(x @ w + b)


def _helper_outer(x, w, b):
    return _helper_dense(x, w, b) * 2


@ms.jit
def _jitted_square(x):
    return x * x


SCALE = 0.5
TABLE = np.arange(4, dtype=np.float32)


def test_helper_functions_become_private_funcs_specialized_per_signature():
    @ms.jit
    def f(x, w, b, x2):
        h = _helper_outer(x, w, b)
        h2 = _helper_outer(x, w, b)            # same signature: the same function
        h3 = _helper_dense(x2, w, b)           # another shape: another specialization
        return _jitted_square(h) + h2, h3

    x2 = np.ones((5, 3), np.float32)
    filecheck(f.lower(X23, W34, B4, x2), """
        CHECK: func.func @f(
        CHECK: call @_helper_outer(%arg0, %arg1, %arg2) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
        CHECK: call @_helper_outer(%arg0, %arg1, %arg2)
        CHECK: call @_helper_dense_1(%arg3, %arg1, %arg2) : (tensor<5x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<5x4xf32>
        CHECK: call @_jitted_square(
        CHECK: func.func private @_helper_outer(
        CHECK: call @_helper_dense(
        CHECK: func.func private @_helper_dense(%arg0: tensor<2x3xf32>
        CHECK: mindir.matmul
        CHECK: func.func private @_helper_dense_1(%arg0: tensor<5x3xf32>
        CHECK: func.func private @_jitted_square(
        CHECK-NOT: func.func
    """)


def test_closures_globals_and_python_constant_arguments():
    def make(k):
        def mul_k(t, power=1):
            return t * (k ** power) * SCALE
        return mul_k

    triple = make(3.0)

    @ms.jit
    def f(x, n):
        # numpy on a global constant is evaluated at compile time; a numpy array
        # used with a tensor becomes a mindir.constant
        return triple(x, power=n) + TABLE[1:3].sum() + TABLE[:2]

    filecheck(f.lower(np.ones(2, np.float32), 2), """
        CHECK: func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32>
        CHECK: %[[T:.*]] = call @mul_k(%arg0)
        CHECK: mindir.constant dense<3.000000e+00> : tensor<f32>
        CHECK: mindir.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
        CHECK: func.func private @mul_k(%arg0: tensor<2xf32>) -> tensor<2xf32>
        CHECK: mindir.constant dense<9.000000e+00> : tensor<f32>
        CHECK: mindir.constant dense<5.000000e-01> : tensor<f32>
    """)


def test_helper_on_python_values_only_is_evaluated_at_compile_time():
    def hidden(n):
        return n * 2 + 1

    @ms.jit
    def f(x):
        return x * hidden(x.shape[0])

    text = f.lower(X23)
    assert "func.func private" not in text and "call" not in text
    filecheck(text, "CHECK: mindir.constant dense<5.000000e+00> : tensor<f32>\n")


def test_lambdas_nested_defs_comprehensions_enumerate_zip():
    @ms.jit
    def f(x):
        sq = lambda t: t * t  # noqa: E731

        def shift(t, by=1.0):
            return t + by

        rows = [sq(r) for r in x]
        acc = rows[0]
        for i, (a, b) in enumerate(zip(rows[1:], rows[:-1])):
            acc = acc + shift(a - b, by=float(i))
        return acc

    filecheck(f.lower(np.ones((3, 2), np.float32)), """
        CHECK-COUNT-3: mindir.mul
        CHECK: mindir.constant dense<0.000000e+00>
        CHECK: mindir.constant dense<1.000000e+00>
        CHECK-NOT: func.func private
    """)


def test_jit_on_methods_reads_attributes_as_constants():
    class Layer:
        def __init__(self):
            self.w = np.full((3, 2), 2.0, np.float32)

        @ms.jit
        def __call__(self, x):
            return x @ self.w

    layer = Layer()
    filecheck(layer.__call__.lower(X23), """
        CHECK: func.func @__call__(%arg0: tensor<2x3xf32>) -> tensor<2x2xf32>
        CHECK: mindir.constant dense<2.000000e+00> : tensor<3x2xf32>
        CHECK: mindir.matmul
    """)


# ---------------------------------------------------------------------------
# control flow on Python values: folded / unrolled
# ---------------------------------------------------------------------------

def test_python_if_is_folded_and_for_is_unrolled():
    @ms.jit
    def f(x, n, flag):
        if flag:
            x = x * 10
        else:
            x = x - 10
        for i in range(n):
            if i % 2 == 0:
                x = x + i
            else:
                x = ops.exp(x)
        for w in (1.0, 2.0):
            x = x * w
        i = 0
        while i < 2:
            x = x - 1
            i += 1
        return x

    text = f.lower(X23, 4, True)
    assert "scf." not in text and "mindir.sub" in text
    filecheck(text, """
        CHECK: mindir.constant dense<1.000000e+01>
        CHECK-NEXT: mindir.mul
        CHECK-NEXT: mindir.constant dense<0.000000e+00>
        CHECK-NEXT: mindir.add
        CHECK-NEXT: mindir.exp
        CHECK-NEXT: mindir.constant dense<2.000000e+00>
        CHECK-NEXT: mindir.add
        CHECK-NEXT: mindir.exp
        CHECK-NEXT: mindir.constant dense<1.000000e+00>
        CHECK-NEXT: mindir.mul
        CHECK-NEXT: mindir.constant dense<2.000000e+00>
        CHECK-NEXT: mindir.mul
        CHECK-COUNT-2: mindir.sub
        CHECK-NOT: mindir
    """)
    other = f.lower(X23, 1, False)
    filecheck(other, """
        CHECK: mindir.constant dense<1.000000e+01>
        CHECK-NEXT: mindir.sub
        CHECK-NEXT: mindir.constant dense<0.000000e+00>
        CHECK-NEXT: mindir.add
        CHECK-NOT: mindir.exp
    """)


def test_break_continue_and_return_in_unrolled_loops():
    @ms.jit
    def f(x, stop):
        for i in range(10):
            if i == 1:
                continue
            if i == stop:
                break
            x = x + i
        for j in range(5):
            if j == 2:
                return x * j
        return x

    filecheck(f.lower(X23, 3), """
        CHECK: mindir.constant dense<0.000000e+00>
        CHECK: mindir.add
        CHECK: mindir.constant dense<2.000000e+00>
        CHECK: mindir.add
        CHECK: mindir.constant dense<2.000000e+00>
        CHECK: mindir.mul
        CHECK-NEXT: return
    """)


# ---------------------------------------------------------------------------
# control flow on tensors: scf.if / scf.while
# ---------------------------------------------------------------------------

def test_tensor_if_becomes_scf_if_with_assigned_variables_as_results():
    @ms.jit
    def f(x):
        y = x
        n = 1
        if x.sum() > 0:
            y = x * 2
            z = x
        else:
            y = x - 1
            z = x + 1
        return y, z, n

    filecheck(f.lower(X23), """
        CHECK: %[[S:.*]] = mindir.reduce_sum %arg0 : (tensor<2x3xf32>) -> tensor<f32>
        CHECK: %[[C:.*]] = mindir.greater %[[S]], %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        CHECK: %[[P:.*]] = tensor.extract %[[C]][] : tensor<i1>
        CHECK: %[[R:.*]]:2 = scf.if %[[P]] -> (tensor<2x3xf32>, tensor<2x3xf32>) {
        CHECK: %[[M:.*]] = mindir.mul %arg0
        CHECK: scf.yield %[[M]], %arg0 : tensor<2x3xf32>, tensor<2x3xf32>
        CHECK: } else {
        CHECK: %[[SUB:.*]] = mindir.sub %arg0
        CHECK: %[[ADD:.*]] = mindir.add %arg0
        CHECK: scf.yield %[[SUB]], %[[ADD]] : tensor<2x3xf32>, tensor<2x3xf32>
        CHECK: return %[[R]]#0, %[[R]]#1
    """)


def test_tensor_if_single_element_non_bool_condition_and_scalar_join():
    @ms.jit
    def f(x, flag):
        if flag:              # a [1] int tensor: compared with 0
            y = x
        else:
            y = 0.0           # Python number joined with a tensor: materialized
        return y

    filecheck(f.lower(X23, np.array([1], np.int32)), """
        CHECK: %[[Z:.*]] = mindir.constant dense<0> : tensor<i32>
        CHECK: %[[NE:.*]] = mindir.not_equal %arg1, %[[Z]] : (tensor<1xi32>, tensor<i32>) -> tensor<1xi1>
        CHECK: %[[I:.*]] = arith.constant 0 : index
        CHECK: tensor.extract %[[NE]][%[[I]]] : tensor<1xi1>
        CHECK: scf.if
        CHECK: scf.yield %arg0
        CHECK: } else {
        CHECK: %[[F:.*]] = mindir.constant dense<0.000000e+00> : tensor<2x3xf32>
        CHECK: scf.yield %[[F]]
    """)


def test_early_return_inside_tensor_if_joins_the_rest_of_the_function():
    @ms.jit
    def f(x):
        if x.sum() > 10:
            return x * 2
        y = x - 1
        if y.mean() > 0:
            return y
        return -y

    filecheck(f.lower(X23), """
        CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<2x3xf32>) {
        CHECK: mindir.mul
        CHECK: scf.yield
        CHECK: } else {
        CHECK: mindir.sub
        CHECK: mindir.reduce_mean
        CHECK: %[[R2:.*]] = scf.if %{{.*}} -> (tensor<2x3xf32>) {
        CHECK: } else {
        CHECK: mindir.neg
        CHECK: scf.yield %[[R2]]
        CHECK: return %[[R]] : tensor<2x3xf32>
    """)


def test_tensor_while_becomes_scf_while_and_changing_python_counter_becomes_tensor():
    @ms.jit
    def f(x):
        i = 0
        limit = 100
        while x.sum() < limit:
            x = x * 2
            i = i + 1
        return x, i

    filecheck(f.lower(X23), """
        CHECK: %[[I0:.*]] = mindir.constant dense<0> : tensor<i64>
        CHECK: %[[W:.*]]:2 = scf.while (%[[X:.*]] = %arg0, %[[I:.*]] = %[[I0]]) : (tensor<2x3xf32>, tensor<i64>) -> (tensor<2x3xf32>, tensor<i64>) {
        CHECK: %[[S:.*]] = mindir.reduce_sum %[[X]]
        CHECK: %[[L:.*]] = mindir.constant dense<1.000000e+02> : tensor<f32>
        CHECK: %[[LT:.*]] = mindir.less %[[S]], %[[L]]
        CHECK: %[[P:.*]] = tensor.extract %[[LT]][] : tensor<i1>
        CHECK: scf.condition(%[[P]]) %[[X]], %[[I]] : tensor<2x3xf32>, tensor<i64>
        CHECK: } do {
        CHECK: ^bb0(%[[XB:.*]]: tensor<2x3xf32>, %[[IB:.*]]: tensor<i64>):
        CHECK: %[[X2:.*]] = mindir.mul %[[XB]]
        CHECK: %[[I2:.*]] = mindir.add %[[IB]]
        CHECK: scf.yield %[[X2]], %[[I2]] : tensor<2x3xf32>, tensor<i64>
        CHECK: return %[[W]]#0, %[[W]]#1
    """)
    # no dead copy of the first condition evaluation is left before the loop
    before_loop = f.lower(X23).split("scf.while")[0]
    assert "reduce_sum" not in before_loop


def test_nested_tensor_control_flow_and_if_expression():
    @ms.jit
    def f(x):
        while x.sum() < 50:
            x = x * 2 if x.max() > 3 else x + 1
        return x

    filecheck(f.lower(X23), """
        CHECK: scf.while
        CHECK: scf.condition
        CHECK: } do {
        CHECK: mindir.reduce_max
        CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (tensor<2x3xf32>) {
        CHECK: mindir.mul
        CHECK: } else {
        CHECK: mindir.add
        CHECK: scf.yield %[[IF]]
    """)


def test_tensor_boolean_operators():
    @ms.jit
    def f(x):
        m = (x > 0) & (x < 5)
        a = (x.sum() > 1) and (x.max() < 9)
        return ops.select(m, x, 0.0), not a

    filecheck(f.lower(X23), """
        CHECK: mindir.logical_and {{.*}} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
        CHECK: mindir.logical_and {{.*}} : (tensor<i1>, tensor<i1>) -> tensor<i1>
        CHECK: mindir.select {{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
        CHECK: mindir.logical_not {{.*}} : tensor<i1>
    """)


def test_lower_does_not_compile_and_module_verifies():
    @ms.jit
    def f(x):
        return ops.tanh(x)

    text = f.mlir(X23)
    assert f.lower_module(X23).compiled is None
    assert text.count("func.func") == 1 and "mindir.tanh" in text
