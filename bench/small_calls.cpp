// Small products in calls per second, one thread: invar against OpenBLAS (cblas), Eigen (a Map
// product, as users write it: the eigen_module.cpp module) and libxsmm (libxsmm_sgemm /
// libxsmm_dgemm, and a kernel dispatched once and called directly), f32 and f64, row-major
// C = A * B with alpha 1 and beta 0, operands in L1 (the same A, B and C on every call). Then a
// strided batch of 10,000 products of one shape: invar_sgemm_batch_strided against libxsmm's
// dispatched kernel over the same entries (a user's loop). The rows take turns, three rounds per
// shape (--rounds); each row's best round is reported. On a shared machine whose slow phases last
// longer than a round, more and shorter rounds give each row a better chance of a quiet one.
//
//   invar_bench_small [--seconds S] [--rounds N] [--openblas PATH] [--squares 4,8,...]
//                     [--no-skinny] [--shapes MxNxK,...]
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dl.h"
#include "invar/invar.h"

namespace {

using invar_bench::dl_open;
using invar_bench::dl_sym;
using invar_bench::executable_dir;

enum { kRowMajor = 101, kNoTrans = 111 };
using CblasS = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                        float, float*, int);
using CblasD = void (*)(int, int, int, int, int, int, double, const double*, int, const double*,
                        int, double, double*, int);
template <class T>
using PeerGemm = void (*)(int64_t, int64_t, int64_t, const T*, const T*, T*);
template <class T>
using XsmmKernel = void (*)(const T*, const T*, T*, ...);

struct Peers {
  CblasS openblas_s = nullptr;
  CblasD openblas_d = nullptr;
  PeerGemm<float> eigen_s = nullptr;
  PeerGemm<double> eigen_d = nullptr;
  PeerGemm<float> xsmm_s = nullptr;
  PeerGemm<double> xsmm_d = nullptr;
  void* (*xsmm_skernel)(int64_t, int64_t, int64_t) = nullptr;
  void* (*xsmm_dkernel)(int64_t, int64_t, int64_t) = nullptr;
};

struct Shape {
  int64_t m, n, k;
};

// Calls per second of fn (which makes `per` products per call), best of the rounds it was given.
struct Row {
  std::string name;
  std::function<void()> fn;
  int64_t per = 1;
  double best = 0;
};

double time_row(Row& row, double seconds) {
  using clock = std::chrono::steady_clock;
  int64_t calls = 0;
  const auto start = clock::now();
  auto now = start;
  const auto end = start + std::chrono::duration<double>(seconds);
  while (now < end) {
    for (int i = 0; i < 64; ++i) row.fn();
    calls += 64;
    now = clock::now();
  }
  const double rate =
      static_cast<double>(calls * row.per) / std::chrono::duration<double>(now - start).count();
  row.best = std::max(row.best, rate);
  return rate;
}

template <class T>
invar_status invar_call(const Shape& s, const T* a, const T* b, T* c) {
  if constexpr (sizeof(T) == 4)
    return invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, s.m, s.n, s.k, 1.0f, a, s.k, b, s.n, 0.0f, c,
                       s.n);
  else
    return invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, s.m, s.n, s.k, 1.0, a, s.k, b, s.n, 0.0, c,
                       s.n);
}

template <class T>
invar_status invar_batch(const Shape& s, const T* a, const T* b, T* c, int64_t count) {
  if constexpr (sizeof(T) == 4)
    return invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, s.m, s.n, s.k, 1.0f, a, s.k,
                                     s.m * s.k, b, s.n, s.k * s.n, 0.0f, c, s.n, s.m * s.n, count);
  else
    return invar_dgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, s.m, s.n, s.k, 1.0, a, s.k,
                                     s.m * s.k, b, s.n, s.k * s.n, 0.0, c, s.n, s.m * s.n, count);
}

constexpr int64_t kBatch = 10000;

