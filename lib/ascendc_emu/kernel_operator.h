// Ascend C CPU emulation: the subset of the Ascend C kernel API (namespace
// AscendC) that msmlir's Ascend emitter (passes/ascend/) uses, implemented on
// the CPU so that the same kernel source a CANN user compiles for an NPU is
// compiled here with g++ and run on numpy arrays.
//
// This is NOT an NPU and not CANN's own CPU debug library (tikicpulib): it is
// msmlir's model of the programming rules, and every rule is an error, not
// silent corruption (an AscendC::Error exception whose message names the kernel
// and the API call):
//   * capacity of each on-chip level (UB 192 KiB, L1 512 KiB, L0A/L0B 64 KiB,
//     L0C 128 KiB on Ascend910B; -DASCENDC_EMU_UB_BYTES=... etc. override);
//   * address alignment: UB and L1 32 B, L0A/L0B 512 B, L0C 64 B; DataCopy
//     lengths a multiple of 32 B (DataCopyPad is the unaligned form);
//   * queues: AllocTensor only with a free buffer (depth), DeQue only what was
//     EnQue'd (FIFO), a tensor in a queue cannot be read or written (missing
//     DeQue = missing synchronisation), no use after FreeTensor, a queue that
//     still holds tensors when the kernel ends;
//   * vector instructions: UB operands only, 32-byte aligned start addresses,
//     0 < count <= the operand's extent (Compare: count * sizeof(T) a multiple
//     of 256 bytes);
//   * GM accesses inside the buffer given to SetGlobalBuffer;
//   * Gather: byte offsets element-aligned and inside the source tensor.
//   * SyncAll (a cross-core barrier) is an error: blocks run one after the other.
// Blocks run sequentially over blockDim (GetBlockIdx() is the current one);
// on-chip memories are poisoned (0xFF bytes: NaN floats) before each block, so
// reading data nothing wrote shows. `half` is GCC's _Float16.
// The hardware's pipes (MTE2/V/MTE3/M/FIX) are not modelled: copies complete
// at once, so SetFlag/WaitFlag/PipeBarrier are checked no-ops.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#ifndef ASCENDC_EMU_UB_BYTES
#define ASCENDC_EMU_UB_BYTES (192 * 1024)
#endif
#ifndef ASCENDC_EMU_L1_BYTES
#define ASCENDC_EMU_L1_BYTES (512 * 1024)
#endif
#ifndef ASCENDC_EMU_L0A_BYTES
#define ASCENDC_EMU_L0A_BYTES (64 * 1024)
#endif
#ifndef ASCENDC_EMU_L0B_BYTES
#define ASCENDC_EMU_L0B_BYTES (64 * 1024)
#endif
#ifndef ASCENDC_EMU_L0C_BYTES
#define ASCENDC_EMU_L0C_BYTES (128 * 1024)
#endif

using half = _Float16;                 // Ascend C's half (GCC's _Float16 on the host)

#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR uint8_t*
#ifndef __inline__
#define __inline__ inline
#endif

