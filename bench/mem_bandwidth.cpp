// One core's memory read bandwidth: a sum over a buffer many times larger than the last-level
// cache (default 512 MiB against tens of MiB), so every pass streams from DRAM with the caches
// holding nothing useful. The buffer is read as 8 concurrent sequential streams (more hardware
// prefetch streams in flight than one), 64 bytes per stream and step, with SSE2 adds (baseline on
// x86-64); the adds are far faster than DRAM, so the memory system is what is timed. Best of a
// few passes after one untimed pass that faults the pages in. This is the roof for memory-bound
// shapes (e.g. M = 1 against a B much larger than the last-level cache).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "machine.h"

namespace invar_bench {
namespace {

constexpr size_t kStreams = 8;

#if defined(__SSE2__)
double stream_sum(const double* p, size_t count) {
  const size_t len = count / kStreams / 8 * 8;  // doubles per stream, whole 64-byte steps
  __m128d acc[kStreams];
  for (auto& a : acc) a = _mm_setzero_pd();
  for (size_t i = 0; i < len; i += 8) {
    for (size_t s = 0; s < kStreams; ++s) {
      const double* q = p + s * len + i;
      const __m128d x = _mm_add_pd(_mm_load_pd(q), _mm_load_pd(q + 2));
      const __m128d y = _mm_add_pd(_mm_load_pd(q + 4), _mm_load_pd(q + 6));
      acc[s] = _mm_add_pd(acc[s], _mm_add_pd(x, y));
    }
  }
  __m128d total = _mm_setzero_pd();
  for (const auto& a : acc) total = _mm_add_pd(total, a);
  double lanes[2];
  _mm_storeu_pd(lanes, total);
  return lanes[0] + lanes[1];
}
#else
double stream_sum(const double* p, size_t count) {
  const size_t len = count / kStreams;
  double acc[kStreams] = {};
  for (size_t i = 0; i < len; ++i)
    for (size_t s = 0; s < kStreams; ++s) acc[s] += p[s * len + i];
  double total = 0;
  for (double a : acc) total += a;
  return total;
}
#endif

}  // namespace

double read_bandwidth_gbs(int64_t mib) {
  const size_t bytes = size_t(mib) << 20;
  auto* buffer = static_cast<double*>(std::aligned_alloc(4096, bytes));
  if (buffer == nullptr) return 0;
  std::memset(buffer, 0, bytes);
  const size_t count = bytes / sizeof(double);
  volatile double sink = stream_sum(buffer, count);
  double best = 0;
  for (int pass = 0; pass < 6; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
    sink = sink + stream_sum(buffer, count);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, double(bytes) / s * 1e-9);
  }
  std::free(buffer);
  return best;
}

}  // namespace invar_bench