// One shape of type T: the single-call rows, then (with `batch`) the strided batch rows.
template <class T>
void run_shape(const Peers& peers, const Shape& s, bool batch, double seconds, int rounds) {
  const bool f32 = sizeof(T) == 4;
  std::vector<T> a(static_cast<std::size_t>(s.m * s.k)), b(static_cast<std::size_t>(s.k * s.n)),
      c(static_cast<std::size_t>(s.m * s.n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>((i % 7) * 0.25);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<T>((i % 5) * 0.5);
  std::vector<Row> rows;
  rows.push_back({"invar", [&] { (void)invar_call(s, a.data(), b.data(), c.data()); }});
  if (f32 ? peers.openblas_s != nullptr : peers.openblas_d != nullptr) {
    rows.push_back({"openblas", [&] {
                      if constexpr (sizeof(T) == 4)
                        peers.openblas_s(kRowMajor, kNoTrans, kNoTrans, s.m, s.n, s.k, 1.0f,
                                         a.data(), s.k, b.data(), s.n, 0.0f, c.data(), s.n);
                      else
                        peers.openblas_d(kRowMajor, kNoTrans, kNoTrans, s.m, s.n, s.k, 1.0,
                                         a.data(), s.k, b.data(), s.n, 0.0, c.data(), s.n);
                    }});
  }
  PeerGemm<T> eigen = nullptr, xsmm = nullptr;
  XsmmKernel<T> kernel = nullptr;
  if constexpr (sizeof(T) == 4) {
    eigen = peers.eigen_s;
    xsmm = peers.xsmm_s;
    if (peers.xsmm_skernel)
      kernel = reinterpret_cast<XsmmKernel<T>>(peers.xsmm_skernel(s.m, s.n, s.k));
  } else {
    eigen = peers.eigen_d;
    xsmm = peers.xsmm_d;
    if (peers.xsmm_dkernel)
      kernel = reinterpret_cast<XsmmKernel<T>>(peers.xsmm_dkernel(s.m, s.n, s.k));
  }
  if (eigen) rows.push_back({"eigen", [&] { eigen(s.m, s.n, s.k, a.data(), b.data(), c.data()); }});
  if (xsmm) rows.push_back({"xsmm", [&] { xsmm(s.m, s.n, s.k, a.data(), b.data(), c.data()); }});
  if (kernel) rows.push_back({"xsmm-jit", [&] { kernel(b.data(), a.data(), c.data()); }});

  // The batch: 10,000 entries of their own (A, B, C): 1.9 MB at 4^3 in f32, 7.7 MB at 8^3, so
  // mostly in L3.
  std::vector<T> ba, bb, bc;
  if (batch) {
    ba.assign(a.size() * kBatch, T(0.5));
    bb.assign(b.size() * kBatch, T(0.25));
    bc.assign(c.size() * kBatch, T(0));
    rows.push_back({"invar-batch",
                    [&] { (void)invar_batch(s, ba.data(), bb.data(), bc.data(), kBatch); },
                    kBatch});
    if (kernel)
      rows.push_back({"xsmm-jit-batch",
                      [&] {
                        for (int64_t i = 0; i < kBatch; ++i)
                          kernel(bb.data() + i * s.k * s.n, ba.data() + i * s.m * s.k,
                                 bc.data() + i * s.m * s.n);
                      },
                      kBatch});
  }
  // Every row's product once, checked to run (a failing invar call is reported, not timed).
  if (invar_call(s, a.data(), b.data(), c.data()) != INVAR_OK) {
    std::printf("invar failed: %s\n", invar_last_error());
    return;
  }
  for (int round = 0; round < rounds; ++round)
    for (Row& row : rows) time_row(row, row.per > 1 ? seconds / 4 : seconds);

  // The best peer, and the best peer through a call that takes its arguments (the dispatched
  // kernel takes only the operands: its shape and scalars were fixed when it was made).
  double best_single = 0, best_call = 0;
  std::string best_name = "-", best_call_name = "-";
  for (const Row& row : rows) {
    if (row.name == "invar" || row.per > 1) continue;
    if (row.best > best_single) {
      best_single = row.best;
      best_name = row.name;
    }
    if (row.name != "xsmm-jit" && row.best > best_call) {
      best_call = row.best;
      best_call_name = row.name;
    }
  }
  char shape[48];
  std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k));
  std::printf("%s %-12s", f32 ? "f32" : "f64", shape);
  double invar_rate = 0, invar_batch_rate = 0, xsmm_batch_rate = 0;
  for (const Row& row : rows) {
    std::printf(" %s %.2f", row.name.c_str(), row.best / 1e6);
    if (row.name == "invar") invar_rate = row.best;
    if (row.name == "invar-batch") invar_batch_rate = row.best;
    if (row.name == "xsmm-jit-batch") xsmm_batch_rate = row.best;
  }
  std::printf(" | invar/best %.2f (%s) invar/best-call %.2f (%s)",
              best_single > 0 ? invar_rate / best_single : 0.0, best_name.c_str(),
              best_call > 0 ? invar_rate / best_call : 0.0, best_call_name.c_str());
  if (xsmm_batch_rate > 0)
    std::printf(" | batch invar/xsmm %.2f", invar_batch_rate / xsmm_batch_rate);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

// "MxNxK,..." into shapes: false on anything else.
bool parse_shapes(const char* p, std::vector<Shape>* out) {
  while (*p != '\0') {
    long long v[3];
    for (int d = 0; d < 3; ++d) {
      char* end = nullptr;
      v[d] = std::strtoll(p, &end, 10);
      if (end == p || v[d] < 1 || v[d] > 4096) return false;
      p = end;
      if (d < 2 && *p++ != 'x') return false;
    }
    out->push_back({v[0], v[1], v[2]});
    if (*p == ',')
      ++p;
    else if (*p != '\0')
      return false;
  }
  return !out->empty();
}

int main(int argc, char** argv) {
  double seconds = 0.1;
  int rounds = 3;
  std::vector<Shape> shapes;
  std::string openblas = "libopenblas.so.0";
  std::vector<int64_t> sides = {2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 32};
  bool skinny_rows = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--squares") && i + 1 < argc) {
      sides.clear();
      for (const char* p = argv[++i]; *p != '\0'; p += *p == ',') {
        char* end = nullptr;
        const long side = std::strtol(p, &end, 10);
        if (end == p || side < 1 || side > 4096) {
          std::fprintf(stderr, "--squares: a comma-separated list of sides 1 .. 4096\n");
          return 2;
        }
        sides.push_back(side);
        p = end;
      }
    } else if (!std::strcmp(argv[i], "--no-skinny")) {
      skinny_rows = false;
    } else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
      if (rounds < 1 || rounds > 1000) {
        std::fprintf(stderr, "--rounds: 1 .. 1000\n");
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--shapes") && i + 1 < argc) {
      if (!parse_shapes(argv[++i], &shapes)) {
        std::fprintf(stderr, "--shapes: a comma-separated list of MxNxK, each 1 .. 4096\n");
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--openblas") && i + 1 < argc) {
      openblas = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--seconds S] [--rounds N] [--openblas PATH] [--squares 4,8,...] "
                   "[--no-skinny] [--shapes MxNxK,...]\n",
                   argv[0]);
      return 2;
    }
  }
  invar_set_num_threads(1);
  Peers peers;
  std::string error;
  if (void* lib = openblas.empty() ? nullptr : dl_open(openblas, &error)) {
    auto set_threads = dl_sym<void (*)(int)>(lib, "openblas_set_num_threads");
    if (set_threads) set_threads(1);
    peers.openblas_s = dl_sym<CblasS>(lib, "cblas_sgemm");
    peers.openblas_d = dl_sym<CblasD>(lib, "cblas_dgemm");
  } else {
    std::printf("skipped openblas: %s\n", error.c_str());
  }
  const std::string dir = executable_dir();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const std::string eigen_path = dir + "/invar_bench_eigen_" + (avx512 ? "avx512" : "avx2") + ".so";
  if (void* lib = dl_open(eigen_path, &error)) {
    peers.eigen_s = dl_sym<PeerGemm<float>>(lib, "invar_bench_eigen_sgemm");
    peers.eigen_d = dl_sym<PeerGemm<double>>(lib, "invar_bench_eigen_dgemm");
    if (auto set = dl_sym<int (*)(int)>(lib, "invar_bench_eigen_set_threads")) set(1);
    if (auto info = dl_sym<const char* (*)()>(lib, "invar_bench_eigen_info"))
      std::printf("eigen: %s\n", info());
  } else {
    std::printf("skipped eigen: %s\n", error.c_str());
  }
  if (void* lib = dl_open(dir + "/invar_bench_xsmm.so", &error)) {
    dl_sym<void (*)()>(lib, "invar_bench_xsmm_init")();
    peers.xsmm_s = dl_sym<PeerGemm<float>>(lib, "invar_bench_xsmm_sgemm");
    peers.xsmm_d = dl_sym<PeerGemm<double>>(lib, "invar_bench_xsmm_dgemm");
    peers.xsmm_skernel =
        dl_sym<void* (*)(int64_t, int64_t, int64_t)>(lib, "invar_bench_xsmm_skernel");
    peers.xsmm_dkernel =
        dl_sym<void* (*)(int64_t, int64_t, int64_t)>(lib, "invar_bench_xsmm_dkernel");
    std::printf("libxsmm %d.%d, target %s\n",
                dl_sym<int (*)()>(lib, "invar_bench_xsmm_version")() / 100,
                dl_sym<int (*)()>(lib, "invar_bench_xsmm_version")() % 100,
                dl_sym<const char* (*)()>(lib, "invar_bench_xsmm_target")());
  } else {
    std::printf("skipped libxsmm: %s\n", error.c_str());
  }
  std::printf("M calls/s (batch rows: M products/s), one thread, best of %d rounds of %.2f s\n%s\n",
              rounds, seconds, invar_get_config());
  std::vector<Shape> squares, skinny;
  for (int64_t n : sides) squares.push_back({n, n, n});
  for (Shape s : {Shape{1, 64, 64}, Shape{2, 64, 64}, Shape{4, 64, 64}, Shape{4, 256, 256},
                  Shape{8, 128, 128}, Shape{16, 64, 256}, Shape{16, 256, 64}, Shape{16, 128, 128}})
    skinny.push_back(s);
  for (const Shape& s : squares) {
    const bool batch = s.m == 4 || s.m == 8 || s.m == 16 || s.m == 32;
    run_shape<float>(peers, s, batch, seconds, rounds);
    run_shape<double>(peers, s, batch, seconds, rounds);
  }
  // --shapes: in place of the skinny shapes.
  for (const Shape& s : !shapes.empty() ? shapes : skinny_rows ? skinny : std::vector<Shape>{}) {
    run_shape<float>(peers, s, false, seconds, rounds);
    run_shape<double>(peers, s, false, seconds, rounds);
  }
  return 0;
}
