"""Tensor element types with MindSpore names (`ms.float32`, `ms.int32`, `ms.bool_`, ...).

Each `DType` maps to a numpy dtype (None for bfloat16 unless `ml_dtypes` is
installed) and to an MLIR element type (`to_mlir()`, in the current context).
`dtype.get(x)` accepts a DType, a numpy dtype or scalar type, a Python type
(float -> float32, int -> int64, bool -> bool_), a name ('float32') or an MLIR type.
"""
from __future__ import annotations

import numpy as np

__all__ = ["DType", "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64", "complex64", "complex128", "bool_",
           "half", "single", "double", "float_", "get", "from_numpy", "from_mlir", "promote_types",
           "all_dtypes", "host_dtypes", "dtype_to_nptype", "pytype_to_dtype", "dtype_to_pytype",
           "get_py_obj_dtype", "int_type", "uint_type", "float_type", "number_type",
           "complex_type", "all_types", "int_", "uint", "complex_", "byte", "short", "intc", "intp", "ubyte", "ushort",
           "uintc", "uintp",
           "qint4x2", "string", "type_none", "tensor_type", "Type", "Float", "Int", "UInt",
           "Bool", "TensorType"]

try:  # optional: numpy has no bfloat16 of its own
    import ml_dtypes as _ml_dtypes  # type: ignore
    _NP_BF16 = np.dtype(_ml_dtypes.bfloat16)
except Exception:  # pragma: no cover - depends on the environment
    _NP_BF16 = None


class DType:
    """An element type. Compare with `==` (also against numpy dtypes and names)."""

    __slots__ = ("name", "kind", "bits", "np_dtype", "_rank")

    def __init__(self, name: str, kind: str, bits: int, np_dtype, rank: int):
        self.name = name          # 'float32'
        self.kind = kind          # 'f' float, 'i' signed int, 'b' bool
        self.bits = bits
        self.np_dtype = np_dtype  # numpy dtype or None
        self._rank = rank         # position in the promotion lattice

    # -- predicates -------------------------------------------------------
    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "u"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    # -- conversions ------------------------------------------------------
    @property
    def compiled(self) -> bool:
        """Whether compiled code (the mindir dialect) has this element type."""
        return self not in host_dtypes

    def to_mlir(self):
        """The MLIR element type, in the current `mlir.ir.Context`."""
        from mlir import ir
        if not self.compiled:
            raise TypeError(
                f"{self.name} tensors are not supported by the msmlir compiler (mindir has "
                f"float16, bfloat16, float32, float64, int8, int32, int64 and bool elements); "
                f"a Tensor can hold {self.name} data, cast it first, e.g. x.astype(ms.int32)")
        if self.kind == "f":
            return {"float16": ir.F16Type, "bfloat16": ir.BF16Type, "float32": ir.F32Type,
                    "float64": ir.F64Type}[self.name].get()
        return ir.IntegerType.get_signless(self.bits)

    def to_numpy(self) -> np.dtype:
        if self.np_dtype is None:
            raise TypeError(f"{self!r} has no numpy equivalent (install ml_dtypes for bfloat16)")
        return self.np_dtype

    # -- dunder -----------------------------------------------------------
    def __repr__(self) -> str:  # MindSpore prints dtypes as Float32, Int64, Bool
        return _REPR[self.name]

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other) -> bool:
        if isinstance(other, DType):
            return self is other
        try:
            return get(other) is self
        except (TypeError, ValueError):
            return False

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self):
        return (get, (self.name,))


float16 = DType("float16", "f", 16, np.dtype(np.float16), 4)
bfloat16 = DType("bfloat16", "f", 16, _NP_BF16, 5)
float32 = DType("float32", "f", 32, np.dtype(np.float32), 6)
float64 = DType("float64", "f", 64, np.dtype(np.float64), 7)
int8 = DType("int8", "i", 8, np.dtype(np.int8), 1)
# Host-only dtypes: a Tensor can hold them (data loaded from files, numpy, datasets)
# and convert them on the host (`astype`), but the mindir dialect has no such element
# type (f16, bf16, f32, f64, i1, i8, i32, i64 only), so compiled code refuses them
# with a TypeError that says to cast first.
int16 = DType("int16", "i", 16, np.dtype(np.int16), 1.5)
uint8 = DType("uint8", "u", 8, np.dtype(np.uint8), 1.2)
uint16 = DType("uint16", "u", 16, np.dtype(np.uint16), 1.7)
uint32 = DType("uint32", "u", 32, np.dtype(np.uint32), 2.5)
uint64 = DType("uint64", "u", 64, np.dtype(np.uint64), 3.5)
complex64 = DType("complex64", "c", 64, np.dtype(np.complex64), 8)
complex128 = DType("complex128", "c", 128, np.dtype(np.complex128), 9)
int32 = DType("int32", "i", 32, np.dtype(np.int32), 2)
int64 = DType("int64", "i", 64, np.dtype(np.int64), 3)
bool_ = DType("bool", "b", 1, np.dtype(np.bool_), 0)

half, single, double, float_ = float16, float32, float64, float32

