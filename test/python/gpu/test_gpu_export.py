"""AOT round trip: export_cubin writes cubins + manifest.json + runner.py; the
runner runs in a subprocess against a fake libcuda (a small C library built
here with `cc`, logging cuModuleLoadData / cuMemAlloc / cuMemcpy* /
cuLaunchKernel) and the launches it makes are checked against the manifest,
the compiled program (grid/block) and the kernels' PTX parameter lists."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest

from msmlir.gpu import compile_gpu
from msmlir.gpu.export import ExportError, export_cubin
from msmlir.gpu.ptxas import find_ptxas

pytestmark = [pytest.mark.skipif(find_ptxas() is None, reason="no ptxas (pip install -e '.[gpu]')"),
              pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler for the fake libcuda")]

FAKE_CUDA = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef uint64_t CUdeviceptr;
static FILE *out(void) {
  static FILE *f;
  if (!f) f = fopen(getenv("FAKE_CUDA_LOG"), "w");
  return f;
}
typedef struct { char name[256]; } Func;
int cuInit(unsigned flags) { fprintf(out(), "init\n"); return 0; }
int cuDeviceGet(int *d, int ordinal) { *d = ordinal; return 0; }
int cuDevicePrimaryCtxRetain(void **ctx, int dev) { *ctx = (void *)0x1; return 0; }
int cuCtxSetCurrent(void *ctx) { return 0; }
int cuCtxSynchronize(void) { fprintf(out(), "sync\n"); fflush(out()); return 0; }
int cuModuleLoadData(void **mod, const void *image) {
  const unsigned char *p = image;
  *mod = (void *)image;
  fprintf(out(), "load %02x%02x%02x%02x\n", p[0], p[1], p[2], p[3]);
  return 0;
}
int cuModuleGetFunction(void **fn, void *mod, const char *name) {
  Func *f = calloc(1, sizeof(Func));
  strncpy(f->name, name, sizeof f->name - 1);
  *fn = f;
  return 0;
}
int cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  void *m = calloc(1, bytes);
  *p = (CUdeviceptr)m;
  fprintf(out(), "alloc %llu %zu\n", (unsigned long long)*p, bytes);
  return m ? 0 : 2;
}
int cuMemFree_v2(CUdeviceptr p) { free((void *)p); return 0; }
int cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) {
  memcpy((void *)d, s, n); fprintf(out(), "htod %llu %zu\n", (unsigned long long)d, n); return 0;
}
int cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) {
  memcpy(d, (void *)s, n); fprintf(out(), "dtoh %llu %zu\n", (unsigned long long)s, n); return 0;
}
int cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) {
  memmove((void *)d, (void *)s, n);
  fprintf(out(), "dtod %llu %llu %zu\n", (unsigned long long)d, (unsigned long long)s, n);
  return 0;
}
int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  const unsigned char *buf = 0; size_t size = 0;
  for (int i = 0; extra && extra[i] != (void *)0; i += 2) {
    if (extra[i] == (void *)1) buf = extra[i + 1];
    else if (extra[i] == (void *)2) size = *(size_t *)extra[i + 1];
  }
  fprintf(out(), "launch %s %u %u %u %u %u %u %u ", ((Func *)fn)->name, gx, gy, gz, bx, by, bz,
          shared);
  for (size_t i = 0; i < size; i++) fprintf(out(), "%02x", buf[i]);
  fprintf(out(), "\n");
  return params == 0 && buf ? 0 : 1;
}
"""

# A small MLP layer + softmax: matmul, broadcast add, relu, block reductions, a copy.
MLP = """
func.func @mlp(%x: tensor<16x40xf32>, %w: tensor<40x48xf32>, %b: tensor<48xf32>) -> tensor<16x48xf32> {
  %m = mindir.matmul %x, %w : (tensor<16x40xf32>, tensor<40x48xf32>) -> tensor<16x48xf32>
  %a = mindir.add %m, %b : (tensor<16x48xf32>, tensor<48xf32>) -> tensor<16x48xf32>
  %r = mindir.relu %a : tensor<16x48xf32>
  %s = "mindir.softmax"(%r) {axis = -1 : i64} : (tensor<16x48xf32>) -> tensor<16x48xf32>
  return %s : tensor<16x48xf32>
}"""


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory):
    d = tmp_path_factory.mktemp("fakecuda")
    (d / "fake.c").write_text(FAKE_CUDA)
    lib = d / "libfakecuda.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(lib), str(d / "fake.c")], check=True)
    return str(lib)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    path = export_cubin(MLP, str(out))
    return str(out), json.load(open(path))


