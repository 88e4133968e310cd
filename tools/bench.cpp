// `invar bench`: one f32 or f64 product timed on this machine. The full comparison against other BLAS
// libraries lives in bench/; this is the quick look.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "invar/invar.hpp"
#include "testing/seeded_data.h"
#include "tools/commands.h"

namespace invar::tool {

namespace {

template <class T>
int bench(const BenchOptions& o, const char* name) {
  const auto a = test::random_values<T>(o.m * o.k, 1);
  const auto b = test::random_values<T>(o.k * o.n, 2);
  std::vector<T> c(o.m * o.n);
  Context& context = Context::default_context();
  auto once = [&] {
    gemm(T(1), Op::kNoTrans, MatrixView<const T>(a.data(), o.m, o.k), Op::kNoTrans,
         MatrixView<const T>(b.data(), o.k, o.n), T(0), MatrixView<T>(c.data(), o.m, o.n),
         context);
  };
  using clock = std::chrono::steady_clock;
  once();  // warm-up: workspace allocation, page faults, caches
  std::vector<double> times;
  const auto start = clock::now();
  do {
    const auto t0 = clock::now();
    once();
    times.push_back(std::chrono::duration<double>(clock::now() - t0).count());
  } while (std::chrono::duration<double>(clock::now() - start).count() < o.seconds ||
           times.size() < 3);
  std::sort(times.begin(), times.end());
  const double flop = 2.0 * o.m * o.n * o.k;
  std::printf("%s %lld x %lld x %lld, isa %s, %d thread(s), %zu runs: median %.2f GFLOP/s, "
              "best %.2f GFLOP/s\n",
              name, static_cast<long long>(o.m), static_cast<long long>(o.n),
              static_cast<long long>(o.k), isa_name(context.isa()), context.num_threads(),
              times.size(), flop / times[times.size() / 2] * 1e-9, flop / times.front() * 1e-9);
  return 0;
}

}  // namespace

int run_bench(const BenchOptions& o) {
  return o.type == "f64" ? bench<double>(o, "dgemm") : bench<float>(o, "sgemm");
}

}  // namespace invar::tool
