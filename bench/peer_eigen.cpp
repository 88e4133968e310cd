// Eigen rows: the modules built from eigen_module.cpp, one per vector width, loaded from the
// binary's folder only when the CPU supports that width (CPUID + XGETBV through invar's
// detection); a CPU without AVX2 gets a note instead of a row. One row per thread count the
// module can run (Eigen::setNbThreads before each turn; a module built without OpenMP runs 1).
// Rows: f32 with B as is and transposed, f64; the module has no bf16 or 8-bit integer product.
#include <cstdint>

#include "dl.h"
#include "rows.h"

namespace invar_bench {
namespace {

using EigenSgemm = void (*)(int64_t, int64_t, int64_t, const float*, const float*, float*);
using EigenDgemm = void (*)(int64_t, int64_t, int64_t, const double*, const double*, double*);

void add_module(const std::string& name, const std::string& file, PeakRef peak,
                const std::vector<int>& threads, std::vector<GemmRow>* rows, SkipNotes* skips) {
  std::string error;
  void* lib = dl_open(file, &error);
  if (lib == nullptr) {
    skips->push_back(name + ": " + error);
    return;
  }
  auto sgemm = dl_sym<EigenSgemm>(lib, "invar_bench_eigen_sgemm");
  auto sgemm_bt = dl_sym<EigenSgemm>(lib, "invar_bench_eigen_sgemm_bt");
  auto dgemm = dl_sym<EigenDgemm>(lib, "invar_bench_eigen_dgemm");
  auto info = dl_sym<const char* (*)()>(lib, "invar_bench_eigen_info");
  auto set_threads = dl_sym<int (*)(int)>(lib, "invar_bench_eigen_set_threads");
  if (sgemm == nullptr || sgemm_bt == nullptr || dgemm == nullptr || info == nullptr ||
      set_threads == nullptr) {
    skips->push_back(name + ": " + file + " lacks the entry points");
    return;
  }
  const std::string text = info();
  const auto split = text.find("; ");
  for (int t : threads) {
    const int actual = set_threads(t);
    if (actual != t) {
      skips->push_back(name + ": no rows at " + std::to_string(t) +
                       " threads (module built without OpenMP)");
      continue;
    }
    GemmRow row;
    row.name = name;
    row.library = text.substr(0, split);
    row.kernel = split == std::string::npos ? "?" : text.substr(split + 2);
    row.path = dl_file_of(reinterpret_cast<const void*>(sgemm));
    row.requested_threads = t;
    row.threads = actual;
    row.peak = peak;
    row.activate = [set_threads, t] { set_threads(t); };
    row.sgemm = [sgemm](int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                        std::string*) {
      sgemm(m, n, k, a, b, c);
      return true;
    };
    row.sgemm_bt = [sgemm_bt](int64_t m, int64_t n, int64_t k, const float* a, const float* w,
                              float* c, std::string*) {
      sgemm_bt(m, n, k, a, w, c);
      return true;
    };
    row.dgemm = [dgemm](int64_t m, int64_t n, int64_t k, const double* a, const double* b,
                        double* c, std::string*) {
      dgemm(m, n, k, a, b, c);
      return true;
    };
    rows->push_back(std::move(row));
  }
}

}  // namespace

void add_eigen(const Machine& machine, const std::string& dir, const std::vector<int>& threads,
               std::vector<GemmRow>* rows, SkipNotes* skips) {
  skips->push_back("eigen: no bf16 rows (the module builds f32 and f64 products only)");
  skips->push_back("eigen: no u8s8 rows (the module builds f32 and f64 products only)");
  const std::string folder = dir.empty() ? executable_dir() : dir;
#if defined(__x86_64__)
  if (machine.avx2_fma)
    add_module("eigen", folder + "/invar_bench_eigen_avx2.so", PeakRef::kAvx2, threads, rows,
               skips);
  else
    skips->push_back("eigen: this CPU lacks AVX2+FMA, the width the Eigen module is built for");
  if (machine.avx512f)
    add_module("eigen-avx512", folder + "/invar_bench_eigen_avx512.so", PeakRef::kAvx512, threads,
               rows, skips);
#else
  (void)machine;
  add_module("eigen", folder + "/invar_bench_eigen_native.so", PeakRef::kBest, threads, rows,
             skips);
#endif
}

}  // namespace invar_bench
