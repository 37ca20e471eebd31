"""ptxas in the loop: every kernel of the model zoo (bench B1-B6: the LeNet5 and
MLP train steps, gelu, softmax, layernorm, matmul) compiles to PTX for sm_90
that ptxas accepts; the -v figures are parsed; limits give remarks."""
import pytest

from msmlir.gpu import ptxas

pytestmark = pytest.mark.skipif(ptxas.find_ptxas() is None,
                                reason="no ptxas (pip install -e '.[gpu]')")

# Distinct device kernels per program as compiled today (a change is worth a look).
MIN_KERNELS = {"B1": 1, "B2": 6, "B3": 7, "B4": 2, "B5": 40, "B6": 90}


@pytest.mark.slow
@pytest.mark.parametrize("key", ["B1", "B2", "B3", "B4", "B5", "B6"])
def test_every_kernel_assembles_for_sm_90(zoo_programs, key):
    prog = zoo_programs[key]
    assert len(prog.objects) >= MIN_KERNELS[key]
    for name, ptx in prog.ptx.items():
        assert ".target sm_90" in ptx and ".version 8.0" in ptx, name
    reports = ptxas.check_program(prog)
    assert set(reports) == set(prog.objects)
    for name, r in reports.items():
        assert 0 < r.registers <= 255, (name, r)
        assert r.threads > 0 and r.threads <= 1024, (name, r)
        assert not r.problems, (name, r.problems)
    # every launch names a kernel that ptxas assembled
    assert {launch.kernel for launch in prog.launches} == set(reports)


LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k0' for 'sm_90'
ptxas info    : Function properties for k0
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers, 380 bytes cmem[0]
ptxas info    : Compiling entry function 'k1' for 'sm_90'
ptxas info    : Function properties for k1
    64 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, 400 bytes cmem[0]
"""


def test_parse_verbose_and_limits():
    r = ptxas.parse_verbose(LOG)
    assert (r["k0"].registers, r["k0"].shared, r["k0"].cmem, r["k0"].spills) == (12, 0, 380, False)
    k1 = r["k1"]
    assert (k1.registers, k1.shared, k1.stack, k1.spill_stores, k1.spill_loads) == (255, 4096, 64, 24, 16)
    k1.threads = 512
    problems = ptxas._problems(k1)
    assert any("spills 24 bytes" in p for p in problems)
    assert any("255 registers x 512 threads" in p for p in problems)
    k0 = r["k0"]
    k0.threads = 1024
    assert ptxas._problems(k0) == []


def test_rejected_ptx_is_an_error():
    bad = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n"
    with pytest.raises(ptxas.PtxasError, match="rejected the PTX"):
        ptxas.assemble(bad, "sm_90")


def test_assemble_gives_a_cubin_and_figures():
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n"
           ".visible .entry k(.param .u64 p) {\n .reg .b64 %rd<3>;\n .reg .f32 %f<2>;\n"
           " ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd2, %rd1;\n"
           " ld.global.f32 %f1, [%rd2];\n add.f32 %f1, %f1, %f1;\n st.global.f32 [%rd2], %f1;\n ret;\n}\n")
    cubin, reports, log = ptxas.assemble(ptx, "sm_90")
    assert cubin[:4] == b"\x7fELF"
    assert reports["k"].registers > 0 and not reports["k"].spills, log


def test_no_ptxas_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(ptxas, "find_ptxas", lambda: None)
    with pytest.raises(FileNotFoundError, match=r"no ptxas: pip install 'msmlir\[gpu\]'"):
        ptxas.assemble(".version 8.0\n.target sm_90\n", "sm_90")


@pytest.mark.slow
@pytest.mark.parametrize("key,tiled", [("B4", 1), ("B5", 8), ("B6", 9)])
def test_matmul_kernels_are_tiled(zoo_programs, key, tiled):
    """Every matmul kernel of B4 and of the MLP / LeNet5 train steps (forward
    x @ w^T, the dx = dy @ w and dw = dy^T @ x gradients) has a device kernel
    with the shared-memory tiles, register tiles without spills or local memory,
    and fma."""
    prog = zoo_programs[key]
    reports = ptxas.check_program(prog, remarks=False)
    kernels = {}
    for name, r in reports.items():
        kernels.setdefault(name.rsplit("_kernel", 1)[0], []).append((name, r))
    matmuls = {k: v for k, v in kernels.items() if "_matmul_" in k}
    assert len(matmuls) == tiled
    for k, binaries in matmuls.items():
        staged = [(n, r) for n, r in binaries if r.shared]
        assert len(staged) == 1, k
        name, r = staged[0]
        ptx = prog.ptx[name]
        assert "bar.sync" in ptx and "fma.rn.f32" in ptx and "ld.local" not in ptx, k
        assert not r.spills and r.stack == 0 and r.registers <= 128, (k, r)
