"""Checks on the tensor-core kernels of a compiled GPU program (ptxas)."""
from msmlir.gpu import ptxas


def mma_kernels(prog, chip):
    """[(name, ptxas report, ptx)] of the program's mma.sync kernels, each
    accepted by ptxas for `chip` without spills, stack or local memory (the
    accumulators stay in registers)."""
    out = []
    for name, r in ptxas.check_program(prog).items():
        ptx = prog.ptx[name]
        if "mma.sync" in ptx:
            assert not r.problems and not r.spills and r.stack == 0, r
            assert "ld.local" not in ptx and "st.local" not in ptx
            assert f".target {chip}" in ptx
            out.append((name, r, ptx))
    return out
