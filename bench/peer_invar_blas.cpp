// libinvar_blas as a row: its cblas_sgemv/dgemv and cblas_ssyrk/dsyrk, loaded like a peer (its
// symbols stay out of the global scope; it brings its own libinvar.so). Threads through that
// library's invar_set_num_threads, before each turn of the row.
#include "cblas_call.h"
#include "dl.h"
#include "rows.h"

namespace invar_bench {

void set_cblas_routine_calls(GemmRow& row, void* lib, const std::string& prefix) {
  auto sym = [&](const char* base) { return dlsym_raw(lib, (prefix + base).c_str()); };
  set_cblas_routine_calls(row, reinterpret_cast<CblasSgemv>(sym("cblas_sgemv")),
                          reinterpret_cast<CblasDgemv>(sym("cblas_dgemv")),
                          reinterpret_cast<CblasSsyrk>(sym("cblas_ssyrk")),
                          reinterpret_cast<CblasDsyrk>(sym("cblas_dsyrk")));
}

void add_invar_blas(const std::string& path, const std::vector<int>& threads,
                    std::vector<GemmRow>* rows, SkipNotes* skips) {
  const std::string name = "invar-blas";
  void* lib = dl_open_peer(name, {path}, "", skips);
  if (lib == nullptr) return;
  auto set_threads = dl_sym<int (*)(int)>(lib, "invar_set_num_threads");
  auto version = dl_sym<const char* (*)()>(lib, "invar_version");
  auto sgemv = dl_sym<CblasSgemv>(lib, "cblas_sgemv");
  if (set_threads == nullptr || sgemv == nullptr) {
    skips->push_back(name + ": " + path + " has no cblas_sgemv / invar_set_num_threads");
    return;
  }
  for (int t : threads) {
    GemmRow row;
    row.name = name;
    row.library = std::string("libinvar_blas ") + (version != nullptr ? version() : "");
    row.kernel = "libinvar_blas over invar's GEMM";
    row.path = dl_file_of(reinterpret_cast<const void*>(sgemv));
    row.is_invar = true;
    row.requested_threads = t;
    row.threads = set_threads(t);
    row.activate = [set_threads, t] { set_threads(t); };
    set_cblas_routine_calls(row, lib);
    rows->push_back(std::move(row));
  }
}

}  // namespace invar_bench
