//===- AscendCDialect.cpp - ascendc dialect and its verifiers ------------===//
//
// The verifiers enforce the Ascend C rules the IR knows statically (the
// emulator, lib/ascendc_emu, enforces the same rules when a kernel runs):
// capacity per memory level, buffer sizes aligned per level, queue depth,
// DataCopy block lengths in 32-byte multiples, tiles covered by the cores.
//
//===----------------------------------------------------------------------===//
#include "AscendC.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>

using namespace mlir;
using namespace msmlir::ascendc;

#include "AscendCDialect.cpp.inc"
#include "AscendCEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "AscendCAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "AscendCOps.cpp.inc"

void AscendCDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "AscendCAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "AscendCOps.cpp.inc"
      >();
}

namespace {
/// Memory levels of an Ascend AI core (passes/poly/targets.py `Ascend`).
enum Level { UB, L1, L0A, L0B, L0C, GMLevel, NumLevels };
constexpr const char *levelNames[] = {"UB", "L1", "L0A", "L0B", "L0C", "GM"};
constexpr int64_t capacity[] = {192 * 1024, 512 * 1024, 64 * 1024, 64 * 1024, 128 * 1024, 0};
constexpr int64_t alignment[] = {32, 32, 512, 512, 64, 1};

Level levelOf(Position p) {
  switch (p) {
  case Position::VECIN: case Position::VECOUT: case Position::VECCALC: case Position::CO2:
    return UB;
  case Position::A1: case Position::B1:
    return L1;
  case Position::A2:
    return L0A;
  case Position::B2:
    return L0B;
  case Position::CO1:
    return L0C;
  case Position::GM:
    return GMLevel;
  }
  return GMLevel;
}

LogicalResult checkBytes(Operation *op, Position pos, int64_t bytes) {
  Level l = levelOf(pos);
  if (l == GMLevel)
    return op->emitOpError("a local buffer cannot be in GM");
  if (bytes <= 0)
    return op->emitOpError("buffer of ") << bytes << " bytes (must be positive)";
  if (bytes > capacity[L1] * 1024) // larger than any level, any ub_scale: keeps the sums exact
    return op->emitOpError("buffer of ") << bytes << " bytes is larger than any memory level";
  if (bytes % alignment[l])
    return op->emitOpError("buffer of ")
           << bytes << " bytes in " << levelNames[l] << " is not a multiple of "
           << alignment[l] << " bytes";
  return success();
}

template <typename T>
LogicalResult lookup(Operation *op, FlatSymbolRefAttr ref, const char *what) {
  Operation *found = SymbolTable::lookupNearestSymbolFrom(op, ref);
  if (!found || !isa<T>(found))
    return op->emitOpError("'") << ref.getValue() << "' is not " << what << " of the kernel";
  return success();
}
} // namespace

LogicalResult KernelOp::verify() {
  if (getBlockDim() < 1)
    return emitOpError("block_dim must be at least 1, got ") << getBlockDim();
  if (getMode() != "row" && getMode() != "col")
    return emitOpError("mode must be 'row' or 'col', got '") << getMode() << "'";
  if (auto bd = dyn_cast_or_null<IntegerAttr>(getTiling().get("blockDim")))
    if (bd.getInt() != getBlockDim())
      return emitOpError("tiling blockDim ") << bd.getInt() << " differs from block_dim " << getBlockDim();
  if (getUbScale() && (*getUbScale() < 1 || *getUbScale() > 1024))
    return emitOpError("ub_scale must be in [1, 1024], got ") << *getUbScale();
  return success();
}

/// After the body's ops are verified: the per-level capacity and the queue
/// protocol.
LogicalResult KernelOp::verifyRegions() {
  int64_t scale = getUbScale() ? *getUbScale() : 1;
  int64_t used[NumLevels] = {0};
  for (Operation &op : getBody().front()) {
    if (auto q = dyn_cast<QueueOp>(op))
      used[levelOf(q.getPosition())] += q.getDepth() * q.getBytes();
    else if (auto b = dyn_cast<TBufOp>(op))
      used[levelOf(b.getPosition())] += b.getBytes();
  }
  for (int l = 0; l < GMLevel; ++l) {
    int64_t cap = capacity[l] * (l == UB ? scale : 1);
    if (used[l] > cap)
      return emitOpError("buffers need ")
             << used[l] << " bytes of " << levelNames[l] << ", which holds " << cap << " bytes";
  }
  // Each queue's tensors go round once per tile: AllocTensor -> EnQue -> DeQue
  // -> FreeTensor, so the four calls on one queue are equally many.
  llvm::MapVector<StringRef, std::array<int64_t, 4>> uses;
  getBody().walk([&](Operation *op) {
    if (auto o = dyn_cast<AllocTensorOp>(op))
      ++uses[o.getQueue()][0];
    else if (auto o = dyn_cast<EnQueOp>(op))
      ++uses[o.getQueue()][1];
    else if (auto o = dyn_cast<DeQueOp>(op))
      ++uses[o.getQueue()][2];
    else if (auto o = dyn_cast<FreeTensorOp>(op))
      ++uses[o.getQueue()][3];
  });
  static const char *calls[] = {"AllocTensor", "EnQue", "DeQue", "FreeTensor"};
  for (auto &[queue, n] : uses)
    for (int i = 1; i < 4; ++i)
      if (n[i] != n[i - 1])
        return emitOpError("queue '")
               << queue << "': " << n[i - 1] << " " << calls[i - 1] << " but " << n[i] << " "
               << calls[i] << " (each tensor of a queue is allocated, enqueued, dequeued and freed)";
  return success();
}

