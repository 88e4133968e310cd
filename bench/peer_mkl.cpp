// MKL rows, through libmkl_rt (the single dynamic library, e.g. from the `mkl` wheel). When every
// row runs on one thread the sequential threading layer is selected before any other MKL call;
// otherwise the Intel OpenMP layer, with MKL_Set_Num_Threads before each turn of a row. Reports
// MKL's version and which of its per-CPU kernel libraries its dispatch loaded (libmkl_def, _avx2,
// _avx512, ...), read from /proc/self/maps after one small product: on AMD CPUs that choice is
// MKL's own, since MKL_DEBUG_CPU_TYPE is ignored by MKL 2020.1 and later.
//
// Rows: cblas_sgemm (B as is and transposed), cblas_dgemm, cblas_gemm_bf16bf16f32,
// cblas_gemm_s8u8s32 (uint8 x int8 -> int32; see add_mkl for which operand is which).
//
// Loaded after every other peer: libmkl_rt opens its own component libraries, and loading it
// last guarantees no earlier peer could have bound a BLAS symbol to MKL's.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>

#include "cblas_call.h"
#include "dl.h"
#include "rows.h"

namespace invar_bench {
namespace {

constexpr int kThreadingIntel = 0, kThreadingSequential = 1, kInterfaceLp64 = 0;

// cblas_gemm_s8u8s32: C = alpha (op(A) + oa)(op(B) + ob) + beta C + C offset, int32 C. In
// column-major order A is the signed operand (MKL_INT8) and B the unsigned one (MKL_UINT8), the
// reverse of invar's u8 x s8 (oneDNN's MKL path calls it the same way: column-major, s8 A).
using CblasS8u8s32 = void (*)(int layout, int trans_a, int trans_b, int offset_c, int m, int n,
                              int k, float alpha, const void* a, int lda, int8_t oa, const void* b,
                              int ldb, int8_t ob, float beta, int32_t* c, int ldc,
                              const int32_t* oc);
constexpr int kCblasColMajor = 102, kCblasFixOffset = 173;

// C (m x n, row-major) = A (uint8, m x k) * B (int8, k x n), through MKL's column-major call on
// the transposed product: row-major C is column-major C^T (n x m), and C^T = B^T * A^T with
// B^T (n x k, signed) MKL's A and A^T (k x m, unsigned) MKL's B, each read in place (their
// row-major storage is the column-major transpose). Same m, n, k, same 2 m n k operations; zero
// operand offsets, one zero C offset, alpha 1 and beta 0.
decltype(GemmRow::gemm_u8s8) s8u8s32_call(CblasS8u8s32 fn) {
  return [fn](int64_t m, int64_t n, int64_t k, const uint8_t* a, const int8_t* b, int32_t* c,
              std::string* error) {
    if (!fits_int(m, n, k, error)) return false;
    const int32_t no_offset = 0;
    fn(kCblasColMajor, kCblasNoTrans, kCblasNoTrans, kCblasFixOffset, int(n), int(m), int(k), 1.0f,
       b, int(n), 0, a, int(k), 0, 0.0f, c, int(n), &no_offset);
    return true;
  };
}

// The per-CPU kernel libraries of MKL mapped into this process, e.g. "libmkl_avx2.so.2".
std::string loaded_cpu_libraries() {
  std::ifstream maps("/proc/self/maps");
  const std::regex cpu_library(R"(libmkl_(def|mc3|avx|avx2|avx512|avx10)[^/ ]*$)");
  std::set<std::string> found;
  std::smatch match;
  for (std::string line; std::getline(maps, line);)
    if (std::regex_search(line, match, cpu_library)) found.insert(match.str(0));
  std::string list;
  for (const auto& name : found) list += (list.empty() ? "" : " ") + name;
  return list.empty() ? "?" : list;
}

}  // namespace

void add_mkl(const std::string& path, const std::vector<int>& threads, std::vector<GemmRow>* rows,
             SkipNotes* skips) {
  const std::string name = "mkl";
  void* lib = dl_open_peer(name, {path}, " (--mkl PATH to libmkl_rt.so.N)", skips);
  if (lib == nullptr) return;
  auto sgemm = dl_sym<CblasSgemm>(lib, "cblas_sgemm");
  auto dgemm = dl_sym<CblasDgemm>(lib, "cblas_dgemm");
  auto bf16 = dl_sym<CblasBf16>(lib, "cblas_gemm_bf16bf16f32");
  auto s8u8 = dl_sym<CblasS8u8s32>(lib, "cblas_gemm_s8u8s32");
  const int most = *std::max_element(threads.begin(), threads.end());
  if (bf16 == nullptr) skips->push_back(name + ": no cblas_gemm_bf16bf16f32: no bf16 rows");
  if (s8u8 == nullptr) skips->push_back(name + ": no cblas_gemm_s8u8s32: no u8s8 rows");
  auto set_layer = dl_sym<int (*)(int)>(lib, "MKL_Set_Threading_Layer");
  auto set_interface = dl_sym<int (*)(int)>(lib, "MKL_Set_Interface_Layer");
  auto set_threads = dl_sym<void (*)(int)>(lib, "MKL_Set_Num_Threads");
  auto max_threads = dl_sym<int (*)()>(lib, "MKL_Get_Max_Threads");
  auto version = dl_sym<void (*)(char*, int)>(lib, "MKL_Get_Version_String");
  if (sgemm == nullptr || set_layer == nullptr || set_threads == nullptr) {
    skips->push_back(name + ": " + path + " has no cblas_sgemm / MKL service functions");
    return;
  }
  if (set_interface != nullptr) set_interface(kInterfaceLp64);
  const bool sequential = threads.size() == 1 && threads.front() == 1;
  if (bf16 != nullptr && !sequential && threads.size() > 1)
    skips->push_back(name + ": bf16 rows at " + std::to_string(most) +
                     " threads only: under the Intel threading layer cblas_gemm_bf16bf16f32 uses "
                     "every thread whatever the count set (run --threads 1 for its sequential "
                     "layer)");
  set_layer(sequential ? kThreadingSequential : kThreadingIntel);
  std::string library = "MKL";
  if (version != nullptr) {
    char text[256] = {};
    version(text, sizeof text - 1);
    library = text;
    while (!library.empty() && library.back() == ' ') library.pop_back();
  }
  set_threads(threads.front());
  float a[64] = {}, c[64];  // one small product makes MKL pick its kernel library
  sgemm(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, 8, 8, 8, 1.0f, a, 8, a, 8, 0.0f, c, 8);
  std::string kernel = "kernels " + loaded_cpu_libraries() +
                       (sequential ? ", sequential layer" : ", intel threading layer");
  if (const char* debug = std::getenv("MKL_DEBUG_CPU_TYPE"))
    kernel += std::string(", MKL_DEBUG_CPU_TYPE=") + debug + " (ignored since MKL 2020.1)";
  for (int t : threads) {
    set_threads(t);
    GemmRow row;
    row.name = name;
    row.library = library;
    row.kernel = kernel;
    row.path = dl_file_of(reinterpret_cast<const void*>(sgemm));
    row.requested_threads = t;
    row.threads = max_threads != nullptr ? max_threads() : t;
    row.activate = [set_threads, t] { set_threads(t); };
    // Under the Intel threading layer cblas_gemm_bf16bf16f32 runs on every thread whatever
    // MKL_Set_Num_Threads (or its _Local form) says: above one core's f32 peak at "1 thread" on
    // an AVX2 CPU. Its rows are kept only where that is the row's count.
    const bool bf16_row = sequential || t == most;
    set_cblas_calls(row, sgemm, dgemm, bf16_row ? bf16 : nullptr);
    set_cblas_routine_calls(row, lib);
    if (s8u8 != nullptr) row.gemm_u8s8 = s8u8s32_call(s8u8);
    rows->push_back(std::move(row));
  }
}

}  // namespace invar_bench