namespace AscendC {

// ----------------------------------------------------------------- errors
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace emu {
inline std::string& kernel_name() { static std::string n = "<kernel>"; return n; }
inline int64_t& block_idx() { static int64_t b = 0; return b; }
inline int64_t& block_num() { static int64_t b = 1; return b; }
inline std::string& pending() { static std::string p; return p; }  // errors found in destructors
inline std::vector<uint64_t>& counters() { static std::vector<uint64_t> c(8, 0); return c; }
enum Counter { kDataCopy = 0, kDataCopyBytes = 1, kVectorOps = 2, kVectorElems = 3, kMmad = 4, kMmadMacs = 5 };

[[noreturn]] inline void fail(const char* api, const std::string& what) {
  throw Error(kernel_name() + ": " + api + ": " + what + " (block " + std::to_string(block_idx()) + ")");
}
}  // namespace emu

// ----------------------------------------------------------------- positions and memory
enum class TPosition : int { GM, VECIN, VECOUT, VECCALC, A1, A2, B1, B2, CO1, CO2 };
using QuePosition = TPosition;

namespace emu {
enum class Hardware : int { GM, UB, L1, L0A, L0B, L0C };
inline Hardware hardware_of(TPosition p) {
  switch (p) {
    case TPosition::VECIN: case TPosition::VECOUT: case TPosition::VECCALC: case TPosition::CO2:
      return Hardware::UB;
    case TPosition::A1: case TPosition::B1: return Hardware::L1;
    case TPosition::A2: return Hardware::L0A;
    case TPosition::B2: return Hardware::L0B;
    case TPosition::CO1: return Hardware::L0C;
    default: return Hardware::GM;
  }
}
inline const char* hw_name(Hardware h) {
  switch (h) {
    case Hardware::UB: return "UB"; case Hardware::L1: return "L1"; case Hardware::L0A: return "L0A";
    case Hardware::L0B: return "L0B"; case Hardware::L0C: return "L0C"; default: return "GM";
  }
}
inline uint64_t capacity(Hardware h) {
  switch (h) {
    case Hardware::UB: return ASCENDC_EMU_UB_BYTES; case Hardware::L1: return ASCENDC_EMU_L1_BYTES;
    case Hardware::L0A: return ASCENDC_EMU_L0A_BYTES; case Hardware::L0B: return ASCENDC_EMU_L0B_BYTES;
    case Hardware::L0C: return ASCENDC_EMU_L0C_BYTES; default: return 0;
  }
}
inline uint64_t alignment(Hardware h) {
  switch (h) {
    case Hardware::UB: case Hardware::L1: return 32;
    case Hardware::L0A: case Hardware::L0B: return 512;
    case Hardware::L0C: return 64;
    default: return 1;
  }
}
// One core's on-chip memories; reset (poisoned) when a TPipe is constructed.
struct Core {
  std::vector<uint8_t> mem[6];
  uint64_t used[6] = {0, 0, 0, 0, 0, 0};
  uint64_t peak[6] = {0, 0, 0, 0, 0, 0};
  Core() {
    for (int h = 1; h < 6; ++h) mem[h].assign(capacity(Hardware(h)), 0xFF);
  }
  uint8_t* at(Hardware h, uint64_t addr) { return mem[int(h)].data() + addr; }
};
inline Core& core() { static Core c; return c; }

// Lifetime of one buffer slot of a TQue (TBuf slots are always Owned).
enum class SlotState : int { Free, Owned, Queued, Dequeued };
struct Slot {
  Hardware hw = Hardware::UB;
  uint64_t addr = 0, bytes = 0;
  SlotState state = SlotState::Free;
  uint64_t gen = 0;           // bumped at FreeTensor: a stale LocalTensor no longer matches
  const char* owner = "TBuf"; // "TQue" / "TBuf"
};
}  // namespace emu

// ----------------------------------------------------------------- GlobalTensor
template <typename T>
class GlobalTensor {
 public:
  __aicore__ inline GlobalTensor() = default;
  __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    base_ = buffer; size_ = bufferSize;
  }
  __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer) { base_ = buffer; size_ = UINT64_MAX / 2; }
  __aicore__ inline GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor g; g.base_ = base_ + offset; g.size_ = offset <= size_ ? size_ - offset : 0; return g;
  }
  __aicore__ inline T GetValue(uint64_t i) const { check(i, 1, "GlobalTensor::GetValue"); return base_[i]; }
  __aicore__ inline void SetValue(uint64_t i, T v) { check(i, 1, "GlobalTensor::SetValue"); base_[i] = v; }
  __aicore__ inline uint64_t GetSize() const { return size_; }
  __gm__ T* GetPhyAddr() const { return base_; }
  void check(uint64_t off, uint64_t n, const char* api) const {
    if (base_ == nullptr) emu::fail(api, "GlobalTensor used before SetGlobalBuffer");
    if (off + n > size_)
      emu::fail(api, "GM access [" + std::to_string(off) + ", " + std::to_string(off + n) +
                         ") outside the buffer of " + std::to_string(size_) + " elements");
  }

 private:
  T* base_ = nullptr;
  uint64_t size_ = 0;
};

// ----------------------------------------------------------------- LocalTensor
template <typename T>
class LocalTensor {
 public:
  __aicore__ inline LocalTensor() = default;
  LocalTensor(emu::Slot* slot, uint64_t offset_bytes, uint64_t len, TPosition pos)
      : slot_(slot), gen_(slot->gen), off_(offset_bytes), len_(len), pos_(pos) {}

  __aicore__ inline LocalTensor operator[](uint64_t offset) const {
    LocalTensor t = *this;
    if (offset > len_) emu::fail("LocalTensor::operator[]",
                                 "offset " + std::to_string(offset) + " beyond the tensor's " +
                                     std::to_string(len_) + " elements");
    t.off_ += offset * sizeof(T); t.len_ -= offset; return t;
  }
  __aicore__ inline T GetValue(uint64_t i) const {
    check_access("LocalTensor::GetValue", i + 1, false);
    T v; std::memcpy(&v, raw() + i * sizeof(T), sizeof(T)); return v;
  }
  __aicore__ inline void SetValue(uint64_t i, T v) const {
    check_access("LocalTensor::SetValue", i + 1, false);
    std::memcpy(raw() + i * sizeof(T), &v, sizeof(T));
  }
  __aicore__ inline uint32_t GetSize() const { return uint32_t(len_); }
  __aicore__ inline TPosition GetPosition() const { return pos_; }
  template <typename U>
  __aicore__ inline LocalTensor<U> ReinterpretCast() const {
    LocalTensor<U> u; u.slot_ = slot_; u.gen_ = gen_; u.off_ = off_; u.len_ = len_ * sizeof(T) / sizeof(U);
    u.pos_ = pos_; return u;
  }

