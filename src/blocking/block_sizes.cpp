#include "blocking/block_sizes.h"

#include <algorithm>

namespace invar::blocking {
namespace {

int64_t round_up(int64_t x, int64_t multiple) { return (x + multiple - 1) / multiple * multiple; }

// Placeholders until the topology-driven model: a 256-deep k-block keeps a 16-wide B micro-panel
// at 16 KiB; 96 x 256 floats of A is 96 KiB of L2; 4080 columns of B is ~4 MiB of L3.
constexpr int64_t kDefaultKc = 256;
constexpr int64_t kDefaultMc = 96;
constexpr int64_t kDefaultNc = 4080;

}  // namespace

BlockSizes choose_block_sizes(TileShape tile, int64_t m, int64_t n, int64_t k,
                              const BlockOverrides& overrides) {
  BlockSizes b;
  b.kc = overrides.kc > 0 ? overrides.kc : kDefaultKc;
  b.mc = round_up(overrides.mc > 0 ? overrides.mc : kDefaultMc, tile.mr);
  b.nc = round_up(overrides.nc > 0 ? overrides.nc : kDefaultNc, tile.nr);
  b.kc = std::max<int64_t>(1, std::min(b.kc, k));
  b.mc = std::max<int64_t>(tile.mr, std::min(b.mc, round_up(m, tile.mr)));
  b.nc = std::max<int64_t>(tile.nr, std::min(b.nc, round_up(n, tile.nr)));
  return b;
}

}  // namespace invar::blocking
