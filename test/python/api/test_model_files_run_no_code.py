"""A `.mindir` file is data: crafted models that try to call process functions
(`system`, ...) are refused with a clear error at load time, and nothing runs.

Each model is well-formed in every other way (valid header, sizes, SHA-256,
MLIR bytecode that parses and verifies), so only the IR allow-list stands
between it and the JIT. A second wall, the linker's symbol allow-list, is
tested on its own below.
"""
import hashlib
import io
import json
import os
import struct

import numpy as np
import pytest
from mlir import ir

import msmlir as ms
from msmlir.compiler import compile_mlir, context
from msmlir.runtime.linker import UnresolvedSymbolError, resolve
from msmlir.train import CheckpointFormatError

PREFIX = struct.Struct("<8sIIQ")
SIG = "(%x: tensor<4xf32>) -> tensor<4xf32>"


def _payload(marker: str) -> str:
    return f'"touch {marker}\\00"'


def _variants(marker):
    cmd = f"touch {marker}"
    n = len(cmd) + 1
    glob = (f'llvm.mlir.global internal constant @cmd({_payload(marker)}) '
            f'{{addr_space = 0 : i32}} : !llvm.array<{n} x i8>')
    return {
        # the exploit: llvm dialect global + external llvm.func + llvm.call
        "llvm_call_system": f"""
            {glob}
            llvm.func @system(!llvm.ptr) -> i32
            func.func @main{SIG} {{
              %p = llvm.mlir.addressof @cmd : !llvm.ptr
              %r = llvm.call @system(%p) : (!llvm.ptr) -> i32
              return %x : tensor<4xf32>
            }}""",
        # an external func.func declaration the JIT would resolve against the process
        "func_declaration": f"""
            func.func private @system(i64) -> i32
            func.func @main{SIG} {{
              %c = arith.constant 0 : i64
              %r = func.call @system(%c) : (i64) -> i32
              return %x : tensor<4xf32>
            }}""",
        # JIT Fallback's call-back op naming a process symbol
        "host_callback": f"""
            func.func @main{SIG} {{
              %y = mindir.host_callback @system "x (m.py:1)" (%x) : (tensor<4xf32>) -> tensor<4xf32>
              return %y : tensor<4xf32>
            }}""",
        # llvm attributes that steer the lowering (linkage / C interface of the entry)
        "llvm_attribute": f"""
            func.func @main{SIG} attributes {{llvm.linkage = #llvm.linkage<external>}} {{
              return %x : tensor<4xf32>
            }}""",
        # a symbol reference hidden in a discardable attribute of a mindir op
        "hidden_symbol_ref": f"""
            func.func @main{SIG} {{
              %y = mindir.relu %x {{msmlir.target = @system}} : tensor<4xf32>
              return %y : tensor<4xf32>
            }}""",
        # an llvm op inside an otherwise ordinary function
        "inline_llvm_op": f"""
            func.func @main{SIG} {{
              %z = llvm.mlir.zero : !llvm.ptr
              return %x : tensor<4xf32>
            }}""",
    }


def _write_model(path, text):
    with context():
        module = ir.Module.parse(text)
        module.operation.verify()
        buf = io.BytesIO()
        module.operation.write_bytecode(buf)
    body = buf.getvalue()
    spec = [{"shape": [4], "dtype": "float32"}]
    header = json.dumps({
        "format": "msmlir.mindir", "version": 1, "entry": "main", "inputs": spec,
        "outputs": spec, "out_spec": "L", "bytecode_nbytes": len(body),
        "sha256": hashlib.sha256(body).hexdigest(), "producer": "msmlir 0.1.0"}).encode()
    with open(path, "wb") as f:
        f.write(PREFIX.pack(b"MSMLMIR\0", 1, 0, len(header)) + header + body)


@pytest.mark.parametrize("isolated", [True, False])
@pytest.mark.parametrize("variant", sorted(_variants("M")))
def test_crafted_model_is_refused_and_runs_nothing(tmp_path, variant, isolated):
    marker = tmp_path / "pwned"
    path = str(tmp_path / f"{variant}.mindir")
    _write_model(path, _variants(marker)[variant])
    with pytest.raises(CheckpointFormatError, match="not allowed|does not define"):
        g = ms.load(path, isolated=isolated)
        g(np.ones(4, np.float32))     # only reached if the check failed
    assert not marker.exists(), "the model ran a shell command"


def test_refusal_names_the_op_and_file(tmp_path):
    path = str(tmp_path / "evil.mindir")
    _write_model(path, _variants(tmp_path / "x")["llvm_call_system"])
    with pytest.raises(CheckpointFormatError) as e:
        ms.load(path)
    msg = str(e.value)
    assert "evil.mindir" in msg and "llvm." in msg and "not allowed in a model" in msg


def test_an_honest_model_still_loads(tmp_path):
    """The allow-list admits what export writes (control flow, grad, kernels' ops)."""
    def loss(x):
        y = ms.ops.sin(x)
        if y.sum() > 0:
            y = y * 2.0
        return (y * y).sum()

    path = str(tmp_path / "ok.mindir")
    x = np.linspace(-1, 2, 4).astype(np.float32)
    ms.export(ms.grad(loss), x, file_name=path)
    out = ms.load(path)(x).asnumpy()
    np.testing.assert_allclose(out, 8 * np.sin(x) * np.cos(x), rtol=1e-5)


def test_linker_binds_only_the_runtime_libm_and_memory_functions():
    assert set(resolve(["expf", "malloc", "free", "memrefCopy", "__kmpc_fork_call"])) == {
        "expf", "malloc", "free", "memrefCopy", "__kmpc_fork_call"}
    # libc's system is reachable through every library's dependencies with dlsym:
    # the linker checks which file defines a symbol, so none of these resolve;
    # MPI's entry points only after msmlir.communication.init()
    for name in ["system", "popen", "execve", "dlopen", "mlirContextCreate",
                 "mlirAsyncRuntimeExecute", "__kmpc_system"]:
        with pytest.raises(UnresolvedSymbolError, match=f"@{name}"):
            resolve([name])


def test_hand_written_ir_cannot_call_process_functions(tmp_path):
    marker = tmp_path / "pwned"
    text = f"""
        func.func private @system(i64) -> i32
        func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
          %c = arith.constant 0 : i64
          %r = func.call @system(%c) : (i64) -> i32
          return %x : tensor<4xf32>
        }}"""
    with pytest.raises(UnresolvedSymbolError, match="@system"):
        compile_mlir(text).call("main", np.ones(4, np.float32))
    assert not os.path.exists(marker)
