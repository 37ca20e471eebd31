"""threads > 1 runs big ops as OpenMP regions on LLVM's libomp (the
cmeel-libomp wheel): the lowered module has omp.parallel/omp.wsloop, the
OpenMP entry points (which appear only at LLVM IR translation) are bound
explicitly from libomp and nothing else, results equal the serial code's, and
a process that trains with PyTorch (libgomp) and runs msmlir's threads works."""
import subprocess
import sys

import numpy as np
import pytest

from msmlir.runtime import linker
from cg_helpers import compile_with

SOFTMAX = """
func.func @f(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %y = mindir.softmax %x {axis = 1 : i64} : tensor<512x1024xf32>
  return %y : tensor<512x1024xf32>
}
"""

MATMUL_RELU = """
func.func @f(%a: tensor<256x384xf32>, %b: tensor<384x320xf32>) -> tensor<256x320xf32> {
  %c = mindir.matmul %a, %b : (tensor<256x384xf32>, tensor<384x320xf32>) -> tensor<256x320xf32>
  %r = mindir.relu %c : tensor<256x320xf32>
  return %r : tensor<256x320xf32>
}
"""


def test_libomp_is_found_and_defines_the_entry_points():
    path = linker.libomp_path()
    assert path is not None and path.endswith("libomp.so")
    addresses = linker.resolve(["__kmpc_fork_call", "__kmpc_for_static_init_8u"])
    assert all(addresses.values())


def test_openmp_entry_points_resolve_only_from_libomp():
    # an OpenMP-looking name libomp does not define is not looked up elsewhere
    with pytest.raises(linker.UnresolvedSymbolError, match="__kmpc_not_a_function"):
        linker.resolve(["__kmpc_not_a_function"])


@pytest.mark.parametrize("text,make_args,reference", [
    (SOFTMAX, lambda r: [r.standard_normal((512, 1024), dtype=np.float32)],
     lambda x: np.exp(x - x.max(-1, keepdims=True)) / np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)),
    (MATMUL_RELU, lambda r: [r.standard_normal((256, 384), dtype=np.float32),
                             r.standard_normal((384, 320), dtype=np.float32)],
     lambda a, b: np.maximum(a @ b, 0)),
], ids=["softmax", "matmul_relu"])
def test_threads_run_openmp_regions_with_serial_results(text, make_args, reference):
    args = make_args(np.random.default_rng(0))
    serial = compile_with(text, codegen=True, threads=1)
    threaded = compile_with(text, codegen=True, threads=2)
    assert "omp.parallel" in str(threaded.llvm_ir) and "omp.parallel" not in str(serial.llvm_ir)
    a = serial.call("f", *args)[0]
    b = threaded.call("f", *args)[0]
    np.testing.assert_array_equal(a, b)          # same tiles, same order per element
    np.testing.assert_allclose(b, reference(*[x.astype(np.float64) for x in args]),
                               rtol=2e-5, atol=2e-5)


SCRIPT = r"""
import numpy as np, torch
import msmlir
from msmlir import ops
from msmlir.passes.registry import get_pass, set_option_defaults
set_option_defaults("msmlir-cpu-pipeline", {"threads": 2})
x = np.random.default_rng(0).standard_normal((1024, 512)).astype(np.float32)
f = msmlir.jit(lambda a: ops.softmax(a * 2.0, axis=-1))
model = torch.nn.Linear(512, 8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    y = f(x)
    loss = model(torch.from_numpy(np.asarray(y))).square().mean()
    opt.zero_grad(); loss.backward(); opt.step()
e = np.exp(2 * x - (2 * x).max(-1, keepdims=True))
np.testing.assert_allclose(np.asarray(f(x)), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)
print("ok", "libomp.so" in open("/proc/self/maps").read())
"""


def test_threads_next_to_pytorch():
    pytest.importorskip("torch")
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["ok", "True"]