LogicalResult GlobalOp::verify() {
  if (getNumel() < 1)
    return emitOpError("GM tensor of ") << getNumel() << " elements";
  if (getScalar() && getUnused())
    return emitOpError("a GM tensor cannot be both scalar and unused");
  return success();
}

LogicalResult QueueOp::verify() {
  if (getDepth() < 1 || getDepth() > 8)
    return emitOpError("queue depth must be in [1, 8], got ") << getDepth();
  if (getPosition() == Position::VECCALC)
    return emitOpError("VECCALC is a TBuf position, not a queue's");
  return checkBytes(*this, getPosition(), getBytes());
}

LogicalResult TBufOp::verify() {
  if (auto d = getData())
    if ((int64_t)d->size() * 4 > getBytes())
      return emitOpError("constant data of ") << d->size() << " elements exceeds " << getBytes() << " bytes";
  return checkBytes(*this, getPosition(), getBytes());
}

LogicalResult ForTilesOp::verify() {
  if (getTiles() < 1)
    return emitOpError("a loop over ") << getTiles() << " tiles";
  auto perCore = getPerCore();
  if (!perCore)
    return success();
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return emitOpError("a tile split over cores outside an ascendc.kernel");
  int64_t per = *perCore, dim = kernel.getBlockDim(), tiles = getTiles();
  if (per < 1)
    return emitOpError("per_core must be at least 1, got ") << per;
  // ceil(tiles / per) cores are busy (no overflow for any int64 values).
  int64_t busy = tiles / per + (tiles % per != 0);
  if (busy > dim)
    return emitOpError("") << dim << " cores x " << per << " tiles per core do not cover "
                           << tiles << " tiles";
  if (busy < dim)
    return emitOpError("core ") << dim - 1 << " of " << dim << " has no tile (" << tiles
                                << " tiles, " << per << " per core)";
  return success();
}

LogicalResult AllocTensorOp::verify() { return lookup<QueueOp>(*this, getQueueAttr(), "a queue"); }
LogicalResult EnQueOp::verify() { return lookup<QueueOp>(*this, getQueueAttr(), "a queue"); }
LogicalResult DeQueOp::verify() { return lookup<QueueOp>(*this, getQueueAttr(), "a queue"); }
LogicalResult FreeTensorOp::verify() { return lookup<QueueOp>(*this, getQueueAttr(), "a queue"); }
LogicalResult GetBufOp::verify() { return lookup<TBufOp>(*this, getBufAttr(), "a tbuf"); }

LogicalResult DataCopyOp::verify() {
  if (bool(getCount()) == bool(getParams()))
    return emitOpError("needs either a count or DataCopyParams");
  if (getParams() && getParams()->size() != 4)
    return emitOpError("DataCopyParams has 4 fields (blockCount, blockLen, srcStride, dstStride), got ")
           << getParams()->size();
  if (getBlockBytes().empty())
    return emitOpError("block_bytes is empty");
  for (int64_t b : getBlockBytes())
    if (b <= 0 || b % 32)
      return emitOpError("DataCopy of a ")
             << b << "-byte block: not a multiple of 32 bytes (use ascendc.data_copy_pad)";
  return success();
}

LogicalResult DataCopyPadOp::verify() {
  if (getParams().size() != 5)
    return emitOpError("DataCopyExtParams has 5 fields (blockCount, blockLen, srcStride, dstStride, rsv), got ")
           << getParams().size();
  if (getBlockBytes().empty())
    return emitOpError("block_bytes is empty");
  for (int64_t b : getBlockBytes())
    if (b <= 0)
      return emitOpError("DataCopyPad of a ") << b << "-byte block";
  return success();
}

LogicalResult VecOp::verify() {
  if (getArgs().empty())
    return emitOpError("a vector instruction without operands");
  if (getElems() <= 0)
    return emitOpError("a vector instruction over ") << getElems() << " elements";
  return success();
}
