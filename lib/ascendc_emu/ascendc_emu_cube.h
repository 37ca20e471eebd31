// Ascend C CPU emulation, cube part (included by kernel_operator.h): GM -> L1
// with ND -> NZ conversion, L1 -> L0A/L0B (LoadData: 2D, and 3D v2 = img2col from a 5HD
// feature map), InitConstValue, Mmad into L0C, Fixpipe
// L0C -> GM with NZ -> ND conversion.
//
// Layouts as this emulator models them (f32/f16; C0 = 32 bytes / element size):
//   L1 (A1/B1)  NZ: a [rows, cols] matrix in fractals of 16 rows x C0 columns;
//               element (r, c) at ((c / C0) * dstNzC0Stride + r) * C0 + c % C0.
//   L0A / L0B   zZ: the same fractals in row-major fractal order;
//               element (r, c) at ((r / 16) * ceil(cols / C0) + c / C0) * 16 * C0
//               + (r % 16) * C0 + c % C0. (On hardware L0B holds B's fractals
//               transposed, nZ, via LoadData's transpose; not modelled.)
//   L0C (CO1)   NZ with 16 x 16 fractals of f32: element (r, c) at
//               ((c / 16) * ceil16(m) + r) * 16 + c % 16.
// Mmad reads exactly m x k of A and k x n of B (padding is never read).
#pragma once

namespace AscendC {

struct Nd2NzParams {
  uint16_t ndNum = 1, nValue = 0, dValue = 0, srcNdMatrixStride = 0, srcDValue = 0, dstNzC0Stride = 0,
           dstNzNStride = 1, dstNzMatrixStride = 0;
  Nd2NzParams() = default;
  Nd2NzParams(uint16_t nd, uint16_t n, uint16_t d, uint16_t sm, uint16_t sd, uint16_t c0s, uint16_t ns, uint16_t ms)
      : ndNum(nd), nValue(n), dValue(d), srcNdMatrixStride(sm), srcDValue(sd), dstNzC0Stride(c0s), dstNzNStride(ns),
        dstNzMatrixStride(ms) {}
};

// GM (ND, row pitch srcDValue) -> L1 (NZ): ndNum matrices of nValue rows x dValue columns,
// matrix i read from srcNdMatrixStride * i and written at dstNzMatrixStride * i (elements;
// each NZ matrix start 32-byte aligned).
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p) {
  const char* api = "DataCopy(GM->L1, Nd2NzParams)";
  const uint64_t c0 = 32 / sizeof(T);
  if (dst.hw() != emu::Hardware::L1) emu::fail(api, "ND->NZ copies go to L1 (A1/B1)");
  if (p.ndNum == 0) emu::fail(api, "ndNum is 0");
  if (p.ndNum > 1 && (uint64_t(p.dstNzMatrixStride) * sizeof(T)) % 32)
    emu::fail(api, "dstNzMatrixStride " + std::to_string(p.dstNzMatrixStride) + " elements is not 32-byte aligned");
  if (p.dstNzC0Stride < p.nValue || p.dstNzC0Stride % 16)
    emu::fail(api, "dstNzC0Stride " + std::to_string(p.dstNzC0Stride) + " must be >= nValue and a multiple of 16");
  const uint64_t need = (p.dValue + c0 - 1) / c0 * p.dstNzC0Stride * c0;
  dst.check_access(api, uint64_t(p.ndNum - 1) * p.dstNzMatrixStride + need, true);
  for (uint64_t m = 0; m < p.ndNum; ++m) {
    T* d = dst.data() + m * p.dstNzMatrixStride;
    const uint64_t s0 = m * p.srcNdMatrixStride;
    for (uint64_t r = 0; r < p.nValue; ++r) {
      src.check(s0 + r * p.srcDValue, p.dValue, api);
      for (uint64_t c = 0; c < p.dValue; ++c)
        d[((c / c0) * p.dstNzC0Stride + r) * c0 + c % c0] = src.GetPhyAddr()[s0 + r * p.srcDValue + c];
    }
  }
  emu::count_copy(uint64_t(p.ndNum) * p.nValue * p.dValue * sizeof(T));
}

