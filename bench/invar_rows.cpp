// invar's rows: one Context per instruction-set path (ContextOptions::isa), each with its own
// workspaces, so a path is measured exactly as a caller who forced it would run it.
#include <memory>

#include "api/context_impl.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"
#include "rows.h"

namespace invar_bench {

void add_invar_rows(int threads, int64_t generic_max, std::vector<GemmRow>* rows,
                    SkipNotes* skips) {
  using invar::Isa;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kNeon, Isa::kGeneric}) {
    const std::string name = std::string("invar-") + invar::isa_name(isa);
    if (invar::kernels::compiled_kernel_set(isa) == nullptr) continue;  // not this architecture
    invar::ContextOptions options;
    options.num_threads = threads;
    options.isa = isa;
    std::shared_ptr<invar::Context> context;
    try {
      context = std::make_shared<invar::Context>(options);
    } catch (const invar::Error& e) {
      skips->push_back(name + ": " + e.what());
      continue;
    }
    const auto& kernel = context->impl().kernels->sgemm;
    GemmRow row;
    row.name = name;
    row.library = std::string("invar ") + invar::version();
    row.kernel = std::string(kernel.name) + " (" + std::to_string(kernel.mr) + "x" +
                 std::to_string(kernel.nr) + ")";
    row.threads = context->num_threads();
    row.is_invar = true;
    row.peak = isa == Isa::kAvx2     ? PeakRef::kAvx2
               : isa == Isa::kAvx512 ? PeakRef::kAvx512
                                     : PeakRef::kBest;
    if (isa == Isa::kGeneric) row.max_dim = generic_max;
    row.sgemm = [context](int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                          std::string* error) {
      try {
        invar::gemm(1.0f, invar::Op::kNoTrans, invar::MatrixView<const float>(a, m, k),
                    invar::Op::kNoTrans, invar::MatrixView<const float>(b, k, n), 0.0f,
                    invar::MatrixView<float>(c, m, n), *context);
        return true;
      } catch (const invar::Error& e) {
        *error = e.what();
        return false;
      }
    };
    rows->push_back(std::move(row));
  }
}

}  // namespace invar_bench
