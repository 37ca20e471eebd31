"""Cube kernels: a plain f32 matmul kernel (fill 0 + linalg.matmul) as Ascend
C on the cube unit (no pass).

Per output tile of baseM x baseN (tiles split over the cube cores by
GetBlockIdx), for each K step of baseK: A and B tiles GM (ND) -> L1 (A1/B1)
with DataCopy(..., Nd2NzParams) (ND -> NZ), L1 -> L0A/L0B with LoadData, one
fractal row at a time (NZ -> zZ), Mmad into L0C (the first K step
initialises C, the others accumulate), then Fixpipe L0C -> GM (NZ -> ND).
Every move goes through a TQue (AllocTensor / EnQue / DeQue / FreeTensor).
The layouts are those lib/ascendc_emu/ascendc_emu_cube.h documents.
Base sizes: baseM = baseN = min(128, dim rounded to 16), baseK = min(64, K
rounded to 8): A2 and B2 take 32 KiB of the 64 KiB L0A/L0B, C 64 KiB of the
128 KiB L0C. L1/L0 buffers are single (queues of depth 1: no double
buffering on the cube side yet). Transposed operands and fused epilogues are
group.py's (extra vector kernels over GM workspaces); batched matmuls are
not emitted (Unsupported).
"""
from __future__ import annotations

from mlir import ir

from ..common.linalg import matmul_info
from .plan import F32, Plan, Unsupported, Value, _const_scalar, camel, kind_of

CUBE_FIELDS = ("M", "N", "K", "baseM", "baseN", "baseK", "nTiles", "tileNum", "tilesPerCore", "blockDim")


