// One row of the benchmark table: a named way of computing C = A * B (row-major, alpha 1, beta 0)
// for the kinds of product it offers (options.h: f32, f32 with B stored transposed, f64, bf16
// inputs with f32 C, uint8 x int8 with int32 C) together with what it reports about itself.
// invar's paths and every peer library are wrapped in the same shape so one timing loop measures
// them all.
#ifndef INVAR_BENCH_GEMM_ROW_H_
#define INVAR_BENCH_GEMM_ROW_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "options.h"
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
  // Empty when the row does not offer that kind of product: its shapes skip the row.
  using Sgemm = std::function<bool(int64_t m, int64_t n, int64_t k, const float* a, const float* b,
                                   float* c, std::string* error)>;
  Sgemm sgemm;
  // C = A * W^T, W (the `b` argument) stored n x k row-major.
  Sgemm sgemm_bt;
  std::function<bool(int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c,
                     std::string* error)>
      dgemm;
  // bf16 A and B (bit patterns: the upper half of an f32), f32 C.
  std::function<bool(int64_t m, int64_t n, int64_t k, const uint16_t* a, const uint16_t* b,
                     float* c, std::string* error)>
      gemm_bf16;
  // uint8 A, int8 B, int32 C (exact: C = A * B modulo 2^32).
  std::function<bool(int64_t m, int64_t n, int64_t k, const uint8_t* a, const int8_t* b, int32_t* c,
                     std::string* error)>
      gemm_u8s8;
  // The CBLAS routines beyond GEMM (options.h: kSgemv ... kDsyrk), in the same shape: for gemv
  // m = 1, a = x, b = the matrix (N x K stored for the plain kinds, K x N for the -t ones), c = y;
  // for syrk a = A (N x K), c = C with its upper triangle written, b unused.
  Sgemm sgemv, sgemv_t, ssyrk;
  std::function<bool(int64_t m, int64_t n, int64_t k, const double*a, const double*b, double*c,
                     std::string*error)>
      dgemv, dgemv_t, dsyrk;
  // The kinds a remote row (below) offers.
  std::vector<Kind> remote_kinds;
  bool offers(Kind kind) const {
    if (remote_start) {
      for (Kind k : remote_kinds)
        if (k == kind) return true;
      return false;
    }
    switch (kind) {
      case Kind::kF32: return bool(sgemm);
      case Kind::kF32Bt: return bool(sgemm_bt);
      case Kind::kF64: return bool(dgemm);
      case Kind::kBf16: return bool(gemm_bf16);
      case Kind::kU8S8: return bool(gemm_u8s8);
      case Kind::kSgemv: return bool(sgemv);
      case Kind::kSgemvT: return bool(sgemv_t);
      case Kind::kDgemv: return bool(dgemv);
      case Kind::kDgemvT: return bool(dgemv_t);
      case Kind::kSsyrk: return bool(ssyrk);
      case Kind::kDsyrk: return bool(dsyrk);
    }
    return false;
  }
  // Run before each turn of this row, untimed (e.g. sets the library to the row's thread count,
  // since rows of one library at several thread counts share its state). May be empty.
  std::function<void()> activate;
  // Run after the row's last turn on a shape (may be empty): drops what the row kept for that
  // shape's operands (e.g. a packed copy), so no later shape can meet it.
  std::function<void()> release;
  // A row computed in another process (numpy) times itself and has no `sgemm`: `remote_start`
  // prepares a shape (of one of `remote_kinds`) there (operands, a first call, a check of its
  // result: sets *check_ok and *check_text, or returns false with *error), then `remote_turn` times
  // one turn, as Turn does.
  std::function<bool(const Shape& shape, bool* check_ok, std::string* check_text,
                     std::string* error)>
      remote_start;
  Turn remote_turn;
};

// Rows that could not be set up, with the reason, for the report ("mkl: libmkl_rt.so.3 not found").
using SkipNotes = std::vector<std::string>;

}  // namespace invar_bench

#endif  // INVAR_BENCH_GEMM_ROW_H_
