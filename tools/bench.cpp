// `invar bench`: one f32, f64, s8 or u8 product timed on this machine. The full comparison against
// other BLAS libraries lives in bench/; this is the quick look.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "invar/invar.hpp"
#include "testing/seeded_data.h"
#include "tools/commands.h"

namespace invar::tool {

namespace {

template <class Fn>
int time_and_report(const BenchOptions& o, const char* name, const char* unit, Fn&& once) {
  Context& context = Context::default_context();
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
  double total = 0;
  for (double t : times) total += t;
  const double flop = 2.0 * o.m * o.n * o.k;
  // The mean counts the slow calls the median hides (a worker woken from sleep, a descheduling).
  std::printf(
      "%s %lld x %lld x %lld, isa %s, %d thread(s), %zu runs: median %.2f %s, "
      "mean %.2f %s, best %.2f %s\n",
      name, static_cast<long long>(o.m), static_cast<long long>(o.n), static_cast<long long>(o.k),
      isa_name(context.isa()), context.num_threads(), times.size(),
      flop / times[times.size() / 2] * 1e-9, unit,
      flop * static_cast<double>(times.size()) / total * 1e-9, unit, flop / times.front() * 1e-9,
      unit);
  return 0;
}

template <class T>
int bench(const BenchOptions& o, const char* name) {
  const auto a = test::random_values<T>(o.m * o.k, 1);
  const auto b = test::random_values<T>(o.k * o.n, 2);
  std::vector<T> c(o.m * o.n);
  Context& context = Context::default_context();
  auto once = [&] {
    gemm(T(1), Op::kNoTrans, MatrixView<const T>(a.data(), o.m, o.k), Op::kNoTrans,
         MatrixView<const T>(b.data(), o.k, o.n), T(0), MatrixView<T>(c.data(), o.m, o.n), context);
  };
  return time_and_report(o, name, "GFLOP/s", once);
}

// s8 x s8 or u8 x s8 -> s32 (ASrc the type of A), alpha = 1, beta = 0, over the whole range of
// each type; rated in operations (a multiply and an add each), comparable with GFLOP/s.
template <class ASrc>
int bench_int8(const BenchOptions& o, const char* name) {
  test::Rng rng(1);
  std::vector<ASrc> a(o.m * o.k);
  std::vector<int8_t> b(o.k * o.n);
  for (ASrc& x : a) x = static_cast<ASrc>(rng.next() >> 56);
  for (int8_t& x : b) x = static_cast<int8_t>(rng.next() >> 56);
  std::vector<int32_t> c(o.m * o.n);
  Context& context = Context::default_context();
  auto once = [&] {
    gemm(1, Op::kNoTrans, MatrixView<const ASrc>(a.data(), o.m, o.k), Op::kNoTrans,
         MatrixView<const int8_t>(b.data(), o.k, o.n), 0, MatrixView<int32_t>(c.data(), o.m, o.n),
         context);
  };
  return time_and_report(o, name, "GOP/s", once);
}

}  // namespace

int run_bench(const BenchOptions& o) {
  if (o.type == "s8") return bench_int8<int8_t>(o, "s8s8s32");
  if (o.type == "u8") return bench_int8<uint8_t>(o, "u8s8s32");
  return o.type == "f64" ? bench<double>(o, "dgemm") : bench<float>(o, "sgemm");
}

}  // namespace invar::tool