_REPR = {"float16": "Float16", "bfloat16": "BFloat16", "float32": "Float32", "float64": "Float64",
         "int8": "Int8", "int16": "Int16", "int32": "Int32", "uint8": "UInt8",
         "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "complex64": "Complex64",
         "complex128": "Complex128", "int64": "Int64", "bool": "Bool"}
all_dtypes = (float16, bfloat16, float32, float64, int8, int32, int64, bool_)   # compiled
host_dtypes = (int16, uint8, uint16, uint32, uint64, complex64, complex128)   # host-only
_BY_NAME = {d.name: d for d in all_dtypes + host_dtypes}
_BY_NAME.update({"bool_": bool_, "half": float16, "single": float32, "double": float64, "float": float32,
                 "int": int64, "bf16": bfloat16, "fp16": float16, "fp32": float32, "fp64": float64})


def from_numpy(dt) -> DType:
    """The DType of a numpy dtype (or anything np.dtype() accepts)."""
    dt = np.dtype(dt)
    if _NP_BF16 is not None and dt == _NP_BF16:
        return bfloat16
    for d in all_dtypes + host_dtypes:
        if d.np_dtype is not None and d.np_dtype == dt:
            return d
    raise TypeError(f"numpy dtype {dt} is not supported by msmlir "
                    f"(supported: {', '.join(d.name for d in all_dtypes)})")


def from_mlir(t) -> DType:
    """The DType of an MLIR element type."""
    from mlir import ir
    if isinstance(t, ir.F16Type):
        return float16
    if isinstance(t, ir.BF16Type):
        return bfloat16
    if isinstance(t, ir.F32Type):
        return float32
    if isinstance(t, ir.F64Type):
        return float64
    if isinstance(t, ir.IntegerType):
        w = t.width
        return {1: bool_, 8: int8, 32: int32, 64: int64}[w]
    raise TypeError(f"MLIR type {t} is not a msmlir element type")


def get(x) -> DType:
    """Normalizes a dtype-like value to a DType."""
    if isinstance(x, DType):
        return x
    if x is bool:
        return bool_
    if x is int:
        return int64
    if x is float:
        return float32
    if isinstance(x, str):
        if x in _BY_NAME:
            return _BY_NAME[x]
        raise ValueError(f"unknown dtype name {x!r}")
    d = getattr(x, "dtype", None)  # a Tensor-like object: its dtype
    if d is not None and not isinstance(x, (type, np.dtype)):
        return get(d)
    try:
        return from_numpy(x)
    except TypeError:
        pass
    try:
        return from_mlir(x)
    except Exception:
        pass
    raise TypeError(f"cannot interpret {x!r} as a dtype")


def promote_types(a: DType, b: DType) -> DType:
    """The common type of two tensor dtypes (MindSpore/PyTorch style):
    bool < int8 < int32 < int64 < floats; float16 with bfloat16 gives float32."""
    if a is b:
        return a
    if {a, b} == {float16, bfloat16}:
        return float32
    return a if a._rank > b._rank else b


# ---------------------------------------------------------------------------
# mindspore.common.dtype's helpers and type groups
# ---------------------------------------------------------------------------

int_ = int64
uint = uint64
byte, short, intc, intp = int8, int16, int32, int64
ubyte, ushort, uintc, uintp = uint8, uint16, uint32, uint64
complex_ = complex64
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
float_type = (float16, float32, float64, bfloat16)
complex_type = (complex64, complex128)
number_type = int_type + uint_type + float_type + complex_type
all_types = (bool_,) + number_type
# MindSpore's type classes, for isinstance checks and annotations: every dtype is a Type.
Type = Float = Int = UInt = Bool = TensorType = DType
tensor_type = DType


class _NamedType:
    """A MindSpore type object that is not a tensor element type (string, None)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


string = _NamedType("String")
type_none = _NamedType("TypeNone")
qint4x2 = _NamedType("QInt4x2")


def dtype_to_nptype(type_):
    """The numpy scalar type of a dtype (mindspore.dtype_to_nptype)."""
    d = get(type_)
    if d.np_dtype is None:
        raise TypeError(f"{d!r} has no numpy type (install ml_dtypes for bfloat16)")
    return d.np_dtype.type


def pytype_to_dtype(obj):
    """The dtype of a Python or numpy type (mindspore.pytype_to_dtype):
    bool -> bool_, int -> int64, float -> float32, np.float16 -> float16, ..."""
    if isinstance(obj, DType):
        return obj
    if isinstance(obj, np.dtype):
        return from_numpy(obj)
    if obj is bool:
        return bool_
    if obj is int:
        return int64
    if obj is float:
        return float32
    if isinstance(obj, type) and issubclass(obj, np.generic):
        return from_numpy(obj)
    raise NotImplementedError(f"Unsupported convert python type {obj!r} to MindSpore type.")


def dtype_to_pytype(type_):
    """The Python type of a dtype's values (mindspore.dtype_to_pytype)."""
    d = get(type_)
    if d.is_bool:
        return bool
    if d.is_float:
        return float
    if d.is_complex:
        return complex
    return int


def get_py_obj_dtype(obj):
    """The dtype of a Python object: a tensor's dtype, a Python scalar's default."""
    d = getattr(obj, "dtype", None)
    if d is not None:
        return get(d)
    return pytype_to_dtype(type(obj))
