// invar_bench_decode16: the decode step x * W^T (1 x N x K, W stored N x K) with 16-bit weights
// against invar's own f32 decode, one thread, in one run: alternating repetitions, median times,
// and one core's read bandwidth (mem_bandwidth.cpp) for the bytes-per-second ratio (of the
// fastest run).
//   invar_bench_decode16 [N K reps]   (default 4096 4096 21)
// On the Intel Xeon of blocking/block_sizes.h (2 cores, 300 MiB L3, shared with other work at a
// load average of 7-10), INVAR_ISA=avx512, one thread, W 16384 x 8192 (f32 512 MiB, past the
// L3), median ratio to the f32 decode: x * W^T bf16 1.75x, f16 1.71x (0.95-0.99 of one core's
// read bandwidth over 512 MiB, in bytes, fastest runs); B row-major bf16 1.53x, f16 1.49x;
// prepacked (against f32 prepacked) bf16 1.57x, f16 1.55x. Run to run the ratios moved by
// +-0.2 with the load; W 4096 x 4096 (in the L3) ranged 1.1-2.2x.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "invar/invar.hpp"
#include "numeric/half.h"

namespace invar_bench {
double read_bandwidth_gbs(int64_t mib);
}

namespace {

using invar::MatrixView;
using invar::Op;

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 2 ? std::atoll(argv[1]) : 4096;
  const int64_t k = argc > 2 ? std::atoll(argv[2]) : 4096;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 21;
  invar::ContextOptions o;
  o.num_threads = 1;
  invar::Context ctx(o);
  std::vector<float> w(n * k), x(k), c(n);
  uint64_t s = 88172645463325252ull;
  for (auto& v : w) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    v = static_cast<float>(static_cast<int64_t>(s >> 40) - (1 << 23)) / (1 << 23);
  }
  for (int64_t i = 0; i < k; ++i) x[i] = w[i * 7 % (n * k)];
  std::vector<invar::bf16> wb(n * k), xb(k);
  std::vector<invar::f16> wh(n * k), xh(k);
  for (int64_t i = 0; i < n * k; ++i) {
    wb[i] = invar::numeric::round_to_bf16(w[i]);
    wh[i] = invar::numeric::round_to_f16(w[i]);
  }
  for (int64_t i = 0; i < k; ++i) {
    xb[i] = invar::numeric::round_to_bf16(x[i]);
    xh[i] = invar::numeric::round_to_f16(x[i]);
  }
  struct Case {
    const char* name;
    double bytes;
    std::function<void()> run;
    std::vector<double> t;
  };
  std::vector<Case> cases;
  cases.push_back({"f32 x*W^T", 4.0 * n * k, [&] {
                     invar::gemm(1.0f, Op::kNoTrans, MatrixView<const float>(x.data(), 1, k),
                                 Op::kTrans, MatrixView<const float>(w.data(), n, k), 0.0f,
                                 MatrixView<float>(c.data(), 1, n), ctx);
                   }});
  cases.push_back({"bf16 x*W^T", 2.0 * n * k, [&] {
                     invar::gemm(1.0f, Op::kNoTrans, MatrixView<const invar::bf16>(xb.data(), 1, k),
                                 Op::kTrans, MatrixView<const invar::bf16>(wb.data(), n, k), 0.0f,
                                 MatrixView<float>(c.data(), 1, n), ctx);
                   }});
  cases.push_back({"f16 x*W^T", 2.0 * n * k, [&] {
                     invar::gemm(1.0f, Op::kNoTrans, MatrixView<const invar::f16>(xh.data(), 1, k),
                                 Op::kTrans, MatrixView<const invar::f16>(wh.data(), n, k), 0.0f,
                                 MatrixView<float>(c.data(), 1, n), ctx);
                   }});
  // The same weights read as a row-major K x N B (x * B).
  cases.push_back({"bf16 x*B (B row-major)", 2.0 * n * k, [&] {
                     invar::gemm(1.0f, Op::kNoTrans, MatrixView<const invar::bf16>(xb.data(), 1, k),
                                 Op::kNoTrans, MatrixView<const invar::bf16>(wb.data(), k, n), 0.0f,
                                 MatrixView<float>(c.data(), 1, n), ctx);
                   }});
  cases.push_back({"f16 x*B (B row-major)", 2.0 * n * k, [&] {
                     invar::gemm(1.0f, Op::kNoTrans, MatrixView<const invar::f16>(xh.data(), 1, k),
                                 Op::kNoTrans, MatrixView<const invar::f16>(wh.data(), k, n), 0.0f,
                                 MatrixView<float>(c.data(), 1, n), ctx);
                   }});
  // Prepacked weights (pack_b of W^T): f32 panels against 16-bit ones.
  const invar::PackedB pw = invar::pack_b(Op::kTrans, MatrixView<const float>(w.data(), n, k), ctx);
  const invar::PackedB pwb =
      invar::pack_b(Op::kTrans, MatrixView<const invar::bf16>(wb.data(), n, k), ctx);
  const invar::PackedB pwh =
      invar::pack_b(Op::kTrans, MatrixView<const invar::f16>(wh.data(), n, k), ctx);
  cases.push_back({"f32 prepacked", 4.0 * n * k, [&] {
                     invar::gemm(1.0f, Op::kNoTrans, MatrixView<const float>(x.data(), 1, k), pw,
                                 0.0f, MatrixView<float>(c.data(), 1, n), ctx);
                   }});
  cases.push_back({"bf16 prepacked", 2.0 * n * k, [&] {
                     invar::gemm(1.0f, Op::kNoTrans, MatrixView<const invar::bf16>(xb.data(), 1, k),
                                 pwb, 0.0f, MatrixView<float>(c.data(), 1, n), ctx);
                   }});
  cases.push_back({"f16 prepacked", 2.0 * n * k, [&] {
                     invar::gemm(1.0f, Op::kNoTrans, MatrixView<const invar::f16>(xh.data(), 1, k),
                                 pwh, 0.0f, MatrixView<float>(c.data(), 1, n), ctx);
                   }});
  for (auto& cs : cases) cs.run();  // warm up
  // The bandwidth is measured three times among the repetitions (the machine's load changes
  // during a run) over 512 MiB, more than the largest last-level cache measured (480 MiB); the
  // highest counts.
  double bw = 0;
  for (int r = 0; r < reps; ++r) {
    if (r % ((reps + 2) / 3) == 0) bw = std::max(bw, invar_bench::read_bandwidth_gbs(512));
    for (auto& cs : cases) cs.t.push_back(seconds(cs.run));
  }
  const double f32 = median(cases[0].t);
  std::printf("1 x %lld x %lld, 1 thread, isa %s, median of %d alternating runs\n", (long long)n,
              (long long)k, invar::isa_name(ctx.isa()), reps);
  std::printf("one core's read bandwidth: %.1f GB/s\n", bw);
  // On a loaded machine the fastest run says more of the code than the median does: both shown.
  const double f32_best = *std::min_element(cases[0].t.begin(), cases[0].t.end());
  std::printf("%-24s %10s %8s %9s %9s %8s\n", "", "median ms", "GB/s", "x f32", "best: x f32",
              "of bw");
  for (auto& cs : cases) {
    const double t = median(cs.t);
    const double best = *std::min_element(cs.t.begin(), cs.t.end());
    std::printf("%-24s %10.3f %8.1f %8.2fx %8.2fx %8.2f\n", cs.name, t * 1e3, cs.bytes / t * 1e-9,
                f32 / t, f32_best / best, cs.bytes / best * 1e-9 / bw);
  }
  return 0;
}
