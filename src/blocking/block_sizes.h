// Cache blocking: how big the packed blocks of the Goto loop nest are.
//
//   KC: depth of a k-block; an MR x KC A micro-panel and a KC x NR B micro-panel stream from L1.
//   MC: rows of a packed A block (MC x KC, meant to stay in L2); a multiple of MR.
//   NC: columns of a packed B block (KC x NC, meant to stay in L3); a multiple of NR.
//
// By the numeric contract none of these can change a result's bits, only its speed, so the
// choice is free per machine and per shape. The values below are fixed placeholders sized for a
// 32-48 KiB L1, 512 KiB-1 MiB L2 and a multi-MiB L3; the cache model derives them from the
// detected topology. Explicit overrides (INVAR_MC/KC/NC, ContextOptions) win over both.
#ifndef INVAR_BLOCKING_BLOCK_SIZES_H_
#define INVAR_BLOCKING_BLOCK_SIZES_H_

#include <cstdint>

namespace invar::blocking {

struct BlockSizes {
  int64_t mc = 0;
  int64_t kc = 0;
  int64_t nc = 0;
};

// Each field > 0 replaces the model's choice (MC and NC rounded up to whole tiles).
struct BlockOverrides {
  int64_t mc = 0;
  int64_t kc = 0;
  int64_t nc = 0;
};

struct TileShape {
  int mr = 1;
  int nr = 1;
};

// Block sizes for an m x n x k product with the given tile; clamped to the problem so small
// products do not reserve large workspaces. Pure function of its arguments.
BlockSizes choose_block_sizes(TileShape tile, int64_t m, int64_t n, int64_t k,
                              const BlockOverrides& overrides);

}  // namespace invar::blocking

#endif  // INVAR_BLOCKING_BLOCK_SIZES_H_