struct LoadData2DParams {
  uint16_t startIndex = 0; uint8_t repeatTimes = 0; uint16_t srcStride = 0; uint8_t sid = 0; uint16_t dstGap = 0;
  bool ifTranspose = false; uint8_t addrMode = 0;
  LoadData2DParams() = default;
  LoadData2DParams(uint16_t s, uint8_t r, uint16_t ss, uint8_t sid_, uint16_t g, bool t, uint8_t a)
      : startIndex(s), repeatTimes(r), srcStride(ss), sid(sid_), dstGap(g), ifTranspose(t), addrMode(a) {}
};

// L1 -> L0A / L0B: repeatTimes fractals (512 bytes each), the i-th read at
// fractal startIndex + i * srcStride, written one after another (dstGap
// fractals between them).
template <typename T>
__aicore__ inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p) {
  const char* api = "LoadData(L1->L0)";
  const uint64_t f = 512 / sizeof(T);
  if (src.hw() != emu::Hardware::L1) emu::fail(api, "source must be in L1 (A1/B1)");
  if (dst.hw() != emu::Hardware::L0A && dst.hw() != emu::Hardware::L0B) emu::fail(api, "destination must be L0A or L0B");
  if (p.ifTranspose) emu::fail(api, "ifTranspose is not emulated");
  if (p.repeatTimes == 0) emu::fail(api, "repeatTimes is 0");
  for (uint64_t i = 0; i < p.repeatTimes; ++i) {
    LocalTensor<T> s = src[(p.startIndex + i * p.srcStride) * f];
    LocalTensor<T> d = dst[i * (1 + p.dstGap) * f];
    s.check_access(api, f, true);
    d.check_access(api, f, true);
    std::memcpy(d.raw(), s.raw(), 512);
  }
  emu::count_copy(uint64_t(p.repeatTimes) * 512);
}

// L1 / L0A / L0B filled with a constant (Ascend C InitConstValue): repeatTimes
// repeats of blockNum blocks (32 B in L1, 512-byte fractals in L0A/L0B), dstGap
// blocks skipped after each repeat. conv.py zeroes the padded channels of its
// feature maps and filters with it (Load3D reads whole C0 channel blocks).
template <typename T>
struct InitConstValueParams {
  uint16_t repeatTimes = 0, blockNum = 0, dstGap = 0; T initValue = 0;
  InitConstValueParams() = default;
  InitConstValueParams(uint16_t r, uint16_t b, uint16_t g, T v) : repeatTimes(r), blockNum(b), dstGap(g), initValue(v) {}
};
template <typename T>
__aicore__ inline void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<T>& p) {
  const char* api = "InitConstValue";
  const emu::Hardware h = dst.hw();
  if (h != emu::Hardware::L1 && h != emu::Hardware::L0A && h != emu::Hardware::L0B)
    emu::fail(api, "destination must be L1 (A1/B1), L0A or L0B");
  if (p.repeatTimes == 0 || p.blockNum == 0) emu::fail(api, "repeatTimes and blockNum must be > 0");
  const uint64_t unit = (h == emu::Hardware::L1 ? 32 : 512) / sizeof(T);
  const uint64_t span = ((uint64_t(p.repeatTimes) - 1) * (p.blockNum + p.dstGap) + p.blockNum) * unit;
  dst.check_access(api, span, true);
  for (uint64_t r = 0; r < p.repeatTimes; ++r)
    for (uint64_t i = 0; i < uint64_t(p.blockNum) * unit; ++i) dst.data()[r * (p.blockNum + p.dstGap) * unit + i] = p.initValue;
}

