#include "blocking/block_sizes.h"

#include <algorithm>

namespace invar::blocking {
namespace {

int64_t round_up(int64_t x, int64_t multiple) { return (x + multiple - 1) / multiple * multiple; }
int64_t ceil_div(int64_t x, int64_t y) { return (x + y - 1) / y; }

}  // namespace

int64_t l1_kc(const arch::CacheLevel& l1, TileShape tile, PackedBytes bytes) {
  const int64_t ways = l1.ways;
  const int64_t way = l1.way_bytes();
  const int64_t b_per_k = int64_t{tile.nr} * bytes.b;  // bytes of B micro-panel per unit of k
  const int64_t a_per_k = int64_t{tile.mr} * bytes.a;
  if (way <= 0 || b_per_k <= 0 || a_per_k <= 0) return kMinKc;
  // B's ways, from the most that leave one way for A and one for C down to one.
  for (int64_t b = ways - 2; b >= 1; --b) {
    const int64_t kc = b * way / b_per_k;
    if (kc < 1) break;
    const int64_t a = ceil_div(kc * a_per_k, way);
    if (b + a <= ways - 1) return std::max(kc, kMinKc);
  }
  return kMinKc;
}

int64_t streaming_kc(const arch::CacheLevel& l1, TileShape tile, PackedBytes bytes) {
  const int64_t a_per_k = int64_t{tile.mr} * bytes.a;
  const int64_t in_l1 = a_per_k > 0 ? (l1.ways - 2) * l1.way_bytes() / a_per_k : 0;
  return std::max(in_l1, kStreamKc);
}

int64_t kc_limit(const arch::CacheLevel& l1, TileShape tile, PackedBytes bytes) {
  if (tile.panels_from_l2) return kL2PanelsKc;
  return tile.b_streams ? streaming_kc(l1, tile, bytes) : l1_kc(l1, tile, bytes);
}

int64_t l2_mc(const arch::CacheLevel& l2, TileShape tile, PackedBytes bytes, int64_t kc) {
  const int64_t mr = tile.mr;
  const int64_t a_row = kc * bytes.a;  // bytes of packed A per row of the block
  if (!l2.present() || a_row <= 0 || l2.ways < 1) return mr;
  const int64_t share = l2.bytes / std::max(1, l2.sharing);
  const int64_t way = l2.way_bytes();
  const int64_t share_ways = share / way;
  const int64_t b_ways = ceil_div(int64_t{tile.nr} * kc * bytes.b, way);
  // The share's ways less the B micro-panel's and one for C; a share too small to split by ways
  // (an L2 shared by more workers than it has ways) gives A half of it.
  const int64_t a_ways = share_ways - b_ways - 1;
  const int64_t budget = a_ways >= 1 ? a_ways * way : share / 2;
  return std::max(mr, budget / a_row / mr * mr);
}

int64_t l2_nc(const arch::CacheLevel& l2, TileShape tile, PackedBytes bytes, int64_t kc) {
  const int64_t nr = tile.nr;
  const int64_t b_column = kc * bytes.b;  // bytes of packed B per column of the block
  if (!l2.present() || b_column <= 0) return nr;
  const int64_t share = l2.bytes / std::max(1, l2.sharing);
  return std::max(nr, share / 2 / b_column / nr * nr);
}

int64_t nc_limit(const arch::CacheTopology& topology, TileShape tile, PackedBytes bytes,
                 int64_t kc) {
  return tile.b_block_in_l2 ? l2_nc(topology.l2, tile, bytes, kc)
                            : l3_nc(topology.l3, tile, bytes, kc);
}

int64_t b_block_budget(const arch::CacheLevel& l3) {
  return l3.present() && l3.ways >= 1 ? l3.bytes / std::max(1, l3.sharing) / 4 : 0;
}

int64_t l3_nc(const arch::CacheLevel& l3, TileShape tile, PackedBytes bytes, int64_t kc) {
  const int64_t nr = tile.nr;
  if (!l3.present() || l3.ways < 1) return kNoL3Panels * nr;
  const int64_t b_column = kc * bytes.b;  // bytes of packed B per column of the block
  if (b_column <= 0) return nr;
  return std::max(nr, b_block_budget(l3) / b_column / nr * nr);
}

int64_t balanced_block(int64_t extent, int64_t max_block, int64_t multiple) {
  multiple = std::max<int64_t>(1, multiple);
  max_block = std::max(max_block, multiple);
  if (extent <= max_block) return round_up(std::max<int64_t>(1, extent), multiple);
  const int64_t pieces = ceil_div(extent, max_block);
  return round_up(ceil_div(extent, pieces), multiple);
}

bool fits_in_l1(const arch::CacheTopology& topology, TileShape tile, PackedBytes bytes, int64_t m,
                int64_t n, int64_t k) {
  // Compared in doubles: m, n, k come straight from the caller and their product may not fit.
  const double packed = (static_cast<double>(round_up(m, tile.mr)) * bytes.a +
                         static_cast<double>(round_up(n, tile.nr)) * bytes.b) *
                        static_cast<double>(k);
  return packed <= static_cast<double>(topology.l1d.bytes) / 2;
}

BlockSizes choose_block_sizes(const arch::CacheTopology& topology, TileShape tile,
                              PackedBytes bytes, int64_t m, int64_t n, int64_t k,
                              const BlockOverrides& overrides) {
  tile.mr = std::max(1, tile.mr);
  tile.nr = std::max(1, tile.nr);
  tile.ku = std::max(1, tile.ku);
  bytes.a = std::max(1, bytes.a);
  bytes.b = std::max(1, bytes.b);
  m = std::max<int64_t>(1, m);
  n = std::max<int64_t>(1, n);
  k = std::max<int64_t>(1, k);

  BlockSizes b;
  if (tile.panels_from_l2) {
    b.kc = balanced_block(k, kL2PanelsKc, tile.ku);
    const int64_t depth = std::max(overrides.kc > 0 ? std::min(overrides.kc, k) : b.kc, kMinKc);
    b.mc = balanced_block(m, kL2PanelsMcPanels * tile.mr, tile.mr);
    b.nc = balanced_block(n, l2_nc(topology.l2, tile, bytes, depth), tile.nr);
  } else if (fits_in_l1(topology, tile, bytes, m, n, k)) {
    b = {round_up(m, tile.mr), k, round_up(n, tile.nr)};
  } else {
    b.kc = balanced_block(k, kc_limit(topology.l1d, tile, bytes), tile.ku);
    // MC and NC for the depth actually used (an override's), but never sized for a depth under
    // kMinKc: a shallower K leaves the product bound by C traffic, not by cache capacity.
    const int64_t depth = std::max(overrides.kc > 0 ? std::min(overrides.kc, k) : b.kc, kMinKc);
    b.mc = balanced_block(m, l2_mc(topology.l2, tile, bytes, depth), tile.mr);
    b.nc = balanced_block(n, nc_limit(topology, tile, bytes, depth), tile.nr);
  }
  if (overrides.kc > 0) b.kc = round_up(overrides.kc, tile.ku);
  if (overrides.mc > 0) b.mc = round_up(overrides.mc, tile.mr);
  if (overrides.nc > 0) b.nc = round_up(overrides.nc, tile.nr);
  b.kc = std::max<int64_t>(1, std::min(b.kc, k));
  b.mc = std::max<int64_t>(tile.mr, std::min(b.mc, round_up(m, tile.mr)));
  b.nc = std::max<int64_t>(tile.nr, std::min(b.nc, round_up(n, tile.nr)));
  // C counted at the accumulators' size, which is the packed A element's.
  const double working_set = static_cast<double>(m) * static_cast<double>(k) * bytes.a +
                             static_cast<double>(k) * static_cast<double>(n) * bytes.b +
                             static_cast<double>(m) * static_cast<double>(n) * bytes.a;
  const int64_t llc = topology.l3.bytes > 0 ? topology.l3.bytes : topology.l2.bytes;
  b.prefetch_c = working_set > static_cast<double>(llc);
  const int64_t packed_b_row = round_up(n, tile.nr) * bytes.b;
  const int64_t l2_share = topology.l2.bytes / std::max(1, topology.l2.sharing);
  b.b_l2_depth = std::min(k, std::max<int64_t>(0, l2_share / 2 / packed_b_row));
  b.b_block_budget = b_block_budget(topology.l3);
  return b;
}

}  // namespace invar::blocking
