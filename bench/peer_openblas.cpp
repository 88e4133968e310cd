// OpenBLAS rows: the distribution's build and a current one (e.g. the scipy-openblas32 wheel,
// whose symbols carry a "scipy_" prefix). Reports openblas_get_config() and the core name its
// DYNAMIC_ARCH dispatch selected, after setting the thread count
// (openblas_set_num_threads, again before each turn of the row). Rows: cblas_sgemm (B as is and
// transposed), cblas_dgemm, and cblas_sbgemm (bf16 inputs) when the build exports it; OpenBLAS
// has no 8-bit integer GEMM.
#include "cblas_call.h"
#include "dl.h"
#include "rows.h"

namespace invar_bench {

void add_openblas(const std::string& name, const std::string& path, bool current_build,
                  const std::vector<int>& threads, std::vector<GemmRow>* rows, SkipNotes* skips) {
  if (path.empty()) {
    skips->push_back(name + ": no library given");
    return;
  }
  // OpenBLAS reads these once, when it initializes (at load); put them back afterwards.
  ScopedUnsetEnv unset(current_build
                           ? std::vector<std::string>{"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}
                           : std::vector<std::string>{});
  void* lib = dl_open_peer(name, {path}, "", skips);
  if (lib == nullptr) {
    return;
  }
  std::string prefix;
  for (const char* p : {"", "scipy_"}) {
    if (dlsym_raw(lib, (std::string(p) + "cblas_sgemm").c_str()) != nullptr) {
      prefix = p;
      break;
    }
  }
  auto sym = [&](const char* base) { return dlsym_raw(lib, (prefix + base).c_str()); };
  auto sgemm = reinterpret_cast<CblasSgemm>(sym("cblas_sgemm"));
  auto config = reinterpret_cast<const char* (*)()>(sym("openblas_get_config"));
  auto corename = reinterpret_cast<const char* (*)()>(sym("openblas_get_corename"));
  auto set_threads = reinterpret_cast<void (*)(int)>(sym("openblas_set_num_threads"));
  auto get_threads = reinterpret_cast<int (*)()>(sym("openblas_get_num_threads"));
  auto dgemm = reinterpret_cast<CblasDgemm>(sym("cblas_dgemm"));
  auto sbgemm = reinterpret_cast<CblasBf16>(sym("cblas_sbgemm"));
  if (sgemm == nullptr || config == nullptr || corename == nullptr || set_threads == nullptr) {
    skips->push_back(name + ": " + path + " has no OpenBLAS cblas_sgemm/openblas_* symbols");
    return;
  }
  if (sbgemm == nullptr)
    skips->push_back(name + ": " + path + " exports no " + prefix + "cblas_sbgemm: no bf16 rows");
  skips->push_back(name + ": no 8-bit integer GEMM in OpenBLAS: no u8s8 rows");
  for (int t : threads) {
    set_threads(t);
    GemmRow row;
    row.name = name;
    row.library = config();
    row.kernel = std::string("core ") + corename();
    row.path = dl_file_of(reinterpret_cast<const void*>(sgemm));
    row.requested_threads = t;
    row.threads = get_threads != nullptr ? get_threads() : t;
    if (!prefix.empty()) row.library += " (symbols prefixed " + prefix + ")";
    for (const auto& [var, value] : unset.removed())
      row.library += "; " + var + "=" + value + " unset while loading";
    row.activate = [set_threads, t] { set_threads(t); };
    set_cblas_calls(row, sgemm, dgemm, sbgemm);
    set_cblas_routine_calls(row, lib, prefix);
    rows->push_back(std::move(row));
  }
}

}  // namespace invar_bench