// Load3D v2 (img2col): LoadData(L0A/L0B, L1 feature map, LoadData3DParamsV2).
// The L1 source is a feature map in the 5HD layout [channelSize / C0][l1H][l1W][C0]
// (C0 = 32 bytes / element size: 8 f32, 16 f16); channelSize must be a multiple of
// C0 (pad the channels with zeros). With padList {left, right, top, bottom},
//   Ho = (l1H + top + bottom - (filterH - 1) * dilationFilterH - 1) / strideH + 1 (Wo alike),
// the img2col matrix is X[m, k], m = ho * Wo + wo < Ho * Wo, k = ((c1 * filterH + kh) * filterW
// + kw) * C0 + c0 < channelSize * filterH * filterW:
//   X[m, k] = fmap[c1][ho * strideH - top + kh * dilationFilterH][wo * strideW - left + kw * dilationFilterW][c0]
// (padValue outside the map). Rows mStartPt .. + mExtension, columns kStartPt .. + kExtension
// (both multiples of C0) are written:
//   L0A: A = X (m x k) in the zZ layout (rows past mExtension up to the fractal: padValue);
//   L0B: B = X^T (k x n = the img2col's m): the cube always reduces over a fractal's C0 axis,
//        which here is the channel axis, so the img2col lands as a [K, M] right operand
//        (in this emulator's zZ model of L0B).
// enTranspose / enSmallK / filterSize* / fMatrixCtrl are not emulated (errors).
template <typename T>
struct LoadData3DParamsV2 {
  uint8_t padList[4] = {0, 0, 0, 0};
  uint16_t l1H = 0, l1W = 0, channelSize = 0, kExtension = 0, mExtension = 0, kStartPt = 0, mStartPt = 0;
  uint8_t strideW = 1, strideH = 1, filterW = 1, filterH = 1, dilationFilterW = 1, dilationFilterH = 1;
  bool enTranspose = false, enSmallK = false;
  T padValue = 0;
  bool filterSizeW = false, filterSizeH = false, fMatrixCtrl = false;
  LoadData3DParamsV2() = default;
  LoadData3DParamsV2(const uint8_t pad[4], uint16_t h, uint16_t w, uint16_t c, uint16_t ke, uint16_t me, uint16_t ks,
                     uint16_t ms, uint8_t sw, uint8_t sh, uint8_t fw, uint8_t fh, uint8_t dw, uint8_t dh, bool tr,
                     bool sk, T pv)
      : l1H(h), l1W(w), channelSize(c), kExtension(ke), mExtension(me), kStartPt(ks), mStartPt(ms), strideW(sw),
        strideH(sh), filterW(fw), filterH(fh), dilationFilterW(dw), dilationFilterH(dh), enTranspose(tr),
        enSmallK(sk), padValue(pv) {
    for (int i = 0; i < 4; ++i) padList[i] = pad[i];
  }
};

