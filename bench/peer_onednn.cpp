// oneDNN row: dnnl_sgemm, oneDNN's row-major BLAS-like entry point with 'N'/'T' character flags
// and 64-bit dimensions. Reports the instruction set its JIT targets (dnnl_get_effective_cpu_isa).
// The thread count of an OpenMP build is set on the calling thread through the OpenMP runtime
// oneDNN itself loaded (omp_set_num_threads, before each turn of the row).
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>

#include "dl.h"
#include "rows.h"

namespace invar_bench {
namespace {

using DnnlSgemm = int (*)(char trans_a, char trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                          float* c, int64_t ldc);
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
  auto version = dl_sym<const DnnlVersion* (*)()>(lib, "dnnl_version");
  auto effective_isa = dl_sym<int (*)()>(lib, "dnnl_get_effective_cpu_isa");
  if (sgemm == nullptr) {
    skips->push_back(name + ": " + path + " has no dnnl_sgemm");
    return;
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
    row.sgemm = [sgemm](int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                        std::string* error) {
      const int status = sgemm('N', 'N', m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
      if (status != 0) *error = "dnnl_sgemm returned status " + std::to_string(status);
      return status == 0;
    };
    rows->push_back(std::move(row));
  }
}

}  // namespace invar_bench
