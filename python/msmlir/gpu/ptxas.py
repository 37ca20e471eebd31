"""ptxas in the loop: every generated kernel assembled for its chip, with its resource usage.

`find_ptxas()` is the ptxas of the `nvidia-cuda-nvcc` wheel (the `gpu`
extra), else $CUDA_HOME's, else PATH's (passes/gpu/target.py); None when
there is none. `assemble(ptx, chip)` runs `ptxas -arch=<chip> -v` on one PTX
module and parses, per kernel, the registers, static shared memory, stack
frame, spill stores/loads and constant bank 0 bytes. `check_program(prog)`
does that for every gpu.binary of a compiled program (format=isa) and
returns the reports; a kernel that spills, or that cannot launch with its
block size (registers x threads > 64 Ki, shared memory > 48 KiB static), is
reported with an MLIR remark at the module, and `KernelReport.problems`
says why: msmlir.gpu.replan re-plans such kernels with smaller tiles.
`maxrregcount` checks a register budget (as -maxrregcount and as `.maxnreg`:
a kernel's `.maxntid` launch bound overrides the flag).
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field

from msmlir.passes.gpu.target import ptxas_path

REGISTERS_PER_BLOCK = 64 * 1024
STATIC_SHARED = 48 * 1024


class PtxasError(RuntimeError):
    """ptxas rejected a PTX module (the message holds its log)."""


@dataclass
class KernelReport:
    name: str
    registers: int = 0
    shared: int = 0            # static shared memory bytes
    stack: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    cmem: int = 0
    threads: int = 0           # threads per block of its launch (0: unknown)
    problems: list[str] = field(default_factory=list)

    @property
    def spills(self) -> bool:
        return bool(self.spill_stores or self.spill_loads)


def find_ptxas() -> str | None:
    return ptxas_path()


_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[0\]")


def parse_verbose(log: str) -> dict[str, KernelReport]:
    """The per-kernel figures of a `ptxas -v` log."""
    out: dict[str, KernelReport] = {}
    cur = None
    for line in log.splitlines():
        m = _ENTRY.search(line) or _PROPS.search(line)
        if m:
            cur = out.setdefault(m.group(1), KernelReport(m.group(1)))
            continue
        if cur is None:
            continue
        m = _FRAME.search(line)
        if m:
            cur.stack, cur.spill_stores, cur.spill_loads = map(int, m.groups())
        m = _USED.search(line)
        if m:
            cur.registers = int(m.group(1))
            s = _SMEM.search(line)
            cur.shared = int(s.group(1)) if s else 0
            c = _CMEM.search(line)
            cur.cmem = int(c.group(1)) if c else 0
    return out


def assemble(ptx: str | bytes, chip: str = "sm_90", *, ptxas: str | None = None,
             maxrregcount: int = 0) -> tuple[bytes, dict[str, KernelReport], str]:
    """(cubin, {kernel: report}, log) of one PTX module; PtxasError if rejected.
    `maxrregcount` > 0: ptxas's register budget per thread (-maxrregcount)."""
    exe = ptxas or find_ptxas()
    if exe is None:
        raise FileNotFoundError("no ptxas: pip install 'msmlir[gpu]' (nvidia-cuda-nvcc) or put "
                                "CUDA's ptxas on PATH")
    text = ptx if isinstance(ptx, str) else ptx.decode()
    if maxrregcount:
        # a kernel's .maxntid (its launch bounds) overrides -maxrregcount: the
        # budget as the PTX directive too
        text = re.sub(r"(\.maxntid[^\n]*)", rf"\1\n.maxnreg {maxrregcount}", text)
    with tempfile.TemporaryDirectory(prefix="msmlir-ptxas-") as d:
        src, out = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as f:
            f.write(text)
        budget = [f"-maxrregcount={maxrregcount}"] if maxrregcount else []
        proc = subprocess.run([exe, f"-arch={chip}", "-v", *budget, "-o", out, src],
                              capture_output=True, text=True, timeout=300)
        log = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise PtxasError(f"ptxas -arch={chip} rejected the PTX (status {proc.returncode}):\n"
                             f"{log.strip()}")
        with open(out, "rb") as f:
            cubin = f.read()
    return cubin, parse_verbose(log), log


def _problems(r: KernelReport) -> list[str]:
    out = []
    if r.spills:
        out.append(f"spills {r.spill_stores} bytes (stores) / {r.spill_loads} bytes (loads)")
    if r.threads and r.registers * r.threads > REGISTERS_PER_BLOCK:
        out.append(f"{r.registers} registers x {r.threads} threads exceeds the "
                   f"{REGISTERS_PER_BLOCK} registers of a block")
    if r.shared > STATIC_SHARED:
        out.append(f"{r.shared} bytes of static shared memory exceeds {STATIC_SHARED}")
    return out


def check_program(prog, *, remarks: bool = True, maxrregcount: int = 0,
                  ) -> dict[str, KernelReport]:
    """Assembles every kernel of a compiled GpuProgram (format=isa) with ptxas;
    {gpu.binary name: report}. Raises PtxasError on the first rejected kernel.
    (msmlir.gpu.replan re-plans the kernels with problems.)"""
    if prog.options.get("format", "isa") != "isa":
        raise ValueError("check_program needs PTX: compile with format='isa'")
    chip = prog.options["chip"]
    threads = {}
    for launch in prog.launches:
        threads[launch.kernel] = max(threads.get(launch.kernel, 0), launch.threads)
    reports = {}
    for name, ptx in prog.ptx.items():
        _, per_kernel, _ = assemble(ptx, chip, maxrregcount=maxrregcount)
        for r in per_kernel.values():
            r.threads = threads.get(name, 0)
            r.problems = _problems(r)
            reports[name] = r
            if r.problems and remarks:
                from msmlir.passes.common.diagnostics import emit_remark
                emit_remark(prog.module.operation.location,
                            f"ptxas: kernel {name} {'; '.join(r.problems)}")
    return reports
