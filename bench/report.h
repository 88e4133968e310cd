// The results of one run and how they are written: measurements.csv (every row x shape),
// machine.csv (peaks, bandwidth, CPU), summary.md (the README's table) and report.md (tables of
// GFLOP/s, % of peak and invar / best peer, the decode step in GB/s, bf16 and u8s8 against f32,
// the optimization ladder, the blocking sweep when it ran), all in one results folder; with a
// sweep also blocking_sweep.csv and blocking_sweep_summary.csv.
#ifndef INVAR_BENCH_REPORT_H_
#define INVAR_BENCH_REPORT_H_

#include <string>
#include <vector>

#include "blocking_sweep.h"
#include "check.h"
#include "gemm_row.h"
#include "machine.h"
#include "options.h"
#include "timing.h"

namespace invar_bench {

// One number printed with a printf format, for tables ("%.1f").
std::string fmt(const char* format, double v);

struct Measurement {
  Shape shape;
  size_t row = 0;  // index into Run::rows
  Timing timing;
  Check check;
  double peak = 0;  // the row's FMA peak, GFLOP/s: one core's x the row's threads
  double roof = 0;  // min(peak, arithmetic intensity x memory bandwidth)
  double gflops_median() const;
  double gflops_best() const;
  double gflops_median_cpu() const;  // on the median CPU time per call
  bool memory_bound() const { return roof < peak; }
};

struct Run {
  std::string timestamp;
  Options options;
  Machine machine;
  std::vector<GemmRow> rows;
  SkipNotes skips;
  std::vector<std::string> environment;  // "NAME=value" of the variables that steer the libraries
  std::vector<Measurement> results;
  BlockingSweep sweep;
};

// The peak a row is compared with on a shape: one core's measured FMA peak for its vector width
// (the f64 peak for f64 shapes), times the threads it runs on.
double row_peak(const Machine& machine, const GemmRow& row, const Shape& shape);

// min(peak, flop / minimal bytes moved x bandwidth): the roofline for the shape.
double roofline_gflops(const Shape& shape, double peak_gflops, double bandwidth_gbs);

std::string markdown_report(const Run& run);

// The short form for the README: the best invar path against the best peer per shape and thread
// count (GFLOP/s; small squares in calls per second), with the date, CPU, peak and bandwidth.
std::string summary_markdown(const Run& run);

// Writes the three files into `dir` (created if needed); false and *error on failure.
bool write_results(const Run& run, const std::string& dir, std::string* error);

}  // namespace invar_bench

#endif  // INVAR_BENCH_REPORT_H_