def _ptx_params(ptx: str, entry: str) -> list[str]:
    """The .param types of kernel `entry`, in order."""
    m = re.search(r"\.entry " + re.escape(entry) + r"\((.*?)\)", ptx, re.S)
    return re.findall(r"\.param \.(\w+)", m.group(1))


def _decode(blob: bytes, types: list[str]) -> list:
    out, pos = [], 0
    for t in types:
        size = int(t[1:]) // 8
        pos += -pos % size
        fmt = {"u64": "<Q", "b64": "<Q", "s64": "<q", "f32": "<f", "u32": "<I", "s32": "<i",
               "f64": "<d", "b32": "<I"}[t]
        out.append(struct.unpack_from(fmt, blob, pos)[0])
        pos += size
    assert pos == len(blob), (pos, len(blob))
    return out


def test_manifest_describes_the_program(exported):
    out, manifest = exported
    assert manifest["chip"] == "sm_90" and manifest["version"] == 1
    fn = manifest["functions"]["mlp"]
    kinds = [b["kind"] for b in fn["buffers"]]
    assert kinds[:4] == ["input", "input", "input", "output"]
    assert fn["buffers"][3]["shape"] == [16, 48] and fn["buffers"][3]["bytes"] == 16 * 48 * 4
    launches = [s for s in fn["steps"] if s["op"] == "launch"]
    assert launches, fn["steps"]
    for s in launches:
        assert s["module"] in manifest["modules"]
        assert 1 <= s["block"][0] * s["block"][1] * s["block"][2] <= 1024
    for name, m in manifest["modules"].items():
        with open(os.path.join(out, m["file"]), "rb") as f:
            assert f.read(4) == b"\x7fELF"
        assert m["registers"] > 0 and m["spill_bytes"] == 0
    # the softmax rows (48 wide) are reduced by blocks in shared memory
    assert any(m["shared_static"] > 0 for m in manifest["modules"].values())
    # the grids/blocks are those of the compiled program
    prog = compile_gpu(MLP)
    assert [(s["module"], tuple(s["grid"]), tuple(s["block"])) for s in launches] == \
        [(l.kernel, l.grid, l.block) for l in prog.launches]


