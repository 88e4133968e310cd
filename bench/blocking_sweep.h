// The cache-blocking sweep: is the analytic blocking model's choice (src/blocking/block_sizes.h)
// as fast as the best fixed MC, KC, NC on this machine? For invar's best SIMD path on one thread
// and squares 1024, 2048 and (unless quick) 4096, it times the model's choice (ContextOptions
// mc = kc = nc = 0) against a grid of fixed blocks around it:
//   KC x {0.5, 0.75, 1, 1.25, 1.5}, MC x {0.5, 0.75, 1, 1.5} (a multiple of MR),
//   NC in {model, N/2}
// (at 4096, where a call takes seconds, KC x {0.75, 1, 1.25} and MC x {0.75, 1, 1.5}).
//
// Two passes, both on one shared, noisy machine:
//   screen   every grid point once, in a shuffled order, for a fixed number of calls; the model's
//            choice is timed again after every few points, and each point is scored against the
//            model's measurements just before and after it (so slow drift cancels).
//   confirm  the best-scoring points and the model take turns for several rounds. The reported
//            ratio model / best fixed comes from this pass only: re-measuring the winners removes
//            the upward bias of picking the best of many noisy screening numbers.
// The model's own grid point (factors 1, 1, model NC) is the model's choice and is not a
// "fixed" candidate: a ratio >= 1 means no other point of the grid beat the model.
#ifndef INVAR_BENCH_BLOCKING_SWEEP_H_
#define INVAR_BENCH_BLOCKING_SWEEP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "timing.h"

namespace invar_bench {

struct SweepConfig {
  int64_t mc = 0, kc = 0, nc = 0;  // the blocks the driver runs with (after rounding to tiles)
  double mc_factor = 1, kc_factor = 1;
  bool nc_half = false;  // NC = N/2 instead of the model's NC
  bool is_model = false;
  std::string label() const;    // "MC 342 KC 256 NC 1024"
  std::string factors() const;  // "MC x0.75 KC x1.25 NC N/2", "model"
};

// One slot of timed calls of one configuration.
struct SweepSample {
  size_t config = 0;  // index into SweepSize::configs
  int pass_slot = 0;  // screen: position in the sequence; confirm: round
  Timing timing;
  double gflops = 0;        // on the median call
  double model_ref = 0;     // screen: the model's GFLOP/s around this slot
  double rel_to_model = 0;  // gflops / model_ref
};

struct SweepSize {
  int64_t n = 0;
  std::vector<SweepConfig> configs;  // configs[0] is the model's choice
  std::vector<SweepSample> screen, confirm;
  std::vector<size_t> finalists;        // configs re-measured in the confirm pass (model excluded)
  std::vector<double> finalist_gflops;  // their confirm medians, in the same order
  double model_gflops = 0;              // confirm pass, median over all its calls
  size_t best_fixed = 0;                // the finalist with the highest confirm median
  double best_gflops = 0;
  double ratio = 0;                                   // model_gflops / best_gflops
  double round_ratio_min = 0, round_ratio_max = 0;    // the same ratio per confirm round
  double model_screen_min = 0, model_screen_max = 0;  // drift of the model during screening
  double seconds = 0;                                 // wall time of this size
  std::string error;
};

struct BlockingSweep {
  bool ran = false;
  std::string isa, kernel;  // "avx2", "sgemm_avx2_6x16 (6x16)"
  std::string caches;       // the topology the model saw
  std::vector<SweepSize> sizes;
  std::vector<std::string> notes;
};

// Runs the sweep (about 3 minutes; about 1 without 4096 when quick), printing progress.
BlockingSweep run_blocking_sweep(bool quick);

// The report section, and blocking_sweep.csv + blocking_sweep_summary.csv in `dir`
// (sweep_report.cpp).
std::string sweep_markdown(const BlockingSweep& sweep);
bool write_sweep_csv(const BlockingSweep& sweep, const std::string& dir);

}  // namespace invar_bench

#endif  // INVAR_BENCH_BLOCKING_SWEEP_H_
