"""In-process LLVM code generation (msmlir/runtime/llvm_codegen.py): upstream's
translation and LLVM's C API, called on worker threads by parallel_compile.py.
"""
import ctypes
import threading

import pytest
from mlir import ir

from msmlir import compiler
from msmlir.runtime import llvm_codegen, shared_object

pytestmark = pytest.mark.skipif(bool(llvm_codegen.available()),
                                reason="no LLVM C API in the loaded libraries")

ADD = """
llvm.func @add3(%a: i64) -> i64 attributes {sym_visibility = "public"} {
  %c = llvm.mlir.constant(3 : i64) : i64
  %b = llvm.add %a, %c : i64
  llvm.return %b : i64
}
"""


def _object(text: str, passes: str = "default<O1>", level: int = 3) -> bytes:
    with compiler.context():
        m = ir.Module.parse(text)
        return llvm_codegen.emit_object(llvm_codegen.translate(m), passes, level)


def _run_add3(tmp_path, obj: bytes, x: int) -> int:
    path = tmp_path / "add3.o"
    path.write_bytes(obj)
    lib = tmp_path / "add3.so"
    assert shared_object.link(str(path), str(lib), str(tmp_path)) == []
    f = ctypes.CDLL(str(lib), mode=ctypes.RTLD_LOCAL).add3
    f.restype, f.argtypes = ctypes.c_int64, [ctypes.c_int64]
    return f(x)


def test_object_of_a_function_runs(tmp_path):
    obj = _object(ADD)
    assert "add3" in shared_object.defined_symbols(obj)
    assert shared_object.undefined_symbols(obj) == []
    assert _run_add3(tmp_path, obj, 39) == 42


@pytest.mark.parametrize("passes,level", [("", 0), ("default<O3>", 3), ("default<O1>", 1)])
def test_every_level_gives_working_code(tmp_path, passes, level):
    assert _run_add3(tmp_path, _object(ADD, passes, level), -3) == 0


def test_a_bad_pipeline_is_an_error_naming_it():
    with pytest.raises(llvm_codegen.CodegenError, match="no-such-pass"):
        _object(ADD, "no-such-pass")


def test_a_module_that_does_not_translate_is_an_error():
    # a func.func is not LLVM dialect: upstream's translation refuses it
    with compiler.context():
        m = ir.Module.parse("func.func @f() { return }")
        with pytest.raises(llvm_codegen.CodegenError, match="translation to LLVM IR failed"):
            llvm_codegen.translate(m)


def test_one_target_compiles_several_modules():
    target = llvm_codegen.Target(3)
    try:
        with compiler.context():
            objs = [target.emit(llvm_codegen.translate(ir.Module.parse(ADD)), "default<O1>")
                    for _ in range(3)]
    finally:
        target.close()
    assert objs[0] == objs[1] == objs[2]


def test_threads_compile_concurrently_to_the_same_bytes():
    # what parallel_compile's workers do: translation on one thread, code
    # generation on several, each with its own LLVMContext and target
    with compiler.context():
        mods = [llvm_codegen.translate(ir.Module.parse(ADD)) for _ in range(8)]
    out = [None] * len(mods)

    def work(i):
        out[i] = llvm_codegen.emit_object(mods[i], "default<O3>", 3)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(mods))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(o == out[0] for o in out) and out[0]


def test_assemble_makes_the_import_table():
    obj = llvm_codegen.assemble(shared_object._trampolines(["malloc", "expf"]))
    assert {"malloc", "expf", shared_object.IMPORTS_SYMBOL} <= shared_object.defined_symbols(obj)
    assert shared_object.undefined_symbols(obj) == []


def test_assemble_rejects_bad_assembly():
    with pytest.raises(llvm_codegen.CodegenError):
        llvm_codegen.assemble("\tnot_an_instruction %zz\n")


def test_link_runs_only_the_linker(tmp_path, monkeypatch):
    # the import table is assembled in process: one subprocess, the linker
    # (no `as`, no `cc` driver when there is an `ld`)
    import subprocess
    ran = []
    real = subprocess.run

    def run(cmd, *a, **k):
        ran.append(cmd)
        return real(cmd, *a, **k)
    monkeypatch.setattr(shared_object.subprocess, "run", run)
    obj = tmp_path / "add3.o"
    obj.write_bytes(_object(ADD.replace("llvm.add %a, %c", "llvm.mul %a, %c")))
    lib = tmp_path / "m.so"
    assert shared_object.link(str(obj), str(lib), str(tmp_path)) == []
    assert len(ran) == 1 and ran[0][0] == shared_object._linker()[0]
    assert not list(tmp_path.glob("*.S"))
    shared_object.check_library(lib.read_bytes(), [], ["add3"])
    f = ctypes.CDLL(str(lib), mode=ctypes.RTLD_LOCAL).add3
    f.restype, f.argtypes = ctypes.c_int64, [ctypes.c_int64]
    assert f(5) == 15


def test_system_libraries_without_ldconfig(monkeypatch):
    # glibc's sonames load directly; find_library (an `ldconfig -p` each
    # call) is only the fallback
    import ctypes.util
    import platform
    from msmlir.runtime import linker
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    monkeypatch.setattr(linker, "_SONAMES", {})
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: pytest.fail("find_library"))
    assert linker.system_library("m") == "libm.so.6"
    assert linker.system_library("c") == "libc.so.6"
    monkeypatch.setattr(linker, "_SONAMES", {})
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: f"lib{name}.so.7")
    assert linker.system_library("no_such_lib_xyz") == "libno_such_lib_xyz.so.7"


def test_link_without_ld_uses_the_c_compiler(tmp_path, monkeypatch):
    import shutil
    if shared_object._compiler() is None:
        pytest.skip("no C compiler")
    real = shutil.which
    monkeypatch.setattr(shared_object.shutil, "which", lambda n: None if n == "ld" else real(n))
    assert shared_object._linker()[0] == shared_object._compiler()
    obj = tmp_path / "add3.o"
    obj.write_bytes(_object(ADD))
    assert _run_add3(tmp_path, obj.read_bytes(), 1) == 4