template <typename T>
__aicore__ inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<T>& p) {
  const char* api = "LoadData(L1->L0, LoadData3DParamsV2)";
  const int64_t c0 = 32 / sizeof(T);
  if (src.hw() != emu::Hardware::L1) emu::fail(api, "the feature map must be in L1 (A1/B1)");
  const bool toA = dst.hw() == emu::Hardware::L0A;
  if (!toA && dst.hw() != emu::Hardware::L0B) emu::fail(api, "destination must be L0A or L0B");
  if (p.enTranspose || p.enSmallK || p.filterSizeW || p.filterSizeH || p.fMatrixCtrl)
    emu::fail(api, "enTranspose / enSmallK / filterSize / fMatrixCtrl are not emulated");
  if (p.channelSize == 0 || p.channelSize % c0)
    emu::fail(api, "channelSize " + std::to_string(p.channelSize) + " must be a non-zero multiple of C0 = " +
                       std::to_string(c0) + " (pad the channels)");
  if (p.l1H == 0 || p.l1W == 0) emu::fail(api, "l1H and l1W must be > 0");
  if (!p.strideW || !p.strideH || !p.filterW || !p.filterH || !p.dilationFilterW || !p.dilationFilterH)
    emu::fail(api, "strides, filter sizes and dilations must be > 0");
  const int64_t pl = p.padList[0], pr = p.padList[1], pt = p.padList[2], pb = p.padList[3];
  const int64_t eh = (int64_t(p.filterH) - 1) * p.dilationFilterH + 1, ew = (int64_t(p.filterW) - 1) * p.dilationFilterW + 1;
  if (p.l1H + pt + pb < eh || p.l1W + pl + pr < ew)
    emu::fail(api, "the (dilated) filter is larger than the padded feature map");
  const int64_t Ho = (p.l1H + pt + pb - eh) / p.strideH + 1, Wo = (p.l1W + pl + pr - ew) / p.strideW + 1;
  const int64_t Ktot = int64_t(p.channelSize) * p.filterH * p.filterW;
  if (p.kExtension == 0 || p.kExtension % c0 || p.kStartPt % c0)
    emu::fail(api, "kStartPt and kExtension must be multiples of C0 = " + std::to_string(c0) + " (kExtension > 0)");
  if (p.kStartPt + p.kExtension > Ktot)
    emu::fail(api, "k range [" + std::to_string(p.kStartPt) + ", " + std::to_string(p.kStartPt + p.kExtension) +
                       ") beyond channelSize * filterH * filterW = " + std::to_string(Ktot));
  if (p.mExtension == 0 || p.mStartPt + p.mExtension > Ho * Wo)
    emu::fail(api, "m range [" + std::to_string(p.mStartPt) + ", " + std::to_string(p.mStartPt + p.mExtension) +
                       ") beyond the " + std::to_string(Ho) + " x " + std::to_string(Wo) + " output positions");
  src.check_access(api, uint64_t(p.channelSize) * p.l1H * p.l1W, true);
  const int64_t kf = p.kExtension / c0, m16 = (p.mExtension + 15) / 16 * 16;
  const int64_t nf = (p.mExtension + c0 - 1) / c0, k16 = (p.kExtension + 15) / 16 * 16;
  dst.check_access(api, toA ? uint64_t(m16 * kf * c0) : uint64_t(k16 * nf * c0), true);
  const T* fm = src.data();
  T* out = dst.data();
  for (int64_t i = 0; i < (toA ? m16 : int64_t(p.mExtension)); ++i)
    for (int64_t j = 0; j < p.kExtension; ++j) {
      T v = p.padValue;
      if (i < p.mExtension) {
        const int64_t m = p.mStartPt + i, k = p.kStartPt + j;
        const int64_t ho = m / Wo, wo = m % Wo, cc = k % c0, kw = (k / c0) % p.filterW;
        const int64_t kh = (k / c0 / p.filterW) % p.filterH, c1 = k / c0 / p.filterW / p.filterH;
        const int64_t ih = ho * p.strideH - pt + kh * p.dilationFilterH, iw = wo * p.strideW - pl + kw * p.dilationFilterW;
        if (ih >= 0 && ih < p.l1H && iw >= 0 && iw < p.l1W) v = fm[((c1 * p.l1H + ih) * p.l1W + iw) * c0 + cc];
      }
      if (toA) out[((i / 16) * kf + j / c0) * 16 * c0 + (i % 16) * c0 + j % c0] = v;
      else out[((j / 16) * nf + i / c0) * 16 * c0 + (j % 16) * c0 + i % c0] = v;
    }
  emu::count_copy(uint64_t(p.mExtension) * p.kExtension * sizeof(T));
}

struct MmadParams {
  uint16_t m = 0, n = 0, k = 0; bool isBias = false; int32_t fmOffset = 0; bool enSsparse = false,
  enWinogradA = false, enWinogradB = false; uint8_t unitFlag = 0; bool kDirectionAlign = false,
  cmatrixSource = false, cmatrixInitVal = true;
  MmadParams() = default;
  MmadParams(uint16_t m_, uint16_t n_, uint16_t k_, bool b, int32_t fo, bool s, bool wa, bool wb)
      : m(m_), n(n_), k(k_), isBias(b), fmOffset(fo), enSsparse(s), enWinogradA(wa), enWinogradB(wb) {}
};

