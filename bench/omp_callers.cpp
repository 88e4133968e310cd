// Calls from inside an OpenMP parallel region: T OpenMP threads each make C calls of an n^3
// sgemm on invar's default context (its full thread count), against the same calls with the
// default context set to one thread. With one thread per call the OpenMP threads already fill the
// cores; the ratio shows what the default context's own threads cost or gain on top.
//
//   invar_bench_omp_callers [calls per thread = 4000] [n = 96] [rounds = 5]
//
// The two settings alternate, `rounds` times each; the median of each is reported, and their
// ratio. Run with OMP_NUM_THREADS (default: the OpenMP runtime's) and INVAR_NUM_THREADS unset.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "invar/invar.h"

namespace {

double run(int calls, int n) {
  const auto start = std::chrono::steady_clock::now();
  bool ok = true;
#pragma omp parallel reduction(&& : ok)
  {
    std::vector<float> a(static_cast<std::size_t>(n) * n, 0.5f), b(a.size(), 0.25f), c(a.size());
    for (int i = 0; i < calls; ++i)
      ok = ok && invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, n, n, n, 1.0f, a.data(), n, b.data(),
                             n, 0.0f, c.data(), n) == INVAR_OK;
  }
  if (!ok) {
    std::fprintf(stderr, "invar_sgemm failed: %s\n", invar_last_error());
    std::exit(1);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 4000;
  const int n = argc > 2 ? std::atoi(argv[2]) : 96;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  const int full = invar_set_num_threads(0);
  run(calls / 10 + 1, n);  // warm-up: threads started, workspaces allocated
  std::vector<double> on_default, on_one;
  for (int r = 0; r < rounds; ++r) {
    invar_set_num_threads(0);
    on_default.push_back(run(calls, n));
    invar_set_num_threads(1);
    on_one.push_back(run(calls, n));
  }
  invar_set_num_threads(0);
  const double d = median(on_default), o = median(on_one);
  std::printf(
      "%d OpenMP threads x %d calls of %d^3 sgemm: default context (%d threads) %.3f s, "
      "one thread %.3f s, ratio %.2f\n",
      omp_get_max_threads(), calls, n, full, d, o, d / o);
  return 0;
}
