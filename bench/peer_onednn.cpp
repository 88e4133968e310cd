// oneDNN row: dnnl_sgemm, oneDNN's row-major BLAS-like entry point with 'N'/'T' character flags
// and 64-bit dimensions (B as is and transposed), dnnl_gemm_bf16bf16f32 (bf16 inputs, f32 C) and
// dnnl_gemm_u8s8s32 (uint8 A, int8 B, int32 C: invar's u8s8 as is, row-major like dnnl_sgemm);
// oneDNN has no f64 GEMM. Reports the instruction set its JIT targets (dnnl_get_effective_cpu_isa).
// The thread count of an OpenMP build is set on the calling thread through the OpenMP runtime
// oneDNN itself loaded (omp_set_num_threads, before each turn of the row).
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>

#include "dl.h"
#include "rows.h"

namespace invar_bench {
namespace {

using DnnlSgemm = int (*)(char trans_a, char trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                          float* c, int64_t ldc);
using DnnlBf16 = int (*)(char trans_a, char trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                         const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float beta,
                         float* c, int64_t ldc);
// C = alpha (op(A) - ao)(op(B) - bo) + beta C + C offset ('F': one offset for all of C).
using DnnlU8s8 = int (*)(char trans_a, char trans_b, char offset_c, int64_t m, int64_t n, int64_t k,
                         float alpha, const uint8_t* a, int64_t lda, uint8_t ao, const int8_t* b,
                         int64_t ldb, int8_t bo, float beta, int32_t* c, int64_t ldc,
                         const int32_t* co);
struct DnnlVersion {
  int major, minor, patch;
  const char* hash;
  unsigned cpu_runtime, gpu_runtime;
};

std::string isa_name(int isa) {
  switch (isa) {
    case 0x1: return "sse41";
    case 0x3: return "avx";
    case 0x7: return "avx2";
    case 0x27: return "avx512_core";
    case 0x67: return "avx512_core_vnni";
    case 0xe7: return "avx512_core_bf16";
    case 0x3e7: return "avx512_core_amx";
    case 0x407: return "avx2_vnni";
  }
  char text[32];
  std::snprintf(text, sizeof text, "isa 0x%x", isa);
  return text;
}

}  // namespace

void add_onednn(const std::string& path, const std::vector<int>& threads,
                std::vector<GemmRow>* rows, SkipNotes* skips) {
  const std::string name = "onednn";
  // A bare soname also tries the next major version's.
  std::vector<std::string> paths{path};
  if (path.find('/') == std::string::npos) paths.push_back("libdnnl.so.3");
  void* lib = dl_open_peer(name, paths, "", skips);
  if (lib == nullptr) return;
  auto sgemm = dl_sym<DnnlSgemm>(lib, "dnnl_sgemm");
  auto bf16 = dl_sym<DnnlBf16>(lib, "dnnl_gemm_bf16bf16f32");
  auto u8s8 = dl_sym<DnnlU8s8>(lib, "dnnl_gemm_u8s8s32");
  auto version = dl_sym<const DnnlVersion* (*)()>(lib, "dnnl_version");
  auto effective_isa = dl_sym<int (*)()>(lib, "dnnl_get_effective_cpu_isa");
  if (sgemm == nullptr) {
    skips->push_back(name + ": " + path + " has no dnnl_sgemm");
    return;
  }
  skips->push_back(name + ": no f64 GEMM in oneDNN: no f64 rows");
  if (bf16 == nullptr) {
    skips->push_back(name + ": no dnnl_gemm_bf16bf16f32: no bf16 rows");
  } else {
    // Builds without a bf16 kernel for this CPU answer dnnl_unimplemented (3): try a small one.
    const uint16_t x[16] = {};
    float y[16];
    const int status = bf16('N', 'N', 4, 4, 4, 1.0f, x, 4, x, 4, 0.0f, y, 4);
    if (status != 0) {
      skips->push_back(name + ": dnnl_gemm_bf16bf16f32 returned status " + std::to_string(status) +
                       " on this CPU: no bf16 rows");
      bf16 = nullptr;
    }
  }
  if (u8s8 == nullptr) {
    skips->push_back(name + ": no dnnl_gemm_u8s8s32: no u8s8 rows");
  } else {
    // The same probe as for bf16: a status other than success means no rows. The operands are
    // the largest values (255 x 127), whose exact sum over 4 steps is 129540: where the
    // library adds pairs of products in 16 bits (vpmaddubsw, on a CPU without VNNI) they
    // saturate, and its rows would not be the product.
    uint8_t x[16];
    int8_t w[16];
    std::fill(std::begin(x), std::end(x), uint8_t{255});
    std::fill(std::begin(w), std::end(w), int8_t{127});
    const int32_t zero = 0;
    int32_t y[16] = {};
    const int status = u8s8('N', 'N', 'F', 4, 4, 4, 1.0f, x, 4, 0, w, 4, 0, 0.0f, y, 4, &zero);
    if (status != 0) {
      skips->push_back(name + ": dnnl_gemm_u8s8s32 returned status " + std::to_string(status) +
                       " on this CPU: no u8s8 rows");
      u8s8 = nullptr;
    } else if (std::any_of(std::begin(y), std::end(y), [](int32_t v) { return v != 129540; })) {
      skips->push_back(name + ": dnnl_gemm_u8s8s32 gives " + std::to_string(y[0]) +
                       " for 4 x 255 x 127 = 129540 on this CPU (16-bit sums saturate): no u8s8 "
                       "rows");
      u8s8 = nullptr;
    }
  }
  void (*set)(int) = nullptr;
  int (*get)() = nullptr;
  if (void* omp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD)) {  // only if oneDNN uses it
    set = dl_sym<void (*)(int)>(omp, "omp_set_num_threads");
    get = dl_sym<int (*)()>(omp, "omp_get_max_threads");
  }
  for (int t : threads) {
    if (set != nullptr) set(t);
    GemmRow row;
    row.name = name;
    row.library = "oneDNN";
    if (version != nullptr) {
      const DnnlVersion* v = version();
      row.library += " " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                     std::to_string(v->patch);
    }
    row.kernel = effective_isa != nullptr ? "jit " + isa_name(effective_isa()) : "?";
    row.path = dl_file_of(reinterpret_cast<const void*>(sgemm));
    row.requested_threads = t;
    row.threads = get != nullptr ? get() : t;
    if (set != nullptr) row.activate = [set, t] { set(t); };
    auto call = [](int status, std::string* error) {
      if (status != 0) *error = "oneDNN returned status " + std::to_string(status);
      return status == 0;
    };
    row.sgemm = [sgemm, call](int64_t m, int64_t n, int64_t k, const float* a, const float* b,
                              float* c, std::string* error) {
      return call(sgemm('N', 'N', m, n, k, 1.0f, a, k, b, n, 0.0f, c, n), error);
    };
    row.sgemm_bt = [sgemm, call](int64_t m, int64_t n, int64_t k, const float* a, const float* b,
                                 float* c, std::string* error) {
      return call(sgemm('N', 'T', m, n, k, 1.0f, a, k, b, k, 0.0f, c, n), error);
    };
    if (bf16 != nullptr)
      row.gemm_bf16 = [bf16, call](int64_t m, int64_t n, int64_t k, const uint16_t* a,
                                   const uint16_t* b, float* c, std::string* error) {
        return call(bf16('N', 'N', m, n, k, 1.0f, a, k, b, n, 0.0f, c, n), error);
      };
    if (u8s8 != nullptr)
      row.gemm_u8s8 = [u8s8, call](int64_t m, int64_t n, int64_t k, const uint8_t* a,
                                   const int8_t* b, int32_t* c, std::string* error) {
        const int32_t no_offset = 0;
        return call(u8s8('N', 'N', 'F', m, n, k, 1.0f, a, k, 0, b, n, 0, 0.0f, c, n, &no_offset),
                    error);
      };
    rows->push_back(std::move(row));
  }
}

}  // namespace invar_bench