  // --- emulator internals (not Ascend C API) ---
  emu::Hardware hw() const { return slot_ ? slot_->hw : emu::Hardware::GM; }
  uint64_t address() const { return slot_->addr + off_; }      // byte address in its level
  uint8_t* raw() const { return emu::core().at(slot_->hw, address()); }
  T* data() const { return reinterpret_cast<T*>(raw()); }
  uint64_t length() const { return len_; }
  // valid (allocated, not freed, not inside a queue), `n` elements in extent,
  // and (aligned) the start address on the level's alignment.
  void check_access(const char* api, uint64_t n, bool aligned) const {
    if (slot_ == nullptr) emu::fail(api, "LocalTensor was never allocated");
    if (gen_ != slot_->gen || slot_->state == emu::SlotState::Free)
      emu::fail(api, std::string("use after FreeTensor: the ") + emu::hw_name(slot_->hw) +
                         " buffer at " + std::to_string(slot_->addr) + " was freed");
    if (slot_->state == emu::SlotState::Queued)
      emu::fail(api, std::string("tensor is inside its TQue (EnQue'd and not DeQue'd): a missing DeQue, "
                                 "the data is not synchronised"));
    if (n > len_)
      emu::fail(api, std::to_string(n) + " elements requested from a tensor of " + std::to_string(len_) +
                         " (" + emu::hw_name(slot_->hw) + " overflow)");
    if (aligned && address() % emu::alignment(slot_->hw) != 0)
      emu::fail(api, std::string(emu::hw_name(slot_->hw)) + " address " + std::to_string(address()) +
                         " is not " + std::to_string(emu::alignment(slot_->hw)) + "-byte aligned");
  }

  emu::Slot* slot_ = nullptr;
  uint64_t gen_ = 0, off_ = 0, len_ = 0;
  TPosition pos_ = TPosition::VECCALC;
};

// ----------------------------------------------------------------- TPipe, TQue, TBuf
class TPipe;

namespace emu {
struct QueBase {
  std::vector<Slot> slots;
  std::vector<Slot*> fifo;
  int depth = 0;
  TPosition pos = TPosition::VECIN;
  bool inited = false;
  const char* label = "TQue";
  ~QueBase() {
    if (!inited || !pending().empty()) return;
    size_t queued = fifo.size(), held = 0;
    for (auto& s : slots) held += s.state != SlotState::Free;
    if (queued)
      pending() = kernel_name() + ": kernel end: a TQue still holds " + std::to_string(queued) +
                  " tensor(s) that were EnQue'd and never DeQue'd (block " + std::to_string(block_idx()) + ")";
    else if (held)
      pending() = kernel_name() + ": kernel end: " + std::to_string(held) +
                  " tensor(s) of a TQue were allocated and never freed (missing FreeTensor) (block " +
                  std::to_string(block_idx()) + ")";
  }
};
}  // namespace emu

template <TPosition POS, int32_t DEPTH = 1>
class TQue : public emu::QueBase {
 public:
  __aicore__ inline TQue() { depth = DEPTH; pos = POS; }
  TQue(const TQue&) = delete;
  template <typename T>
  __aicore__ inline LocalTensor<T> AllocTensor() {
    if (!inited) emu::fail("TQue::AllocTensor", "queue used before TPipe::InitBuffer");
    for (auto& s : slots)
      if (s.state == emu::SlotState::Free) {
        s.state = emu::SlotState::Owned;
        return LocalTensor<T>(&s, 0, s.bytes / sizeof(T), POS);
      }
    emu::fail("TQue::AllocTensor", "no free buffer: all " + std::to_string(slots.size()) +
                                       " buffer(s) of the queue are allocated (missing FreeTensor?)");
  }
  template <typename T>
  __aicore__ inline bool EnQue(const LocalTensor<T>& t) {
    t.check_access("TQue::EnQue", 0, false);
    if (!owns(t.slot_)) emu::fail("TQue::EnQue", "the tensor was not allocated from this queue");
    if (int(fifo.size()) >= DEPTH) emu::fail("TQue::EnQue", "queue depth " + std::to_string(DEPTH) + " exceeded");
    t.slot_->state = emu::SlotState::Queued;
    fifo.push_back(t.slot_);
    return true;
  }
  template <typename T>
  __aicore__ inline LocalTensor<T> DeQue() {
    if (fifo.empty()) emu::fail("TQue::DeQue", "queue is empty (DeQue without a matching EnQue)");
    emu::Slot* s = fifo.front();
    fifo.erase(fifo.begin());
    s->state = emu::SlotState::Dequeued;
    return LocalTensor<T>(s, 0, s->bytes / sizeof(T), POS);
  }
  template <typename T>
  __aicore__ inline void FreeTensor(LocalTensor<T>& t) {
    if (t.slot_ == nullptr || !owns(t.slot_)) emu::fail("TQue::FreeTensor", "the tensor was not allocated from this queue");
    if (t.gen_ != t.slot_->gen || t.slot_->state == emu::SlotState::Free)
      emu::fail("TQue::FreeTensor", "double FreeTensor (the buffer is already free)");
    if (t.slot_->state == emu::SlotState::Queued)
      emu::fail("TQue::FreeTensor", "tensor is still inside the queue (EnQue'd and never DeQue'd)");
    t.slot_->state = emu::SlotState::Free;
    t.slot_->gen += 1;
  }
  __aicore__ inline bool HasIdleBuffer() const {
    for (auto& s : slots) if (s.state == emu::SlotState::Free) return true;
    return false;
  }

