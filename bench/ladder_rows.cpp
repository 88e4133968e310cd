// The lower steps of the optimization ladder: C = A * B written the way a user would write it,
// without invar. They show what each idea is worth on this machine, below invar's own steps
// (portable path, SIMD path on one thread, SIMD path on all threads; see invar_rows.cpp):
//   ladder-naive-ijk  the textbook triple loop: B is walked down a column in the inner loop, and
//                     each C element is one serial chain of adds
//   ladder-ikj        loop order i-k-j: the inner loop runs along rows of B and C, contiguous,
//                     which the compiler vectorizes with the baseline instruction set
//   ladder-blocked    the same i-k-j loop over fixed blocks of B that stay in L2
// This file is compiled with the project's default Release flags (-O3 -DNDEBUG) and nothing
// else: baseline x86-64 (SSE2, no FMA) on x86, no -march, no -ffast-math, no explicit SIMD. That
// is what these loops cost a user who writes them; they make no bit-exactness promise.
#include <algorithm>
#include <cstdint>

#include "rows.h"

namespace invar_bench {
namespace {

void naive_ijk(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
}

void ikj(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  for (int64_t i = 0; i < m; ++i) {
    float* ci = c + i * n;
    for (int64_t j = 0; j < n; ++j) ci[j] = 0;
    for (int64_t p = 0; p < k; ++p) {
      const float aip = a[i * k + p];
      const float* bp = b + p * n;
      for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

// A kKb x kNb block of B is 256 KiB (half of a 512 KiB L2) and is reused for every row of A; the
// kNb-wide segment of a C row it updates (2 KiB) stays in L1 across the block's kKb rows.
constexpr int64_t kKb = 128, kNb = 512;

void blocked_ikj(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  std::fill(c, c + m * n, 0.0f);
  for (int64_t j0 = 0; j0 < n; j0 += kNb) {
    const int64_t j1 = std::min(n, j0 + kNb);
    for (int64_t p0 = 0; p0 < k; p0 += kKb) {
      const int64_t p1 = std::min(k, p0 + kKb);
      for (int64_t i = 0; i < m; ++i) {
        float* ci = c + i * n;
        for (int64_t p = p0; p < p1; ++p) {
          const float aip = a[i * k + p];
          const float* bp = b + p * n;
          for (int64_t j = j0; j < j1; ++j) ci[j] += aip * bp[j];
        }
      }
    }
  }
}

using Loop = void (*)(int64_t, int64_t, int64_t, const float*, const float*, float*);

GemmRow ladder_row(const char* name, const char* kernel, int step, int64_t max_dim, Loop loop) {
  GemmRow row;
  row.name = name;
  row.library = "plain C++ loop (bench/ladder_rows.cpp)";
  row.kernel = kernel;
  row.threads = 1;
  row.ladder_step = step;
  row.peer_table = false;
  row.max_dim = max_dim;
  row.sgemm = [loop](int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                     std::string*) {
    loop(m, n, k, a, b, c);
    return true;
  };
  return row;
}

}  // namespace

void add_ladder_rows(std::vector<GemmRow>* rows) {
  // Largest sizes: at most about 2 s per call on a ~3 GHz core. Past them the naive loop takes
  // ~6 s at 1024^3 (its column walk down B misses every cache) and i-k-j ~3.5 s at 2048^3 (it
  // streams all of B from L3 for every row of C).
  rows->push_back(ladder_row("ladder-naive-ijk",
                             "i-j-k loops, -O3: one serial add chain per C element", 1, 512,
                             naive_ijk));
  rows->push_back(ladder_row("ladder-ikj", "i-k-j loops, -O3, compiler-vectorized", 2, 1024, ikj));
  rows->push_back(
      ladder_row("ladder-blocked", "i-k-j over 128 x 512 blocks of B, -O3", 3, 2048, blocked_ikj));
}

}  // namespace invar_bench
