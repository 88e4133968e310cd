// Machine facts for the report: CPU identity (invar's own CPUID + XGETBV detection), last-level
// cache size, the FMA peak per vector width and the memory read bandwidth (mem_bandwidth.cpp). A
// peak loop runs from registers only, so cache state does not matter; each is the best of many ~2
// ms bursts over `peak_seconds`, which lets the core reach its sustained clock and ignores bursts
// interrupted by other work on the machine.
#include "machine.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "arch/cpu_features.h"
#include "peak_fma.h"

namespace invar_bench {
namespace {

int64_t read_llc_bytes() {
  int64_t best = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string text;
    if (!(in >> text) || text.empty()) continue;
    int64_t value = std::stoll(text);
    if (text.back() == 'K') value <<= 10;
    if (text.back() == 'M') value <<= 20;
    best = std::max(best, value);
  }
  return best;
}

// GFLOP/s of `chains` x `lanes` FMAs per iteration, best burst over `seconds`.
template <class Fn>
double best_burst_gflops(Fn fn, int chains, int lanes, double seconds) {
  using clock = std::chrono::steady_clock;
  constexpr int64_t kIterations = 1 << 18;
  volatile double sink = fn(kIterations);  // warm-up: wakes the vector units, ramps the clock
  double best = 0;
  const auto start = clock::now();
  do {
    const auto t0 = clock::now();
    sink = sink + fn(kIterations);
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    best = std::max(best, double(kIterations) * chains * lanes * 2.0 / s * 1e-9);
  } while (std::chrono::duration<double>(clock::now() - start).count() < seconds);
  return best;
}

// GFLOP/s of `team` threads running fn at once: rounds of one ~2 ms burst per thread, started
// together (a barrier), each round's flops over its slowest burst; the best round over `seconds`.
template <class Fn>
double team_burst_gflops(Fn fn, int chains, int lanes, double seconds, int team) {
  using clock = std::chrono::steady_clock;
  constexpr int64_t kIterations = 1 << 18;
  const double round_flops = double(kIterations) * chains * lanes * 2.0 * team;
  std::vector<double> took(static_cast<std::size_t>(team));
  double best = 0;
  bool done = false;
  const auto start = clock::now();
  // After each round member 0 scores it and decides whether another follows.
  std::barrier round(team, [&]() noexcept {
    const double slowest = *std::max_element(took.begin(), took.end());
    if (slowest > 0) best = std::max(best, round_flops / slowest * 1e-9);
    done = std::chrono::duration<double>(clock::now() - start).count() >= seconds;
  });
  auto member = [&](int id) {
    volatile double sink = fn(kIterations);  // warm-up
    round.arrive_and_wait();
    while (!done) {
      const auto t0 = clock::now();
      sink = sink + fn(kIterations);
      took[static_cast<std::size_t>(id)] = std::chrono::duration<double>(clock::now() - t0).count();
      round.arrive_and_wait();
    }
  };
  std::vector<std::thread> others;
  for (int id = 1; id < team; ++id) others.emplace_back(member, id);
  member(0);
  for (std::thread& t : others) t.join();
  return best;
}

double measure_team_peak(const Machine& m, double seconds, int team) {
  if (team <= 1) return 0;
#if defined(__x86_64__) || defined(_M_X64)
  if (m.avx512f)
    return team_burst_gflops(fma_chains_avx512, kAvx512Chains, kAvx512Lanes, seconds, team);
  if (m.avx2_fma) return team_burst_gflops(fma_chains_avx2, kAvx2Chains, kAvx2Lanes, seconds, team);
#else
  (void)m, (void)seconds;
#endif
  return 0;
}

void measure_peaks(const Machine& m, double seconds, double* avx2, double* avx512, double* avx2_f64,
                   double* avx512_f64) {
#if defined(__x86_64__) || defined(_M_X64)
  if (m.avx2_fma) {
    *avx2 = best_burst_gflops(fma_chains_avx2, kAvx2Chains, kAvx2Lanes, seconds);
    *avx2_f64 = best_burst_gflops(fma_chains_avx2_f64, kAvx2Chains, kAvx2LanesF64, seconds);
  }
  if (m.avx512f) {
    *avx512 = best_burst_gflops(fma_chains_avx512, kAvx512Chains, kAvx512Lanes, seconds);
    *avx512_f64 = best_burst_gflops(fma_chains_avx512_f64, kAvx512Chains, kAvx512LanesF64, seconds);
  }
#else
  (void)m, (void)seconds, (void)avx2, (void)avx512, (void)avx2_f64, (void)avx512_f64;
#endif
}

}  // namespace

double Machine::peak_for(PeakRef ref, bool f64) const {
  const double avx2 =
      f64 ? std::max(peak_avx2_f64, peak_avx2_f64_end) : std::max(peak_avx2, peak_avx2_end);
  const double avx512 =
      f64 ? std::max(peak_avx512_f64, peak_avx512_f64_end) : std::max(peak_avx512, peak_avx512_end);
  switch (ref) {
    case PeakRef::kAvx2: return avx2;
    case PeakRef::kAvx512: return avx512;
    case PeakRef::kBest: break;
  }
  return std::max(avx2, avx512);
}

std::string Machine::peak_name(PeakRef ref, bool f64) const {
  const std::string suffix = f64 ? "-f64" : "";
  if (ref == PeakRef::kAvx2) return "avx2" + suffix;
  if (ref == PeakRef::kAvx512) return "avx512" + suffix;
  if (peak_avx512 > 0 && peak_avx512 >= peak_avx2) return "avx512" + suffix;
  return peak_avx2 > 0 ? "avx2" + suffix : "none";
}

double Machine::bandwidth() const { return std::max(membw_gbs, membw_gbs_end); }

Machine probe_machine(double peak_seconds, int64_t membw_mib, int team) {
  const auto& f = invar::arch::cpu_features();
  Machine m;
  m.vendor = f.vendor;
  m.brand = f.brand;
  m.avx2_fma = f.avx2_fma;
  m.avx512f = f.avx512f;
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    const int base_family = (eax >> 8) & 0xf, base_model = (eax >> 4) & 0xf;
    m.family = base_family == 0xf ? base_family + int((eax >> 20) & 0xff) : base_family;
    m.model = base_family == 0xf || base_family == 6 ? base_model + int(((eax >> 16) & 0xf) << 4)
                                                     : base_model;
  }
#endif
  m.llc_bytes = read_llc_bytes();
  measure_peaks(m, peak_seconds, &m.peak_avx2, &m.peak_avx512, &m.peak_avx2_f64,
                &m.peak_avx512_f64);
  m.team = std::max(1, team);
  m.team_peak = measure_team_peak(m, peak_seconds, m.team);
  m.membw_mib = membw_mib;
  m.membw_gbs = read_bandwidth_gbs(membw_mib);
  return m;
}

void remeasure(Machine& m, double peak_seconds) {
  measure_peaks(m, peak_seconds, &m.peak_avx2_end, &m.peak_avx512_end, &m.peak_avx2_f64_end,
                &m.peak_avx512_f64_end);
  m.team_peak_end = measure_team_peak(m, peak_seconds, m.team);
  m.membw_gbs_end = read_bandwidth_gbs(m.membw_mib);
}

}  // namespace invar_bench