 private:
  bool owns(const emu::Slot* p) const { return !slots.empty() && p >= &slots.front() && p <= &slots.back(); }
};

// TQueBind<SRC, DST, DEPTH>: a queue whose buffers are allocated at SRC and
// handed on to DST (VECIN -> VECOUT: the UB buffers of a copy-only kernel,
// GM -> UB -> GM). The buffers live in SRC's memory.
template <TPosition SRC, TPosition DST, int32_t DEPTH = 1>
class TQueBind : public TQue<SRC, DEPTH> {
 public:
  __aicore__ inline TQueBind() = default;
};

template <TPosition POS = TPosition::VECCALC>
class TBuf {
 public:
  __aicore__ inline TBuf() = default;
  TBuf(const TBuf&) = delete;
  template <typename T>
  __aicore__ inline LocalTensor<T> Get() {
    if (!inited_) emu::fail("TBuf::Get", "buffer used before TPipe::InitBuffer");
    return LocalTensor<T>(&slot_, 0, slot_.bytes / sizeof(T), POS);
  }
  template <typename T>
  __aicore__ inline LocalTensor<T> Get(uint32_t len) {
    LocalTensor<T> t = Get<T>();
    if (uint64_t(len) * sizeof(T) > slot_.bytes)
      emu::fail("TBuf::Get", std::to_string(len) + " elements exceed the buffer's " + std::to_string(slot_.bytes) + " bytes");
    t.len_ = len; return t;
  }
  emu::Slot slot_;
  bool inited_ = false;
};

class TPipe {
 public:
  __aicore__ inline TPipe() {
    auto& c = emu::core();
    for (int h = 0; h < 6; ++h) c.used[h] = 0;
  }
  template <TPosition POS, int32_t DEPTH>
  __aicore__ inline void InitBuffer(TQue<POS, DEPTH>& que, uint8_t num, uint32_t len) {
    if (que.inited) emu::fail("TPipe::InitBuffer", "queue initialised twice");
    if (num == 0 || num > 8) emu::fail("TPipe::InitBuffer", "buffer count " + std::to_string(num) + " not in [1, 8]");
    if (num < DEPTH) {}  // fewer buffers than depth is legal
    que.slots.assign(num, emu::Slot{});
    for (auto& s : que.slots) { reserve(s, emu::hardware_of(POS), len, "TPipe::InitBuffer"); s.owner = "TQue"; }
    que.inited = true;
  }
  template <TPosition POS>
  __aicore__ inline void InitBuffer(TBuf<POS>& buf, uint32_t len) {
    if (buf.inited_) emu::fail("TPipe::InitBuffer", "TBuf initialised twice");
    reserve(buf.slot_, emu::hardware_of(POS), len, "TPipe::InitBuffer");
    buf.slot_.state = emu::SlotState::Owned;
    buf.inited_ = true;
  }
  __aicore__ inline void Destroy() {}
  __aicore__ inline void Reset() {}

 private:
  static void reserve(emu::Slot& s, emu::Hardware hw, uint32_t len, const char* api) {
    auto& c = emu::core();
    const uint64_t a = emu::alignment(hw);
    uint64_t bytes = (uint64_t(len) + 31) / 32 * 32;
    uint64_t addr = (c.used[int(hw)] + a - 1) / a * a;
    if (len == 0) emu::fail(api, "zero-byte buffer");
    if (addr + bytes > emu::capacity(hw))
      emu::fail(api, std::string(emu::hw_name(hw)) + " overflow: " + std::to_string(bytes) +
                         " more bytes at offset " + std::to_string(addr) + " exceed the " +
                         std::to_string(emu::capacity(hw)) + " bytes of " + emu::hw_name(hw));
    s.hw = hw; s.addr = addr; s.bytes = bytes; s.gen += 1;
    c.used[int(hw)] = addr + bytes;
    if (c.used[int(hw)] > c.peak[int(hw)]) c.peak[int(hw)] = c.used[int(hw)];
  }
};

// ----------------------------------------------------------------- core id, sync
__aicore__ inline int64_t GetBlockIdx() { return emu::block_idx(); }
__aicore__ inline int64_t GetBlockNum() { return emu::block_num(); }

enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum class HardEvent : int { MTE2_V, V_MTE2, MTE3_V, V_MTE3, MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, M_FIX, FIX_M, MTE2_S, S_MTE2, V_S, S_V, MTE3_MTE2, S_MTE3, MTE3_S };
template <pipe_t P> __aicore__ inline void PipeBarrier() {}
// SyncAll (a barrier across the launch's cores): blocks run one after the other here, so a block
// waiting for the others could never be released; it is an error, not a silent no-op. Work that
// needs every core's results (split-K's sum of partial products) is a second kernel launch.
__aicore__ inline void SyncAll() {
  emu::fail("SyncAll", "a barrier across cores cannot be honoured (blocks run one after the other); "
                       "put the phase after it in a second kernel launch");
}
template <HardEvent E> __aicore__ inline void SetFlag(int32_t) {}
template <HardEvent E> __aicore__ inline void WaitFlag(int32_t) {}