def test_runner_replays_the_manifest_on_a_fake_libcuda(exported, fake_libcuda, tmp_path):
    out, manifest = exported
    fn = manifest["functions"]["mlp"]
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in ((16, 40), (40, 48), (48,))]
    files = []
    for i, a in enumerate(inputs):
        files.append(str(tmp_path / f"in{i}.npy"))
        np.save(files[-1], a)
    log = tmp_path / "cuda.log"
    env = dict(os.environ, MSMLIR_LIBCUDA=fake_libcuda, FAKE_CUDA_LOG=str(log))
    proc = subprocess.run([sys.executable, os.path.join(out, "runner.py"), out, "mlp", *files,
                           "--out", str(tmp_path / "outs")], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = log.read_text().splitlines()
    loads = [ln for ln in lines if ln.startswith("load ")]
    assert loads == ["load 7f454c46"] * len(manifest["modules"])     # ELF cubins
    allocs = [ln.split() for ln in lines if ln.startswith("alloc ")]
    assert [int(a[2]) for a in allocs] == [max(b["bytes"], 1) for b in fn["buffers"]]
    address = {b["id"]: int(a[1]) for b, a in zip(fn["buffers"], allocs)}
    htod = [ln.split() for ln in lines if ln.startswith("htod ")]
    assert [(int(h[1]), int(h[2])) for h in htod] == \
        [(address[i], inputs[i].nbytes) for i in range(3)]
    launches = [ln.split() for ln in lines if ln.startswith("launch ")]
    steps = [s for s in fn["steps"] if s["op"] == "launch"]
    assert len(launches) == len(steps)
    ptx = compile_gpu(MLP).ptx
    for got, step in zip(launches, steps):
        name, dims, blob = got[1], list(map(int, got[2:9])), bytes.fromhex(got[9])
        assert name == step["entry"]
        assert dims == step["grid"] + step["block"] + [step["shared"]]
        values = _decode(blob, _ptx_params(ptx[step["module"]], step["entry"]))
        i = 0
        for a in step["args"]:           # memref: allocated, aligned, offset, sizes, strides
            if a["kind"] == "memref":
                n = 3 + 2 * len(a["shape"])
                assert values[i:i + n] == [address[a["buffer"]]] * 2 + [a["offset"]] + \
                    a["shape"] + a["strides"]
                i += n
            else:
                assert values[i] == pytest.approx(a["value"]) or (np.isinf(a["value"]) and
                                                                  np.isinf(values[i]))
                i += 1
        assert i == len(values)
    # the output is downloaded from the output buffer after the sync
    assert lines[-1] == f"dtoh {address[3]} {16 * 48 * 4}"
    assert lines[-2] == "sync"
    got = np.load(tmp_path / "outs" / "out0.npy")
    assert got.shape == (16, 48) and got.dtype == np.float32


def test_host_control_flow_is_an_export_error(tmp_path):
    text = """
func.func @f(%x: tensor<4xf32>, %c: tensor<i1>) -> tensor<4xf32> {
  %p = tensor.extract %c[] : tensor<i1>
  %r = scf.if %p -> tensor<4xf32> {
    %a = mindir.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}"""
    with pytest.raises(ExportError, match="cannot express host op"):
        export_cubin(text, str(tmp_path))


def _export_writes_cubins() -> bool:
    """Whether msmlir.export takes file_format="CUBIN" (train/model_file.py)."""
    import inspect

    from msmlir.train import model_file
    return '"CUBIN"' in inspect.getsource(model_file.export)


@pytest.mark.skipif(not _export_writes_cubins(),
                    reason="msmlir.export does not take file_format='CUBIN' yet (train/model_file.py)")
def test_msmlir_export_cubin_of_a_cell_runs_on_a_fake_libcuda(fake_libcuda, tmp_path):
    """msmlir.export(net, x, file_name=DIR, file_format="CUBIN"): the Cell's
    graph with its Parameters embedded (constants, shipped as .npy), the
    runner taking the batch only."""
    import msmlir as ms
    from msmlir import Tensor, nn
    net = nn.SequentialCell([nn.Dense(40, 48), nn.ReLU()])
    x = np.random.default_rng(1).standard_normal((16, 40)).astype(np.float32)
    out = tmp_path / "art"
    path = ms.export(net, Tensor(x), file_name=str(out), file_format="CUBIN", chip="sm_90")
    manifest = json.load(open(path))
    fn, = manifest["functions"].values()
    assert fn["n_inputs"] == 1 and fn["n_outputs"] == 1
    consts = [b for b in fn["buffers"] if b["kind"] == "constant"]
    # the weight is a host constant uploaded by the runner (a small one, like
    # the bias, may be copied into its kernel's module instead)
    assert 48 * 40 * 4 in [b["bytes"] for b in consts]
    assert all(os.path.exists(out / b["file"]) for b in consts)
    np.save(tmp_path / "x.npy", x)
    log = tmp_path / "cuda.log"
    env = dict(os.environ, MSMLIR_LIBCUDA=fake_libcuda, FAKE_CUDA_LOG=str(log))
    name, = manifest["functions"]
    proc = subprocess.run([sys.executable, str(out / "runner.py"), str(out), name,
                           str(tmp_path / "x.npy"), "--out", str(tmp_path / "outs")],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = log.read_text().splitlines()
    htod = sorted(int(ln.split()[2]) for ln in lines if ln.startswith("htod "))
    assert htod == sorted([x.nbytes] + [b["bytes"] for b in consts])   # the batch, the constants
    assert np.load(tmp_path / "outs" / "out0.npy").shape == (16, 48)
    with pytest.raises(ValueError, match="file_format must be 'MINDIR' or 'CUBIN'"):
        ms.export(net, Tensor(x), file_name=str(out), file_format="ONNX")
