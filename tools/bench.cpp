// `invar bench`: one f32, f64, s8, u8 or bf16 product timed on this machine. The full comparison
// against other BLAS libraries lives in bench/; this is the quick look.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "api/context_impl.h"
#include "invar/invar.hpp"
#include "kernels/bf16_dot.h"
#include "numeric/half.h"
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

// bf16 x bf16 -> f32 (alpha 1, beta 0) against invar's own f32 product of the same shape, and
// against the bf16 product with the dot-product kernel turned off (the f32 kernel on widened
// operands), alternating the three in one run so that a loaded machine slows them alike; each
// row's median over the rounds.
int bench_bf16(const BenchOptions& o) {
  const auto wa = test::random_values<float>(o.m * o.k, 1);
  const auto wb = test::random_values<float>(o.k * o.n, 2);
  std::vector<bf16> a(wa.size()), b(wb.size());
  std::vector<float> fa(wa.size()), fb(wb.size());
  for (std::size_t i = 0; i < wa.size(); ++i) {
    a[i] = numeric::round_to_bf16(wa[i]);
    fa[i] = numeric::widen(a[i]);
  }
  for (std::size_t i = 0; i < wb.size(); ++i) {
    b[i] = numeric::round_to_bf16(wb[i]);
    fb[i] = numeric::widen(b[i]);
  }
  std::vector<float> c(o.m * o.n);
  ContextOptions opts;
  opts.num_threads = Context::default_context().num_threads();
  Context on(opts), off(opts);
  on.impl().sbgemm_dot = kernels::bf16_dot_status().kernel;  // where it passes its check
  off.impl().sbgemm_dot = nullptr;
  const MatrixView<const bf16> va(a.data(), o.m, o.k), vb(b.data(), o.k, o.n);
  const MatrixView<const float> vfa(fa.data(), o.m, o.k), vfb(fb.data(), o.k, o.n);
  const MatrixView<float> vc(c.data(), o.m, o.n);
  using clock = std::chrono::steady_clock;
  const char* names[3] = {"sgemm f32", "bf16, widened to f32", "bf16, dot kernel"};
  const std::function<void()> runs[3] = {
      [&] { gemm(1.0f, Op::kNoTrans, vfa, Op::kNoTrans, vfb, 0.0f, vc, on); },
      [&] { gemm(1.0f, Op::kNoTrans, va, Op::kNoTrans, vb, 0.0f, vc, off); },
      [&] { gemm(1.0f, Op::kNoTrans, va, Op::kNoTrans, vb, 0.0f, vc, on); }};
  std::vector<double> times[3];
  for (auto& run : runs) run();  // warm-up
  const auto start = clock::now();
  do {
    for (int r = 0; r < 3; ++r) {
      const auto t0 = clock::now();
      runs[r]();
      times[r].push_back(std::chrono::duration<double>(clock::now() - t0).count());
    }
  } while (std::chrono::duration<double>(clock::now() - start).count() < o.seconds ||
           times[0].size() < 3);
  const double flop = 2.0 * o.m * o.n * o.k;
  double median[3];
  for (int r = 0; r < 3; ++r) {
    std::sort(times[r].begin(), times[r].end());
    median[r] = flop / times[r][times[r].size() / 2] * 1e-9;
  }
  std::printf("%lld x %lld x %lld, isa %s, %d thread(s), %zu rounds, bf16 dot kernel: %s\n",
              static_cast<long long>(o.m), static_cast<long long>(o.n), static_cast<long long>(o.k),
              isa_name(on.isa()), on.num_threads(), times[0].size(),
              on.impl().sbgemm_dot ? on.impl().sbgemm_dot->name : "none");
  for (int r = 0; r < 3; ++r)
    std::printf("  %-22s median %7.2f GFLOP/s  (%.2fx f32)\n", names[r], median[r],
                median[r] / median[0]);
  return 0;
}

}  // namespace

int run_bench(const BenchOptions& o) {
  if (o.type == "bf16") return bench_bf16(o);
  if (o.type == "s8") return bench_int8<int8_t>(o, "s8s8s32");
  if (o.type == "u8") return bench_int8<uint8_t>(o, "u8s8s32");
  return o.type == "f64" ? bench<double>(o, "dgemm") : bench<float>(o, "sgemm");
}

}  // namespace invar::tool