// ----------------------------------------------------------------- data movement
struct DataCopyParams {
  uint16_t blockCount = 1, blockLen = 0, srcStride = 0, dstStride = 0;  // blockLen/strides in 32 B blocks
  DataCopyParams() = default;
  DataCopyParams(uint16_t c, uint16_t l, uint16_t s, uint16_t d) : blockCount(c), blockLen(l), srcStride(s), dstStride(d) {}
};
// GM side: blockLen and the GM stride in bytes; UB side: the UB stride in 32 B blocks.
struct DataCopyExtParams {
  uint16_t blockCount = 1; uint32_t blockLen = 0, srcStride = 0, dstStride = 0, rsv = 0;
  DataCopyExtParams() = default;
  DataCopyExtParams(uint16_t c, uint32_t l, uint32_t s, uint32_t d, uint32_t r)
      : blockCount(c), blockLen(l), srcStride(s), dstStride(d), rsv(r) {}
};
template <typename T>
struct DataCopyPadExtParams {
  bool isPad = false; uint8_t leftPadding = 0, rightPadding = 0; T paddingValue = T(0);
  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(bool p, uint8_t l, uint8_t r, T v) : isPad(p), leftPadding(l), rightPadding(r), paddingValue(v) {}
};

namespace emu {
inline void count_copy(uint64_t bytes) { counters()[kDataCopy] += 1; counters()[kDataCopyBytes] += bytes; }
template <typename T>
void check_len32(const char* api, uint64_t count) {
  if (count == 0) fail(api, "zero-length copy");
  if ((count * sizeof(T)) % 32 != 0)
    fail(api, "length " + std::to_string(count * sizeof(T)) + " bytes (" + std::to_string(count) +
                  " elements) is not a multiple of 32 bytes; the hardware would move a rounded length "
                  "(use DataCopyPad for unaligned tails)");
}
}  // namespace emu

// GM -> UB / L1
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
  emu::check_len32<T>("DataCopy(GM->local)", count);
  dst.check_access("DataCopy(GM->local)", count, true);
  src.check(0, count, "DataCopy(GM->local)");
  std::memcpy(dst.raw(), src.GetPhyAddr(), count * sizeof(T));
  emu::count_copy(count * sizeof(T));
}
// UB -> GM
template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  emu::check_len32<T>("DataCopy(local->GM)", count);
  src.check_access("DataCopy(local->GM)", count, true);
  dst.check(0, count, "DataCopy(local->GM)");
  std::memcpy(dst.GetPhyAddr(), src.raw(), count * sizeof(T));
  emu::count_copy(count * sizeof(T));
}
// local -> local (UB -> UB, L1 -> UB ...)
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  emu::check_len32<T>("DataCopy(local->local)", count);
  dst.check_access("DataCopy(local->local)", count, true);
  src.check_access("DataCopy(local->local)", count, true);
  std::memmove(dst.raw(), src.raw(), count * sizeof(T));
  emu::count_copy(count * sizeof(T));
}
// block forms (lengths and strides in 32-byte blocks)
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
  const char* api = "DataCopy(GM->local, DataCopyParams)";
  const uint64_t e = 32 / sizeof(T), len = uint64_t(p.blockLen) * e;
  if (p.blockCount == 0 || p.blockLen == 0) emu::fail(api, "zero blockCount or blockLen");
  for (uint64_t b = 0; b < p.blockCount; ++b) {
    uint64_t so = b * (len + uint64_t(p.srcStride) * e), d = b * (len + uint64_t(p.dstStride) * e);
    LocalTensor<T> dt = dst[d];
    dt.check_access(api, len, true);
    src.check(so, len, api);
    std::memcpy(dt.raw(), src.GetPhyAddr() + so, len * sizeof(T));
  }
  emu::count_copy(uint64_t(p.blockCount) * len * sizeof(T));
}
template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  const char* api = "DataCopy(local->GM, DataCopyParams)";
  const uint64_t e = 32 / sizeof(T), len = uint64_t(p.blockLen) * e;
  if (p.blockCount == 0 || p.blockLen == 0) emu::fail(api, "zero blockCount or blockLen");
  for (uint64_t b = 0; b < p.blockCount; ++b) {
    uint64_t so = b * (len + uint64_t(p.srcStride) * e), d = b * (len + uint64_t(p.dstStride) * e);
    LocalTensor<T> st = src[so];
    st.check_access(api, len, true);
    dst.check(d, len, api);
    std::memcpy(dst.GetPhyAddr() + d, st.raw(), len * sizeof(T));
  }
  emu::count_copy(uint64_t(p.blockCount) * len * sizeof(T));
}
// GM -> UB with byte-exact blocks: each block of blockLen bytes lands at a
// 32-byte aligned UB row; the rest of the row is padding (paddingValue when isPad).
template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                                   const DataCopyPadExtParams<T>& pad = DataCopyPadExtParams<T>()) {
  const char* api = "DataCopyPad(GM->local)";
  if (p.blockCount == 0 || p.blockLen == 0) emu::fail(api, "zero blockCount or blockLen");
  if (p.blockLen % sizeof(T) || p.srcStride % sizeof(T)) emu::fail(api, "blockLen/srcStride not a multiple of the element size");
  const uint64_t n = p.blockLen / sizeof(T), row = (p.blockLen + 31) / 32 * 32 / sizeof(T);
  const uint64_t dstep = row + uint64_t(p.dstStride) * 32 / sizeof(T), sstep = n + p.srcStride / sizeof(T);
  for (uint64_t b = 0; b < p.blockCount; ++b) {
    LocalTensor<T> dt = dst[b * dstep];
    dt.check_access(api, row, true);
    src.check(b * sstep, n, api);
    std::memcpy(dt.raw(), src.GetPhyAddr() + b * sstep, n * sizeof(T));
    if (pad.isPad) for (uint64_t i = n; i < row; ++i) dt.data()[i] = pad.paddingValue;
  }
  emu::count_copy(uint64_t(p.blockCount) * p.blockLen);
}
// UB -> GM with byte-exact blocks (only blockLen bytes of each UB row are written).
template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
  const char* api = "DataCopyPad(local->GM)";
  if (p.blockCount == 0 || p.blockLen == 0) emu::fail(api, "zero blockCount or blockLen");
  if (p.blockLen % sizeof(T) || p.dstStride % sizeof(T)) emu::fail(api, "blockLen/dstStride not a multiple of the element size");
  const uint64_t n = p.blockLen / sizeof(T), row = (p.blockLen + 31) / 32 * 32 / sizeof(T);
  const uint64_t sstep = row + uint64_t(p.srcStride) * 32 / sizeof(T), dstep = n + p.dstStride / sizeof(T);
  for (uint64_t b = 0; b < p.blockCount; ++b) {
    LocalTensor<T> st = src[b * sstep];
    st.check_access(api, n, true);
    dst.check(b * dstep, n, api);
    std::memcpy(dst.GetPhyAddr() + b * dstep, st.raw(), n * sizeof(T));
  }
  emu::count_copy(uint64_t(p.blockCount) * p.blockLen);
}

