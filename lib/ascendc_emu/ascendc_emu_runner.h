// Ascend C CPU emulation: runs one kernel over blockDim blocks (sequentially,
// GetBlockIdx() = 0 .. blockDim-1) and turns an AscendC::Error (or an error
// found when the kernel's queues are destroyed) into a message for the caller.
// Used by the C wrapper msmlir.ascend generates around an emitted kernel.
#pragma once

#include <cstdio>
#include <exception>

#include "kernel_operator.h"

namespace AscendC {
namespace emu {

// stats: [DataCopy calls, DataCopy bytes, vector ops, vector elements, Mmad
//         calls, Mmad MACs, peak UB, peak L1, peak L0A, peak L0B, peak L0C]
template <typename F>
int run_blocks(const char* kernel, uint32_t blockDim, char* err, int errlen, uint64_t* stats, F&& body) {
  kernel_name() = kernel;
  pending().clear();
  for (auto& c : counters()) c = 0;
  auto& c = core();
  for (int h = 0; h < 6; ++h) c.peak[h] = 0;
  int rc = 0;
  if (blockDim == 0) {
    std::snprintf(err, errlen, "%s: launch: blockDim is 0", kernel);
    return 1;
  }
  block_num() = blockDim;
  for (uint32_t b = 0; b < blockDim && rc == 0; ++b) {
    block_idx() = b;
    for (auto& m : c.mem) std::fill(m.begin(), m.end(), uint8_t(0xFF));  // poison: stale data is NaN
    try {
      body();
    } catch (const Error& e) {
      std::snprintf(err, errlen, "%s", e.what());
      rc = 1;
    } catch (const std::exception& e) {
      std::snprintf(err, errlen, "%s: C++ exception: %s (block %u)", kernel, e.what(), b);
      rc = 2;
    }
    if (rc == 0 && !pending().empty()) {
      std::snprintf(err, errlen, "%s", pending().c_str());
      rc = 1;
    }
  }
  pending().clear();
  if (stats) {
    for (int i = 0; i < 6; ++i) stats[i] = counters()[i];
    for (int h = 1; h < 6; ++h) stats[5 + h] = c.peak[h];
  }
  return rc;
}

}  // namespace emu
}  // namespace AscendC
