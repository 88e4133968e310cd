// One row of the benchmark table: a named way of computing C = A * B (f32, row-major, no
// transposes, alpha 1, beta 0) together with what it reports about itself. invar's paths and
// every peer library are wrapped in the same shape so one timing loop measures them all.
#ifndef INVAR_BENCH_GEMM_ROW_H_
#define INVAR_BENCH_GEMM_ROW_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "timing.h"

namespace invar_bench {

// Which measured FMA peak a row's GFLOP/s is compared with.
enum class PeakRef { kAvx2, kAvx512, kBest };

struct GemmRow {
  std::string name;     // short, stable id used in the CSV and the tables: "invar-avx2", "blis"
  std::string library;  // name and version: "OpenBLAS 0.3.21"
  std::string kernel;   // the code path it reports: micro-kernel, corename, ISA
  std::string path;     // the shared object it came from ("" when linked in)
  int threads = 1;      // the thread count it reports after being set
  int requested_threads = 1;  // the thread count it was asked for: the table line it belongs to
  bool is_invar = false;
  PeakRef peak = PeakRef::kBest;
  int64_t max_dim = 0;  // skip shapes with any dimension above this; 0 = no limit
  // Position on the optimization ladder (1 = the textbook loop, upwards), 0 = not on it.
  int ladder_step = 0;
  // Whether the row is compared with the peers (the ratio and GFLOP/s tables); ladder-only rows
  // (plain loops, invar on all threads) are not.
  bool peer_table = true;
  // C (m x n) = A (m x k) * B (k x n); returns false (and fills *error) when the call failed.
  std::function<bool(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                     std::string* error)>
      sgemm;
  // Run before each turn of this row, untimed (e.g. sets the library to the row's thread count,
  // since rows of one library at several thread counts share its state). May be empty.
  std::function<void()> activate;
  // A row computed in another process (numpy) times itself and has no `sgemm`: `remote_start`
  // prepares a shape there (operands, a first call, a check of its result: sets *check_ok and
  // *check_text, or returns false with *error), then `remote_turn` times one turn, as Turn does.
  std::function<bool(int64_t m, int64_t n, int64_t k, bool* check_ok, std::string* check_text,
                     std::string* error)>
      remote_start;
  Turn remote_turn;
};

// Rows that could not be set up, with the reason, for the report ("mkl: libmkl_rt.so.3 not found").
using SkipNotes = std::vector<std::string>;

}  // namespace invar_bench

#endif  // INVAR_BENCH_GEMM_ROW_H_