// ----------------------------------------------------------------- vector instructions (level 2: count form)
namespace emu {
template <typename T>
void check_vec(const char* api, const LocalTensor<T>& t, uint64_t count) {
  if (count == 0) fail(api, "count is 0");
  if (t.slot_ && t.hw() != Hardware::UB)
    fail(api, std::string("vector operand in ") + hw_name(t.hw()) + " (vector instructions read and write UB only)");
  t.check_access(api, count, true);
}
inline void count_vec(uint64_t n) { counters()[kVectorOps] += 1; counters()[kVectorElems] += n; }
}  // namespace emu

#define ASCENDC_EMU_BINARY(NAME, EXPR)                                                              \
  template <typename T>                                                                             \
  __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, \
                              const int32_t count) {                                                \
    emu::check_vec(#NAME, dst, count); emu::check_vec(#NAME, a, count); emu::check_vec(#NAME, b, count); \
    T* d = dst.data(); const T* x = a.data(); const T* y = b.data();                                \
    for (int32_t i = 0; i < count; ++i) { T u = x[i], v = y[i]; d[i] = (EXPR); }                   \
    emu::count_vec(count);                                                                           \
  }
ASCENDC_EMU_BINARY(Add, u + v)
ASCENDC_EMU_BINARY(Sub, u - v)
ASCENDC_EMU_BINARY(Mul, u * v)
ASCENDC_EMU_BINARY(Div, u / v)
ASCENDC_EMU_BINARY(Max, (std::isnan(u) || std::isnan(v)) ? T(NAN) : (u > v ? u : v))
ASCENDC_EMU_BINARY(Min, (std::isnan(u) || std::isnan(v)) ? T(NAN) : (u < v ? u : v))
#undef ASCENDC_EMU_BINARY

#define ASCENDC_EMU_UNARY(NAME, EXPR)                                                               \
  template <typename T>                                                                             \
  __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t count) { \
    emu::check_vec(#NAME, dst, count); emu::check_vec(#NAME, src, count);                           \
    T* d = dst.data(); const T* x = src.data();                                                      \
    for (int32_t i = 0; i < count; ++i) { T u = x[i]; d[i] = (EXPR); }                              \
    emu::count_vec(count);                                                                           \
  }
ASCENDC_EMU_UNARY(Exp, std::exp(u))
ASCENDC_EMU_UNARY(Ln, std::log(u))
ASCENDC_EMU_UNARY(Abs, std::fabs(u))
ASCENDC_EMU_UNARY(Sqrt, std::sqrt(u))
ASCENDC_EMU_UNARY(Rsqrt, T(1) / std::sqrt(u))
ASCENDC_EMU_UNARY(Reciprocal, T(1) / u)
ASCENDC_EMU_UNARY(Relu, u > T(0) ? u : T(0))
ASCENDC_EMU_UNARY(Tanh, std::tanh(u))
ASCENDC_EMU_UNARY(Erf, std::erf(u))
ASCENDC_EMU_UNARY(Sin, std::sin(u))
ASCENDC_EMU_UNARY(Cos, std::cos(u))
ASCENDC_EMU_UNARY(Floor, std::floor(u))
ASCENDC_EMU_UNARY(Ceil, std::ceil(u))
ASCENDC_EMU_UNARY(Log1p, std::log1p(u))
#undef ASCENDC_EMU_UNARY

#define ASCENDC_EMU_SCALAR(NAME, EXPR)                                                              \
  template <typename T, typename U>                                                                 \
  __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U scalarIn, \
                              const int32_t count) {                                                \
    emu::check_vec(#NAME, dst, count); emu::check_vec(#NAME, src, count);                           \
    const T s = T(scalarIn); T* d = dst.data(); const T* x = src.data();                             \
    for (int32_t i = 0; i < count; ++i) { T u = x[i]; d[i] = (EXPR); }                              \
    emu::count_vec(count);                                                                           \
  }
ASCENDC_EMU_SCALAR(Adds, u + s)
ASCENDC_EMU_SCALAR(Muls, u * s)
ASCENDC_EMU_SCALAR(Maxs, (std::isnan(u) || std::isnan(s)) ? T(NAN) : (u > s ? u : s))
ASCENDC_EMU_SCALAR(Mins, (std::isnan(u) || std::isnan(s)) ? T(NAN) : (u < s ? u : s))
ASCENDC_EMU_SCALAR(LeakyRelu, u >= T(0) ? u : u * s)
#undef ASCENDC_EMU_SCALAR

template <typename T, typename U>
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const U scalar, const int32_t count) {
  emu::check_vec("Duplicate", dst, count);
  T* d = dst.data();
  for (int32_t i = 0; i < count; ++i) d[i] = T(scalar);
  emu::count_vec(count);
}