def _al(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def matmul_parts(fn):
    """(matmul op, MatmulInfo, other compute ops) of a matmul kernel; Unsupported
    unless it holds one f32 matmul of two kernel arguments accumulating into 0."""
    ops = [op.operation for op in fn.regions[0].blocks[0].operations]
    mms = [op for op in ops if matmul_info(op) is not None]
    if len(mms) != 1:
        raise Unsupported("a matmul kernel with several matmuls (or a batched matmul)")
    mm = mms[0]
    info = matmul_info(mm)
    if _const_scalar(mm.operands[2]) != 0.0:
        raise Unsupported("a matmul accumulating into a non-zero initial value")
    block = fn.regions[0].blocks[0]
    for v in list(mm.operands)[:2]:
        if not (isinstance(v.owner, ir.Block) and v.owner == block):
            raise Unsupported("a matmul operand computed inside the kernel (a prologue)")
    others = [op for op in ops if op.name not in ("arith.constant", "tensor.empty", "linalg.fill",
                                                  "func.return") and op != mm]
    return mm, info, others


def plan_matmul(fn, kernel, *, soc, cores, model):
    """A kernel that is exactly C = A @ B (plain operands) -> one cube kernel."""
    mm, info, others = matmul_parts(fn)
    if info.a_km or info.b_nk:
        raise Unsupported("a matmul with a transposed operand")
    if others:
        raise Unsupported("a matmul with a fused epilogue")
    ret = [op.operation for op in fn.regions[0].blocks[0].operations][-1]
    if len(ret.operands) != 1 or ret.operands[0] != mm.results[0]:
        raise Unsupported("a matmul kernel returning something else than the product")
    args = list(fn.regions[0].blocks[0].arguments)
    if len(args) != 2 or list(mm.operands)[:2] != args:
        raise Unsupported("matmul operands that are not the kernel's two arguments in order")
    return cube_plan(info.m, info.n, info.k, kernel, ir.StringAttr(fn.attributes["sym_name"]).value,
                     kind_of(fn), soc=soc, cores=cores, model=model)


def cube_plan(M: int, N: int, K: int, kernel: str, func: str, kind: str, *, soc, cores, model) -> Plan:
    """The cube kernel of C[M, N] = A[M, K] @ B[K, N] (all row-major in GM)."""
    bm, bn, bk = min(128, _al(M, 16)), min(128, _al(N, 16)), min(64, _al(K, 8))
    l0a, l0b, l0c = bm * bk * F32, _al(bk, 16) * _al(bn, 8) * F32, bm * bn * F32
    l1 = bm * bk * F32 + _al(bk, 16) * bn * F32
    for what, need, cap in (("L0A", l0a, model.l0a), ("L0B", l0b, model.l0b), ("L0C", l0c, model.l0c),
                            ("L1", l1, model.l1)):
        if need > cap:
            raise Unsupported(f"{what} needs {need} bytes (has {cap})")
    mt, nt = -(-M // bm), -(-N // bn)
    tiles = mt * nt
    block_dim = min(cores, tiles)
    per = -(-tiles // block_dim)
    block_dim = -(-tiles // per)
    tiling = {"M": M, "N": N, "K": K, "baseM": bm, "baseN": bn, "baseK": bk, "nTiles": nt, "tileNum": tiles,
              "tilesPerCore": per, "blockDim": block_dim}
    va = Value("in0", "full", "input", index=0)
    vb = Value("in1", "full", "input", index=1)
    vc = Value("out0", "full", "output", index=0)
    plan = Plan(kernel=kernel, func=func, kind=kind,
                inputs=[(va, M * K), (vb, K * N)], outputs=[(vc, M * N)], tiling=None, full_slots=0,
                row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[], cols=[], soc=soc,
                double_buffer=False)
    plan.shapes = {"in": [[M, K], [K, N]], "out": [[M, N]]}
    plan.cube = {"tiling": tiling, "tiles": tiles, "tile": f"{bm}x{bn}x{bk}", "l1_bytes": l1, "l0a_bytes": l0a,
                 "l0b_bytes": l0b, "l0c_bytes": l0c}
    return plan


def kernel_source(plan: Plan, bug: str = "") -> str:
    op = camel(plan.kernel)
    t = plan.cube["tiling"]
    return f"""// Ascend C cube kernel generated by msmlir (mskernel-lower-to-ascend, soc={plan.soc}) from the
// kernel function @{plan.func}: C[{t['M']}, {t['N']}] = A[{t['M']}, {t['K']}] * B[{t['K']}, {t['N']}] (f32),
// base tile {plan.cube['tile']}, {t['tileNum']} output tiles over {t['blockDim']} cube cores.
#include "kernel_operator.h"
using namespace AscendC;

class Kernel{op} {{
 public:
  __aicore__ inline Kernel{op}() {{}}
  __aicore__ inline void Init(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0, const {op}TilingData& td) {{
    M = td.M; N = td.N; K = td.K; baseM = td.baseM; baseN = td.baseN; baseK = td.baseK; nTiles = td.nTiles;
    tileBegin = GetBlockIdx() * td.tilesPerCore;
    tileEnd = tileBegin + td.tilesPerCore < td.tileNum ? tileBegin + td.tilesPerCore : td.tileNum;
    aGm.SetGlobalBuffer((__gm__ float*)x0, M * K);
    bGm.SetGlobalBuffer((__gm__ float*)x1, K * N);
    cGm.SetGlobalBuffer((__gm__ float*)y0, M * N);
    uint32_t k16 = (baseK + 15) / 16 * 16, n8 = (baseN + 7) / 8 * 8;
    pipe.InitBuffer(a1Que, 1, baseM * baseK * sizeof(float));
    pipe.InitBuffer(b1Que, 1, k16 * baseN * sizeof(float));
    pipe.InitBuffer(a2Que, 1, baseM * baseK * sizeof(float));
    pipe.InitBuffer(b2Que, 1, k16 * n8 * sizeof(float));
    pipe.InitBuffer(c1Que, 1, baseM * baseN * sizeof(float));
  }}

  __aicore__ inline void Process() {{
    for (uint32_t t = tileBegin; t < tileEnd; ++t) {{
      uint32_t m0 = (t / nTiles) * baseM, n0 = (t % nTiles) * baseN;
      uint32_t mt = M - m0 < baseM ? M - m0 : baseM, nt = N - n0 < baseN ? N - n0 : baseN;
      LocalTensor<float> c1 = c1Que.AllocTensor<float>();
      for (uint32_t k0 = 0; k0 < K; k0 += baseK) {{
        uint32_t kt = K - k0 < baseK ? K - k0 : baseK;
        CopyInA(m0, k0, mt, kt);
        CopyInB(k0, n0, kt, nt);
        SplitA(mt, kt);
        SplitB(kt, nt);
        LocalTensor<float> a2 = a2Que.DeQue<float>();
        LocalTensor<float> b2 = b2Que.DeQue<float>();
        MmadParams mp{{(uint16_t)mt, (uint16_t)nt, (uint16_t)kt, false, 0, false, false, false}};
        mp.cmatrixInitVal = k0 == 0;
        Mmad(c1, a2, b2, mp);
        a2Que.FreeTensor(a2);
        b2Que.FreeTensor(b2);
      }}
      c1Que.EnQue(c1);
      LocalTensor<float> c = c1Que.DeQue<float>();
      Fixpipe(cGm[m0 * N + n0], c, FixpipeParamsV220{{(uint16_t)nt, (uint16_t)mt, (uint16_t)((mt + 15) / 16 * 16), N, true}});
      c1Que.FreeTensor(c);
    }}
  }}

 private:
  // GM (ND) -> L1 (NZ: fractals of 16 rows x 8 columns)
  __aicore__ inline void CopyInA(uint32_t m0, uint32_t k0, uint32_t mt, uint32_t kt) {{
    LocalTensor<float> a1 = a1Que.AllocTensor<float>();
    DataCopy(a1, aGm[m0 * K + k0], Nd2NzParams{{1, (uint16_t)mt, (uint16_t)kt, 0, (uint16_t)K, (uint16_t)((mt + 15) / 16 * 16), 1, 0}});
    a1Que.EnQue(a1);
  }}
  __aicore__ inline void CopyInB(uint32_t k0, uint32_t n0, uint32_t kt, uint32_t nt) {{
    LocalTensor<float> b1 = b1Que.AllocTensor<float>();
    DataCopy(b1, bGm[k0 * N + n0], Nd2NzParams{{1, (uint16_t)kt, (uint16_t)nt, 0, (uint16_t)N, (uint16_t)((kt + 15) / 16 * 16), 1, 0}});
    b1Que.EnQue(b1);
  }}
  // L1 (NZ) -> L0A (zZ), one row of fractals per LoadData
  __aicore__ inline void SplitA(uint32_t mt, uint32_t kt) {{
    LocalTensor<float> a1 = a1Que.DeQue<float>();
    LocalTensor<float> a2 = a2Que.AllocTensor<float>();
    uint32_t mf = (mt + 15) / 16, kf = (kt + 7) / 8;
    for (uint32_t i = 0; i < mf; ++i)
      LoadData(a2[i * kf * 128], a1, LoadData2DParams{{(uint16_t)i, (uint8_t)kf, (uint16_t)mf, 0, 0, false, 0}});
    a2Que.EnQue(a2);
    a1Que.FreeTensor(a1);
  }}
  // L1 (NZ) -> L0B (zZ)
  __aicore__ inline void SplitB(uint32_t kt, uint32_t nt) {{
    LocalTensor<float> b1 = b1Que.DeQue<float>();
    LocalTensor<float> b2 = b2Que.AllocTensor<float>();
    uint32_t kf = (kt + 15) / 16, nf = (nt + 7) / 8;
    for (uint32_t i = 0; i < kf; ++i)
      LoadData(b2[i * nf * 128], b1, LoadData2DParams{{(uint16_t)i, (uint8_t)nf, (uint16_t)kf, 0, 0, false, 0}});
    b2Que.EnQue(b2);
    b1Que.FreeTensor(b1);
  }}

  TPipe pipe;
  TQue<QuePosition::A1, 1> a1Que;
  TQue<QuePosition::B1, 1> b1Que;
  TQue<QuePosition::A2, 1> a2Que;
  TQue<QuePosition::B2, 1> b2Que;
  TQue<QuePosition::CO1, 1> c1Que;
  GlobalTensor<float> aGm, bGm, cGm;
  uint32_t M, N, K, baseM, baseN, baseK, nTiles, tileBegin, tileEnd;
}};

extern "C" __global__ __aicore__ void {plan.kernel}(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0, GM_ADDR workspace, GM_ADDR tiling) {{
  GET_TILING_DATA(tilingData, tiling);
  Kernel{op} op;
  op.Init(x0, x1, y0, tilingData);
  op.Process();
}}
"""
