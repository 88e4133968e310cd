// Eigen's products C = A * B, C = A * W^T (W stored n x k) and the f64 C = A * B on row-major maps,
// built as a small loadable module once per vector width (-O3 with -mavx2 -mfma, or -mavx512f):
// Eigen picks its kernels at compile time, so the width is fixed by the build flags, and each
// module is loaded only on a CPU that has that width. Symbols are hidden except the entry points,
// so the variants' Eigen instantiations cannot mix. Built with OpenMP when the compiler has it:
// Eigen then splits a large product over Eigen::setNbThreads threads (set by
// invar_bench_eigen_set_threads); without it, one thread. It allocates its blocking workspace
// inside each product, as it does for any caller.
#include <Eigen/Core>
#include <cstdint>
#include <string>

namespace {

template <class T>
using RowMajorOf = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMajor = RowMajorOf<float>;

}  // namespace

extern "C" __attribute__((visibility("default"))) void invar_bench_eigen_sgemm(
    int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  Eigen::Map<const RowMajor> ma(a, m, k);
  Eigen::Map<const RowMajor> mb(b, k, n);
  Eigen::Map<RowMajor> mc(c, m, n);
  mc.noalias() = ma * mb;
}

extern "C" __attribute__((visibility("default"))) void invar_bench_eigen_sgemm_bt(
    int64_t m, int64_t n, int64_t k, const float* a, const float* w, float* c) {
  Eigen::Map<const RowMajor> ma(a, m, k);
  Eigen::Map<const RowMajor> mw(w, n, k);
  Eigen::Map<RowMajor> mc(c, m, n);
  mc.noalias() = ma * mw.transpose();
}

extern "C" __attribute__((visibility("default"))) void invar_bench_eigen_dgemm(
    int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c) {
  Eigen::Map<const RowMajorOf<double>> ma(a, m, k);
  Eigen::Map<const RowMajorOf<double>> mb(b, k, n);
  Eigen::Map<RowMajorOf<double>> mc(c, m, n);
  mc.noalias() = ma * mb;
}

// Sets the threads Eigen's products use; returns the count in force (1 without OpenMP).
extern "C" __attribute__((visibility("default"))) int invar_bench_eigen_set_threads(int n) {
  Eigen::setNbThreads(n);
  return Eigen::nbThreads();
}

// "Eigen 3.4.0; 8-float packets, FMA; AVX SSE, SSE2, ..." (valid for the life of the module).
extern "C" __attribute__((visibility("default"))) const char* invar_bench_eigen_info() {
#ifdef EIGEN_VECTORIZE_FMA
  const char* fma = ", FMA";
#else
  const char* fma = ", no FMA";
#endif
  static const std::string info =
      "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
      "." + std::to_string(EIGEN_MINOR_VERSION) + "; " +
      std::to_string(Eigen::internal::packet_traits<float>::size) + "-float packets" + fma +
#ifdef _OPENMP
      ", OpenMP" +
#endif
      "; " + Eigen::SimdInstructionSetsInUse();
  return info.c_str();
}