// CreateVecIndex: dst[i] = firstValue + i (index tables built by the vector unit).
template <typename T>
__aicore__ inline void CreateVecIndex(const LocalTensor<T>& dst, const T firstValue, const uint32_t count) {
  emu::check_vec("CreateVecIndex", dst, count);
  T* d = dst.data();
  for (uint32_t i = 0; i < count; ++i) d[i] = T(firstValue + T(i));
  emu::count_vec(count);
}

enum class RoundMode : int { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
template <typename D, typename S>
__aicore__ inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode mode, const uint32_t count) {
  emu::check_vec("Cast", dst, count); emu::check_vec("Cast", src, count);
  // To a floating type the mode is the rounding at the destination's precision: CAST_NONE and
  // CAST_RINT round to nearest even (f32 -> f16); the directed modes are not emulated (an error,
  // not a silent integer rounding). To an integer type the mode rounds to an integer.
  if (std::is_floating_point<D>::value || std::is_same<D, half>::value) {
    if (mode != RoundMode::CAST_NONE && mode != RoundMode::CAST_RINT)
      emu::fail("Cast", "a cast to a floating type with a directed rounding mode (only CAST_NONE / CAST_RINT "
                        "are emulated)");
    D* d = dst.data(); const S* x = src.data();
    std::vector<D> tmp(count);
    for (uint32_t i = 0; i < count; ++i) tmp[i] = D(float(x[i]));
    std::memcpy(d, tmp.data(), count * sizeof(D));
    emu::count_vec(count);
    return;
  }
  D* d = dst.data(); const S* x = src.data();
  for (uint32_t i = 0; i < count; ++i) {
    double v = double(x[i]);
    switch (mode) {
      case RoundMode::CAST_RINT: v = std::nearbyint(v); break;
      case RoundMode::CAST_FLOOR: v = std::floor(v); break;
      case RoundMode::CAST_CEIL: v = std::ceil(v); break;
      case RoundMode::CAST_ROUND: v = std::round(v); break;
      case RoundMode::CAST_TRUNC: v = std::trunc(v); break;
      default: break;
    }
    d[i] = D(v);
  }
  emu::count_vec(count);
}

