// BLIS row, through its CBLAS layer. Reports the configuration BLIS's run-time dispatch picked
// (bli_arch_string of bli_arch_query_id): a distribution build can fall back to "generic" on a
// CPU its dispatch does not recognize, which explains a slow row. Threads: the global count of
// bli_thread_set_num_threads, set before each turn of the row. Rows: cblas_sgemm (B as is and
// transposed) and cblas_dgemm; BLIS's CBLAS has no bf16 or 8-bit integer product.
#include <cstdint>

#include "cblas_call.h"
#include "dl.h"
#include "rows.h"

namespace invar_bench {

void add_blis(const std::string& path, const std::vector<int>& threads, std::vector<GemmRow>* rows,
              SkipNotes* skips) {
  const std::string name = "blis";
  void* lib = dl_open_peer(name, {path}, "", skips);
  if (lib == nullptr) return;
  auto sgemm = dl_sym<CblasSgemm>(lib, "cblas_sgemm");
  auto dgemm = dl_sym<CblasDgemm>(lib, "cblas_dgemm");
  auto arch_id = dl_sym<int (*)()>(lib, "bli_arch_query_id");
  auto arch_string = dl_sym<const char* (*)(int)>(lib, "bli_arch_string");
  auto version = dl_sym<const char* (*)()>(lib, "bli_info_get_version_str");
  // dim_t is a 64-bit integer in BLIS's default configuration.
  auto set_threads = dl_sym<void (*)(int64_t)>(lib, "bli_thread_set_num_threads");
  auto get_threads = dl_sym<int64_t (*)()>(lib, "bli_thread_get_num_threads");
  if (sgemm == nullptr || arch_id == nullptr || arch_string == nullptr) {
    skips->push_back(name + ": " + path + " has no cblas_sgemm / bli_arch_* symbols");
    return;
  }
  skips->push_back(name + ": no bf16 product in its CBLAS: no bf16 rows");
  skips->push_back(name + ": no 8-bit integer product in its CBLAS: no u8s8 rows");
  for (int t : threads) {
    if (set_threads != nullptr) set_threads(t);
    GemmRow row;
    row.name = name;
    row.library = std::string("BLIS ") + (version != nullptr ? version() : "?");
    row.kernel = std::string("config ") + arch_string(arch_id());
    row.path = dl_file_of(reinterpret_cast<const void*>(sgemm));
    row.requested_threads = t;
    row.threads = get_threads != nullptr ? static_cast<int>(get_threads()) : t;
    if (set_threads != nullptr) row.activate = [set_threads, t] { set_threads(t); };
    set_cblas_calls(row, sgemm, dgemm, nullptr);
    set_cblas_routine_calls(row, lib);
    rows->push_back(std::move(row));
  }
}

}  // namespace invar_bench
