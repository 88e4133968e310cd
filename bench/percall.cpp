// The fixed cost of one small product, counted in instructions: calls one shape many times
// through the C API (invar_sgemm / invar_dgemm), the C++ API (invar::gemm) or a strided batch,
// inside run_calls(), so that `valgrind --tool=callgrind --toggle-collect=run_calls` counts
// exactly those calls and nothing of the start-up (the first call, made before, creates the
// context and chooses the kernels). scripts/percall.py runs it and splits the count by function.
// Instruction counts are the same from run to run on a machine, unlike times on a shared one.
//
//   invar_bench_percall f32|f64 c|cpp|ct|batch M N K CALLS
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "invar/invar.h"
#include "invar/invar.hpp"

namespace {

template <class T>
struct Problem {
  int64_t m, n, k, calls;
  std::vector<T> a, b, c;
};

// trans_b: B stored transposed (x * W^T), its k x n values read as n rows of k.
invar_status c_call(const Problem<float>& p, float* c, bool trans_b = false) {
  return invar_sgemm(INVAR_NO_TRANS, trans_b ? INVAR_TRANS : INVAR_NO_TRANS, p.m, p.n, p.k, 1.0f,
                     p.a.data(), p.k, p.b.data(), trans_b ? p.k : p.n, 0.0f, c, p.n);
}
invar_status c_call(const Problem<double>& p, double* c, bool trans_b = false) {
  return invar_dgemm(INVAR_NO_TRANS, trans_b ? INVAR_TRANS : INVAR_NO_TRANS, p.m, p.n, p.k, 1.0,
                     p.a.data(), p.k, p.b.data(), trans_b ? p.k : p.n, 0.0, c, p.n);
}
invar_status batch_call(const Problem<float>& p, float* c, int64_t count) {
  return invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, p.m, p.n, p.k, 1.0f, p.a.data(),
                                   p.k, 0, p.b.data(), p.n, 0, 0.0f, c, p.n, p.m * p.n, count);
}
invar_status batch_call(const Problem<double>& p, double* c, int64_t count) {
  return invar_dgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, p.m, p.n, p.k, 1.0, p.a.data(),
                                   p.k, 0, p.b.data(), p.n, 0, 0.0, c, p.n, p.m * p.n, count);
}

// The counted region (never inlined: callgrind's --toggle-collect names it). `api` is 'c',
// 't' (the C API over a transposed B), 'p' (C++) or 'b' (one strided batch of `calls` products).
template <class T>
__attribute__((noinline)) int run_calls(Problem<T>& p, char api) {
  int failures = 0;
  if (api == 'b') return batch_call(p, p.c.data(), p.calls) != INVAR_OK;
  for (int64_t i = 0; i < p.calls; ++i) {
    if (api == 'c' || api == 't') {
      failures += c_call(p, p.c.data(), api == 't') != INVAR_OK;
    } else {
      invar::gemm(T(1), invar::Op::kNoTrans, invar::MatrixView<const T>(p.a.data(), p.m, p.k),
                  invar::Op::kNoTrans, invar::MatrixView<const T>(p.b.data(), p.k, p.n), T(0),
                  invar::MatrixView<T>(p.c.data(), p.m, p.n));
    }
  }
  return failures;
}

template <class T>
int run(char api, int64_t m, int64_t n, int64_t k, int64_t calls) {
  Problem<T> p{m, n, k, calls, {}, {}, {}};
  p.a.assign(static_cast<std::size_t>(m * k), T(0.5));
  p.b.assign(static_cast<std::size_t>(k * n), T(0.25));
  p.c.assign(static_cast<std::size_t>(m * n * (api == 'b' ? calls : 1)), T(0));
  // The first call outside the counted region: the default context, its kernels, the pool.
  if (c_call(p, p.c.data()) != INVAR_OK) {
    std::fprintf(stderr, "invar: %s\n", invar_last_error());
    return 1;
  }
  const int failures = run_calls(p, api);
  if (failures != 0) {
    std::fprintf(stderr, "%d calls failed: %s\n", failures, invar_last_error());
    return 1;
  }
  std::printf("%s %c %lldx%lldx%lld x %lld: C[0] = %g\n", sizeof(T) == 4 ? "f32" : "f64", api,
              static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k),
              static_cast<long long>(calls), static_cast<double>(p.c[0]));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7 || (std::strcmp(argv[1], "f32") != 0 && std::strcmp(argv[1], "f64") != 0) ||
      (std::strcmp(argv[2], "c") != 0 && std::strcmp(argv[2], "cpp") != 0 &&
       std::strcmp(argv[2], "ct") != 0 && std::strcmp(argv[2], "batch") != 0)) {
    std::fprintf(stderr, "usage: %s f32|f64 c|cpp|ct|batch M N K CALLS\n", argv[0]);
    return 2;
  }
  // c, cpp, ct, batch: 'c', 'p', 't', 'b'.
  const char api = argv[2][0] == 'b'   ? 'b'
                   : argv[2][1] == 'p' ? 'p'
                   : argv[2][1] == 't' ? 't'
                                       : 'c';
  const int64_t m = std::atoll(argv[3]), n = std::atoll(argv[4]), k = std::atoll(argv[5]);
  const int64_t calls = std::atoll(argv[6]);
  if (m < 1 || n < 1 || k < 1 || calls < 1) {
    std::fprintf(stderr, "M, N, K and CALLS must be positive\n");
    return 2;
  }
  return argv[1][1] == '3' ? run<float>(api, m, n, k, calls) : run<double>(api, m, n, k, calls);
}
