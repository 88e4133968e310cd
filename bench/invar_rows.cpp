// invar's rows: one Context per instruction-set path (ContextOptions::isa) and thread count, each
// with its own workspaces, so a path is measured exactly as a caller who forced it would run it.
// With the ladder on, the portable and best SIMD rows are marked as ladder steps (see rows.h).
#include <algorithm>
#include <memory>

#include "api/context_impl.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"
#include "rows.h"

namespace invar_bench {
namespace {

// The ladder steps after the plain loops of ladder_rows.cpp.
constexpr int kStepGeneric = 4, kStepSimd = 5, kStepThreaded = 6;

// A row for a context with these options; false (and a skip note) when the context is refused.
bool make_invar_row(const std::string& name, const invar::ContextOptions& options, GemmRow* row,
                    SkipNotes* skips) {
  using invar::Isa;
  std::shared_ptr<invar::Context> context;
  try {
    context = std::make_shared<invar::Context>(options);
  } catch (const invar::Error& e) {
    skips->push_back(name + ": " + e.what());
    return false;
  }
  const auto& kernel = context->impl().kernels->sgemm;
  row->name = name;
  row->library = std::string("invar ") + invar::version();
  row->kernel = std::string(kernel.name) + " (" + std::to_string(kernel.mr) + "x" +
                std::to_string(kernel.nr) + ")";
  row->threads = context->num_threads();
  row->is_invar = true;
  const Isa isa = context->isa();
  row->peak = isa == Isa::kAvx2     ? PeakRef::kAvx2
              : isa == Isa::kAvx512 ? PeakRef::kAvx512
                                    : PeakRef::kBest;
  row->sgemm = [context](int64_t m, int64_t n, int64_t k, const float* a, const float* b,
                         float* c, std::string* error) {
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
  return true;
}

}  // namespace

void add_invar_rows(const std::vector<int>& threads, int64_t generic_max, bool ladder,
                    std::vector<GemmRow>* rows, SkipNotes* skips) {
  using invar::Isa;
  const int most = *std::max_element(threads.begin(), threads.end());
  Isa best_simd = Isa::kGeneric;
  for (int t : threads) {
    for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kNeon, Isa::kGeneric}) {
      if (invar::kernels::compiled_kernel_set(isa) == nullptr) continue;  // not this architecture
      if (isa == Isa::kGeneric && t != threads.front()) continue;
      invar::ContextOptions options;
      options.num_threads = t;
      options.isa = isa;
      GemmRow row;
      if (!make_invar_row(std::string("invar-") + invar::isa_name(isa), options, &row, skips))
        continue;
      row.requested_threads = t;
      if (isa == Isa::kGeneric) {
        row.max_dim = generic_max;
        if (t == 1) row.ladder_step = kStepGeneric;
      } else if (best_simd == Isa::kGeneric || best_simd == isa) {
        best_simd = isa;
        if (t == 1) row.ladder_step = kStepSimd;
        if (t == most && most > 1) row.ladder_step = kStepThreaded;
      }
      if (!ladder) row.ladder_step = 0;
      rows->push_back(std::move(row));
    }
  }
  if (!ladder || best_simd == Isa::kGeneric || most > 1) return;
  invar::ContextOptions options;
  options.num_threads = 0;  // INVAR_NUM_THREADS, else the physical cores
  options.isa = best_simd;
  GemmRow row;
  if (make_invar_row(std::string("invar-") + invar::isa_name(best_simd) + "-threaded", options,
                     &row, skips)) {
    row.ladder_step = kStepThreaded;
    row.peer_table = false;
    rows->push_back(std::move(row));
  }
}

}  // namespace invar_bench