// c (L0C, NZ 16x16) [+]= a (L0A, zZ m x k) * b (L0B, zZ k x n); cmatrixInitVal: c = a*b.
template <typename TC, typename TA>
__aicore__ inline void Mmad(const LocalTensor<TC>& c, const LocalTensor<TA>& a, const LocalTensor<TA>& b,
                            const MmadParams& p) {
  const char* api = "Mmad";
  if (a.hw() != emu::Hardware::L0A) emu::fail(api, "A must be in L0A (A2)");
  if (b.hw() != emu::Hardware::L0B) emu::fail(api, "B must be in L0B (B2)");
  if (c.hw() != emu::Hardware::L0C) emu::fail(api, "C must be in L0C (CO1)");
  if (p.m == 0 || p.n == 0 || p.k == 0) emu::fail(api, "m, n and k must be > 0");
  const uint64_t c0 = 32 / sizeof(TA);
  const uint64_t m16 = (p.m + 15) / 16 * 16, n16 = (p.n + 15) / 16 * 16;
  const uint64_t ka = (p.k + c0 - 1) / c0, nb = (p.n + c0 - 1) / c0;
  a.check_access(api, m16 * ka * c0, true);
  b.check_access(api, (p.k + 15) / 16 * 16 * nb * c0, true);
  c.check_access(api, m16 * n16, true);
  auto at = [&](uint64_t r, uint64_t q) { return a.data()[((r / 16) * ka + q / c0) * 16 * c0 + (r % 16) * c0 + q % c0]; };
  auto bt = [&](uint64_t r, uint64_t q) { return b.data()[((r / 16) * nb + q / c0) * 16 * c0 + (r % 16) * c0 + q % c0]; };
  TC* out = c.data();
  for (uint64_t i = 0; i < p.m; ++i)
    for (uint64_t j = 0; j < p.n; ++j) {
      TC s = 0;
      for (uint64_t q = 0; q < p.k; ++q) s += TC(at(i, q)) * TC(bt(q, j));
      TC& o = out[((j / 16) * m16 + i) * 16 + j % 16];
      o = p.cmatrixInitVal ? s : o + s;
    }
  emu::counters()[emu::kMmad] += 1;
  emu::counters()[emu::kMmadMacs] += uint64_t(p.m) * p.n * p.k;
}

enum class QuantMode_t : int { NoQuant, F322F16 };
struct FixpipeParamsV220 {
  uint16_t nSize = 0, mSize = 0, srcStride = 0; uint32_t dstStride = 0; bool nz2ndEn = true;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  FixpipeParamsV220() = default;
  FixpipeParamsV220(uint16_t n, uint16_t m, uint16_t ss, uint32_t ds, bool nz, QuantMode_t q = QuantMode_t::NoQuant)
      : nSize(n), mSize(m), srcStride(ss), dstStride(ds), nz2ndEn(nz), quantPre(q) {}
};
// L0C (NZ, srcStride = rows of the NZ matrix) -> GM (ND, row pitch dstStride elements).
// f32 L0C -> f16 GM converts on the way (round to nearest), and only with quantPre = F322F16.
template <typename TD, typename T>
__aicore__ inline void Fixpipe(const GlobalTensor<TD>& dst, const LocalTensor<T>& src, const FixpipeParamsV220& p) {
  const char* api = "Fixpipe(L0C->GM)";
  constexpr bool convert = !std::is_same<TD, T>::value;
  if (convert && !(std::is_same<T, float>::value && std::is_same<TD, half>::value))
    emu::fail(api, "only f32 -> f16 conversion is emulated");
  if (convert != (p.quantPre == QuantMode_t::F322F16))
    emu::fail(api, convert ? "an f32 -> f16 Fixpipe needs quantPre = QuantMode_t::F322F16"
                           : "quantPre = F322F16 needs an f16 destination");
  if (src.hw() != emu::Hardware::L0C) emu::fail(api, "source must be in L0C (CO1)");
  if (!p.nz2ndEn) emu::fail(api, "only nz2ndEn = true is emulated");
  if (p.srcStride < p.mSize || p.srcStride % 16) emu::fail(api, "srcStride must be >= mSize and a multiple of 16");
  src.check_access(api, uint64_t(p.srcStride) * ((p.nSize + 15) / 16 * 16), true);
  for (uint64_t i = 0; i < p.mSize; ++i) {
    dst.check(i * p.dstStride, p.nSize, api);
    for (uint64_t j = 0; j < p.nSize; ++j)
      dst.GetPhyAddr()[i * p.dstStride + j] = TD(src.data()[((j / 16) * p.srcStride + i) * 16 + j % 16]);
  }
  emu::count_copy(uint64_t(p.mSize) * p.nSize * sizeof(TD));
}

}  // namespace AscendC
