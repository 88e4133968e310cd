// What this machine can do, measured in the same run as the GEMMs: the core's FMA peak for each
// vector width the CPU supports, in f32 and in f64, and the memory read bandwidth of one core.
#ifndef INVAR_BENCH_MACHINE_H_
#define INVAR_BENCH_MACHINE_H_

#include <cstdint>
#include <string>

#include "gemm_row.h"

namespace invar_bench {

struct Machine {
  std::string vendor, brand;
  bool avx2_fma = false, avx512f = false;
  int family = 0, model = 0;  // x86 CPUID display family and model, 0 elsewhere
  int64_t llc_bytes = 0;      // last-level cache of cpu0 (sysfs), 0 if unknown
  double peak_avx2 = 0;       // GFLOP/s of one core, 0 = not supported or not measured
  double peak_avx512 = 0;
  double peak_avx2_end = 0;  // the same, measured again after the GEMMs (drift check)
  double peak_avx512_end = 0;
  double peak_avx2_f64 = 0;  // the same for f64 FMAs (half the lanes)
  double peak_avx512_f64 = 0;
  double peak_avx2_f64_end = 0;
  double peak_avx512_f64_end = 0;
  // The widest f32 loop on `team` threads at once (the largest --threads), GFLOP/s of them all,
  // at the start and the end: what the machine gives a team. Two vCPUs may share one core's FMA
  // units, and then no library runs two threads faster than one. 0: not measured (team 1).
  int team = 1;
  double team_peak = 0;
  double team_peak_end = 0;
  // One core's peak of the loop the team peak runs (the widest), at the start or the end.
  double team_loop_peak(bool end) const {
    if (avx512f) return end ? peak_avx512_end : peak_avx512;
    return end ? peak_avx2_end : peak_avx2;
  }
  double membw_gbs = 0;      // one core's read bandwidth from DRAM, GB/s (1e9 bytes/s)
  double membw_gbs_end = 0;  // the same, measured again after the GEMMs
  int64_t membw_mib = 0;

  // The peak a row is compared with: its own vector width for invar's SIMD paths, the widest one
  // measured for everything else. The larger of the start and end measurements.
  // With `f64`, the f64 peaks.
  double peak_for(PeakRef ref, bool f64 = false) const;
  std::string peak_name(PeakRef ref, bool f64 = false) const;
  // The larger of the start and end bandwidth measurements.
  double bandwidth() const;
};

// Detects the CPU, measures the FMA peaks (about `peak_seconds` each; the widest one also on
// `team` threads at once when team > 1) and the read bandwidth over `membw_mib` MiB.
Machine probe_machine(double peak_seconds, int64_t membw_mib, int team);

// Measures the peaks and the bandwidth again into the *_end fields.
void remeasure(Machine& machine, double peak_seconds);

// Best-of-several read bandwidth of a stream sum over a `mib` MiB buffer (mem_bandwidth.cpp).
double read_bandwidth_gbs(int64_t mib);

}  // namespace invar_bench

#endif  // INVAR_BENCH_MACHINE_H_
