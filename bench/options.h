// Command line of invar_bench: which shapes, how long per measurement, where the peer libraries
// are, where the results go. Parsing only; no measuring here.
#ifndef INVAR_BENCH_OPTIONS_H_
#define INVAR_BENCH_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace invar_bench {

// What a shape multiplies: f32 C = A * B (B row-major K x N); f32 C = A * W^T with W stored
// N x K row-major (a linear layer's x * W^T); f64 C = A * B; bf16 A and B with an f32 C; uint8 A
// and int8 B with an int32 C (exact integer arithmetic, so every row must give the same bits).
// The BLAS routines beyond GEMM (group "blas", rows that call the CBLAS routine itself):
// sgemv / dgemv y = W * x with W stored N x K row-major (CblasNoTrans), as the GEMM C = x^T * W^T
// with M = 1; sgemv-t / dgemv-t y = W^T * x with W stored K x N (CblasTrans), as C = x^T * W;
// ssyrk / dsyrk the upper triangle of C = A * A^T, A stored N x K (M = N). Each is checked as the
// GEMM it equals (the syrk triangle mirrored first).
enum class Kind {
  kF32,
  kF32Bt,
  kF64,
  kBf16,
  kU8S8,
  kSgemv,
  kSgemvT,
  kDgemv,
  kDgemvT,
  kSsyrk,
  kDsyrk
};

// "f32", "f32-bt", "f64", "bf16", "u8s8", "sgemv", "sgemv-t", "dgemv", "dgemv-t", "ssyrk",
// "dsyrk" (the CSV's op column)
const char* kind_name(Kind kind);

struct Shape {
  int64_t m = 0, n = 0, k = 0;
  // A small square (--small-sizes): reported in calls per second as well, measured at the first
  // thread count only.
  bool small = false;
  Kind kind = Kind::kF32;
  // "1024^3" for squares, else "MxNxK"; other kinds add their name: "1x4096x4096 B^T",
  // "f64 1024^3", "bf16 1024^3", "u8s8 1024^3".
  std::string label() const;
  // Operations of one call, 2 M N K: floating-point ones, or for u8s8 integer multiplies and adds
  // (the tables then say GOP/s).
  // For syrk the triangle's: N (N + 1) K.
  double flop() const {
    return syrk() ? double(n) * double(n + 1) * double(k) : 2.0 * double(m) * double(n) * double(k);
  }
  bool integer() const { return kind == Kind::kU8S8; }
  bool f64() const {
    return kind == Kind::kF64 || kind == Kind::kDgemv || kind == Kind::kDgemvT ||
           kind == Kind::kDsyrk;
  }
  bool syrk() const { return kind == Kind::kSsyrk || kind == Kind::kDsyrk; }
  // B is stored N x K (C = A * B^T).
  bool b_transposed() const {
    return kind == Kind::kF32Bt || kind == Kind::kSgemv || kind == Kind::kDgemv || syrk();
  }
  // Bytes of one element of A and B, and of C.
  double in_bytes() const {
    return f64() ? 8 : kind == Kind::kBf16 ? 2 : kind == Kind::kU8S8 ? 1 : 4;
  }
  double out_bytes() const { return f64() ? 8 : 4; }
};

struct PeerPaths {
  // A path, or a bare soname that the dynamic loader searches for; "" = do not try.
  std::string openblas = "libopenblas.so.0";  // the distribution's OpenBLAS
  std::string openblas_current;  // a current OpenBLAS (e.g. the scipy-openblas32 wheel)
  std::string blis = "libblis.so.4";
  std::string onednn = "libdnnl.so.2";
  std::string mkl;           // libmkl_rt.so.N
  std::string numpy;         // a Python with numpy and threadpoolctl; "" = no numpy row
  std::string numpy_script;  // scripts/bench_numpy.py
  std::string eigen_dir;     // where the Eigen modules are; "" = next to the binary
};

struct Options {
  bool quick = false;
  std::vector<Shape> shapes;
  double seconds_per_cell = 1.0;  // per row and shape, spread over `rounds`
  int rounds = 3;                 // the rows take turns this many times per shape
  int min_reps = 3;
  // Every row runs at each of these thread counts (small squares at the first only); the
  // default is 1 and the cores this process may run on.
  std::vector<int> threads;
  int64_t generic_max = 512;      // invar's portable path only runs shapes up to this size
  bool ladder = true;             // the optimization-ladder rows (plain loops, invar threaded)
  bool sweep_blocking = false;    // the cache-blocking sweep after the shapes (blocking_sweep.h)
  bool sweep_only = false;        // the sweep alone: no shapes, no peers
  int64_t membw_mib = 512;        // buffer of the memory-bandwidth measurement
  double peak_seconds = 0.3;      // per FMA-peak measurement
  std::vector<std::string> only;  // if not empty: run just these rows (by name)
  bool peers = true;
  PeerPaths paths;
  std::string out_dir;  // "" = results/<timestamp>
};

// Parses argv; on --help prints usage and exits 0, on a bad argument prints why and exits 2.
Options parse_options(int argc, char** argv);

}  // namespace invar_bench

#endif  // INVAR_BENCH_OPTIONS_H_