// Reductions of `count` elements to dst[0]. sharedTmpBuffer: work space of at
// least ceil(count / (256 / sizeof(T))) elements (one per 256-byte repeat).
// Sums are a per-repeat pairwise tree, then a pairwise sum of the repeats.
namespace emu {
template <typename T>
void check_work(const char* api, const LocalTensor<T>& work, uint64_t count) {
  uint64_t need = (count + 256 / sizeof(T) - 1) / (256 / sizeof(T));
  check_vec(api, work, need);
}
template <typename T>
T pairwise_sum(const T* x, uint64_t n) {
  if (n <= 8) { T s = 0; for (uint64_t i = 0; i < n; ++i) s += x[i]; return s; }
  uint64_t h = n / 2;
  return pairwise_sum(x, h) + pairwise_sum(x + h, n - h);
}
}  // namespace emu
template <typename T>
__aicore__ inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                                 const int32_t count) {
  emu::check_vec("ReduceSum", dst, 1); emu::check_vec("ReduceSum", src, count);
  emu::check_work("ReduceSum", work, count);
  T s = emu::pairwise_sum(src.data(), count);
  dst.data()[0] = s;
  emu::count_vec(count);
}
#define ASCENDC_EMU_REDUCE(NAME, BETTER)                                                            \
  template <typename T>                                                                             \
  __aicore__ inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, \
                              const int32_t count, bool calIndex = false) {                         \
    emu::check_vec(#NAME, dst, calIndex ? 2 : 1); emu::check_vec(#NAME, src, count);                 \
    emu::check_work(#NAME, work, count);                                                             \
    const T* x = src.data(); T best = x[0]; int32_t at = 0;                                          \
    for (int32_t i = 1; i < count; ++i) {                                                            \
      T u = x[i];                                                                                    \
      if (std::isnan(best)) break;                                                                   \
      if (std::isnan(u) || (BETTER)) { best = u; at = i; }                                           \
    }                                                                                                \
    dst.data()[0] = best;                                                                            \
    if (calIndex) { float f; std::memcpy(&f, &at, 4); dst.data()[1] = T(f); }                        \
    emu::count_vec(count);                                                                           \
  }
ASCENDC_EMU_REDUCE(ReduceMax, u > best)
ASCENDC_EMU_REDUCE(ReduceMin, u < best)
#undef ASCENDC_EMU_REDUCE

// Compare / Select (bit masks: one bit per element, little-endian in uint8).
enum class CMPMODE : int { LT, GT, EQ, LE, GE, NE };
enum class SELMODE : int { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
template <typename T>
__aicore__ inline void Compare(const LocalTensor<uint8_t>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                               CMPMODE mode, uint32_t count) {
  emu::check_vec("Compare", a, count); emu::check_vec("Compare", b, count);
  emu::check_vec("Compare", dst, (count + 7) / 8);
  if ((count * sizeof(T)) % 256 != 0) emu::fail("Compare", "count * sizeof(T) must be a multiple of 256 bytes");
  uint8_t* d = dst.data(); const T* x = a.data(); const T* y = b.data();
  std::memset(d, 0, (count + 7) / 8);
  for (uint32_t i = 0; i < count; ++i) {
    bool r = false; T u = x[i], v = y[i];
    switch (mode) {
      case CMPMODE::LT: r = u < v; break; case CMPMODE::GT: r = u > v; break;
      case CMPMODE::EQ: r = u == v; break; case CMPMODE::LE: r = u <= v; break;
      case CMPMODE::GE: r = u >= v; break; case CMPMODE::NE: r = u != v; break;
    }
    if (r) d[i / 8] |= uint8_t(1u << (i % 8));
  }
  emu::count_vec(count);
}
template <typename T>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<uint8_t>& mask, const LocalTensor<T>& a,
                              const LocalTensor<T>& b, SELMODE mode, uint32_t count) {
  emu::check_vec("Select", dst, count); emu::check_vec("Select", a, count); emu::check_vec("Select", b, count);
  emu::check_vec("Select", mask, (count + 7) / 8);
  if (mode != SELMODE::VSEL_TENSOR_TENSOR_MODE) emu::fail("Select", "only VSEL_TENSOR_TENSOR_MODE is emulated");
  const uint8_t* m = mask.data(); T* d = dst.data(); const T* x = a.data(); const T* y = b.data();
  for (uint32_t i = 0; i < count; ++i) d[i] = ((m[i / 8] >> (i % 8)) & 1) ? x[i] : y[i];
  emu::count_vec(count);
}

// Gather: dst[i] = the element of src at byte offset srcOffset[i] + srcBaseAddr
// (offsets in bytes, multiples of sizeof(T), inside src). A permutation of UB
// data on the vector unit (window gathers of pooling, their inverse).
template <typename T>
__aicore__ inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                              const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
                              const uint32_t count) {
  emu::check_vec("Gather", dst, count); emu::check_vec("Gather", srcOffset, count);
  emu::check_vec("Gather", src, 1);
  const uint32_t* off = srcOffset.data(); T* d = dst.data(); const uint8_t* x = src.raw();
  const uint64_t extent = src.length() * sizeof(T);
  std::vector<T> out(count);
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t o = uint64_t(off[i]) + srcBaseAddr;
    if (o % sizeof(T) != 0)
      emu::fail("Gather", "offset " + std::to_string(o) + " of element " + std::to_string(i) +
                              " is not a multiple of the element size");
    if (o + sizeof(T) > extent)
      emu::fail("Gather", "offset " + std::to_string(o) + " of element " + std::to_string(i) +
                              " is outside the source's " + std::to_string(extent) + " bytes");
    std::memcpy(&out[i], x + o, sizeof(T));
  }
  std::memcpy(d, out.data(), count * sizeof(T));
  emu::count_vec(count);
}

}  // namespace AscendC

#include "ascendc_emu_cube.h"
