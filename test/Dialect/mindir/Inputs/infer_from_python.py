"""Builds mindir ops through the Python bindings (the C API) without result
types and without their default-valued attributes, so that result-type
inference must complete the defaults first (inferWithDefaults in lib/MindIR.h);
then checks that inference errors surface as Python exceptions with the
diagnostic text. Output is FileCheck'ed by infer_from_python.mlir."""
from mlir import ir
from mlir.dialects import func

import msmlir  # noqa: F401  (registers mindir and mskernel)
from msmlir.dialects import mindir


def t(shape, elem):
    return ir.RankedTensorType.get(shape, elem)


with ir.Context(), ir.Location.unknown():
    f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        @func.FuncOp.from_py_func(t([2, 3, 4], f32), t([4], f32), t([1, 3, 8, 8], f32),
                                  t([6, 3, 3, 3], f32), t([6, 2], f32), t([4], i32))
        def infer(x, v, img, w, m, idx):
            s = mindir.ReduceSumOp(x).result                      # axes = {}, keep_dims = false
            k = mindir.ReduceMeanOp(x, axes=ir.DenseI64ArrayAttr.get([1]),
                                    keep_dims=ir.BoolAttr.get(True)).result
            a = mindir.AddOp(x, v).result                          # broadcasting
            c = mindir.Conv2DOp(img, w).result                     # all window defaults
            p = mindir.MaxPool2DOp(img, ir.DenseI64ArrayAttr.get([2, 2])).result  # strides/pad defaults
            am = mindir.ArgmaxOp(x).result                         # axis = -1
            ln = mindir.LayerNormOp(x, v, v).results               # axis defaults
            sp = mindir.SplitOp(m, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 3)).results  # axis = 0
            return s, k, a, c, p, am, *ln, *sp
    print(module)

    def diagnose(build):
        try:
            build()
        except Exception as e:  # ir.MLIRError
            print("error:", str(e).replace("\n", " | "))

    m2 = ir.Module.create()
    with ir.InsertionPoint(m2.body):
        @func.FuncOp.from_py_func(t([2, 3], f32), t([4], f32), ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], f32))
        def errors(x, v, d):
            diagnose(lambda: mindir.AddOp(x, v))
            diagnose(lambda: mindir.AddOp(d, d))
            diagnose(lambda: mindir.ReshapeOp(x, ir.DenseI64ArrayAttr.get([4, -1])))
            return x
