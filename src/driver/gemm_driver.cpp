#include "driver/gemm_driver.h"

#include <algorithm>
#include <cstring>

namespace invar::driver {
namespace {

using kernels::AccInit;
using kernels::GemmKernel;

std::size_t align_up(std::size_t x) {
  return (x + runtime::kBufferAlignment - 1) / runtime::kBufferAlignment *
         runtime::kBufferAlignment;
}

const char* at(const void* base, int64_t elements, int elem_bytes) {
  return static_cast<const char*>(base) + elements * elem_bytes;
}

// A partial tile (rows < MR or cols < NR) runs on an MR x NR scratch tile: the valid part of C
// is copied in (unless the accumulators start from zero, where C must not be read), the kernel
// runs on whole registers as usual, and the valid part is copied back. The scratch's padding is
// zeroed so no lane ever computes on uninitialised memory.
void edge_tile(const GemmKernel& kern, int64_t kc, const void* a_panel, const void* b_panel,
               char* c, int64_t ldc, int64_t rows, int64_t cols, AccInit init, const void* beta,
               char* scratch) {
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * kern.c_bytes;
  const std::size_t scratch_row = static_cast<std::size_t>(kern.nr) * kern.c_bytes;
  std::memset(scratch, 0, scratch_row * kern.mr);
  if (init != AccInit::kZero) {
    for (int64_t i = 0; i < rows; ++i)
      std::memcpy(scratch + i * scratch_row, c + i * ldc * kern.c_bytes, row_bytes);
  }
  kern.ukernel(kc, a_panel, b_panel, scratch, kern.nr, init, beta);
  for (int64_t i = 0; i < rows; ++i)
    std::memcpy(c + i * ldc * kern.c_bytes, scratch + i * scratch_row, row_bytes);
}

// Asks for the rows of the next C tile while the kernel works on this one: the kernel's first
// instructions load its accumulators from C, and with a power-of-two ldc the rows of a tile are
// a page apart, so a miss there would stall every chain at once. No numeric effect.
void prefetch_tile(const char* c, int64_t ldc, int64_t rows, const GemmKernel& kern) {
  const int64_t row_bytes = static_cast<int64_t>(kern.nr) * kern.c_bytes;
  for (int64_t i = 0; i < rows; ++i) {
    const char* row = c + i * ldc * kern.c_bytes;
    __builtin_prefetch(row, 1, 3);
    __builtin_prefetch(row + row_bytes - 1, 1, 3);
  }
}

// All tiles of one packed A block (mc x kc) times one packed B block (kc x nc).
void macro_kernel(const GemmKernel& kern, int64_t mc, int64_t nc, int64_t kc,
                  const char* a_packed, const char* b_packed, char* c, int64_t ldc,
                  AccInit init, const void* beta, char* scratch) {
  const int64_t a_panel_bytes = kc * kern.mr * kern.a_packed_bytes;
  const int64_t b_panel_bytes = kc * kern.nr * kern.b_packed_bytes;
  for (int64_t jr = 0; jr < nc; jr += kern.nr) {
    const int64_t cols = std::min<int64_t>(kern.nr, nc - jr);
    const char* b_panel = b_packed + (jr / kern.nr) * b_panel_bytes;
    for (int64_t ir = 0; ir < mc; ir += kern.mr) {
      const int64_t rows = std::min<int64_t>(kern.mr, mc - ir);
      const char* a_panel = a_packed + (ir / kern.mr) * a_panel_bytes;
      char* c_tile = c + (ir * ldc + jr) * kern.c_bytes;
      if (ir + kern.mr < mc) {
        prefetch_tile(c_tile + kern.mr * ldc * kern.c_bytes, ldc,
                      std::min<int64_t>(kern.mr, mc - ir - kern.mr), kern);
      }
      if (rows == kern.mr && cols == kern.nr) {
        kern.ukernel(kc, a_panel, b_panel, c_tile, ldc, init, beta);
      } else {
        edge_tile(kern, kc, a_panel, b_panel, c_tile, ldc, rows, cols, init, beta, scratch);
      }
    }
  }
}

}  // namespace

void run_gemm(const GemmKernel& kern, const GemmProblem& p, const blocking::BlockSizes& blocks,
              runtime::Workspace& workspace) {
  const int64_t mr = kern.mr, nr = kern.nr;
  const int64_t mc_max = (blocks.mc + mr - 1) / mr * mr;
  const int64_t nc_max = (blocks.nc + nr - 1) / nr * nr;
  const int64_t kc_max = blocks.kc;

  const std::size_t a_bytes = align_up(static_cast<std::size_t>(mc_max * kc_max) *
                                       kern.a_packed_bytes);
  const std::size_t b_bytes = align_up(static_cast<std::size_t>(nc_max * kc_max) *
                                       kern.b_packed_bytes);
  const std::size_t tile_bytes = align_up(static_cast<std::size_t>(mr * nr) * kern.c_bytes);
  char* base = static_cast<char*>(workspace.reserve(a_bytes + b_bytes + tile_bytes));
  char* a_packed = base;
  char* b_packed = base + a_bytes;
  char* scratch = b_packed + b_bytes;

  for (int64_t jc = 0; jc < p.n; jc += nc_max) {
    const int64_t nc = std::min(nc_max, p.n - jc);
    for (int64_t pc = 0; pc < p.k; pc += kc_max) {
      const int64_t kc = std::min(kc_max, p.k - pc);
      const AccInit init = pc == 0 ? p.first_init : AccInit::kLoad;
      kern.pack_b(kc, nc, at(p.b, pc * p.b_rs + jc * p.b_cs, kern.b_in_bytes), p.b_rs, p.b_cs,
                  b_packed);
      for (int64_t ic = 0; ic < p.m; ic += mc_max) {
        const int64_t mc = std::min(mc_max, p.m - ic);
        kern.pack_a(mc, kc, at(p.a, ic * p.a_rs + pc * p.a_cs, kern.a_in_bytes), p.a_rs, p.a_cs,
                    p.alpha, a_packed);
        char* c_block = static_cast<char*>(p.c) + (ic * p.ldc + jc) * kern.c_bytes;
        macro_kernel(kern, mc, nc, kc, a_packed, b_packed, c_block, p.ldc, init, p.beta, scratch);
      }
    }
  }
}

}  // namespace invar::driver
