// invar's rows: one Context per instruction-set path (ContextOptions::isa) and thread count, each
// with its own workspaces, so a path is measured exactly as a caller who forced it would run it.
// With the ladder on, the portable and best SIMD rows are marked as ladder steps (see rows.h).
// Every row offers all kinds of product (f32, x * W^T, f64, bf16 inputs, uint8 x int8 -> int32);
// the best SIMD path also gets a -packed row per thread count: x * W^T over W packed once
// (pack_b), the decode step, and uint8 x int8 over the int8 B packed once (pack_b_u8s8s32).
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "api/context_impl.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"
#include "rows.h"

namespace invar_bench {
namespace {

// The ladder steps after the plain loops of ladder_rows.cpp.
constexpr int kStepGeneric = 4, kStepSimd = 5, kStepThreaded = 6;

// Products over a weight packed once, on the row's context: the first call on a weight packs it
// (untimed: a shape's first call is its check), later calls on the same weight reuse the handle
// until the shape is done (GemmRow::release).
// Offered: x * W^T (f32, pack_b) and uint8 x int8 with the int8 B (pack_b_u8s8s32); the checks
// hold their bits to the unpacked rows'.
// Runs one invar call, turning its exception into the row's error.
template <class Call>
bool guarded(const Call& call, std::string* error) {
  try {
    call();
    return true;
  } catch (const invar::Error& e) {
    *error = e.what();
    return false;
  }
}

struct Pack {
  std::mutex mutex;
  const void* w = nullptr;
  int64_t n = 0, k = 0;
  std::unique_ptr<invar::PackedB> packed;
  // The handle for the weight at `weight` (n x k or k x n), packed by `make` on first use.
  template <class Make>
  const invar::PackedB& get(const void* weight, int64_t wn, int64_t wk, const Make& make) {
    if (packed == nullptr || w != weight || n != wn || k != wk) {
      packed.reset();
      packed = std::make_unique<invar::PackedB>(make());
      w = weight, n = wn, k = wk;
    }
    return *packed;
  }
};

void make_packed_row(const std::shared_ptr<invar::Context>& context, GemmRow* row) {
  auto pack = std::make_shared<Pack>();
  row->name += "-packed";
  row->kernel += ", W packed once (pack_b; u8s8: pack_b_u8s8s32, " +
                 std::string(invar::kernels::kernel_for<uint8_t>(*context->impl().kernels).name) +
                 ")";
  row->sgemm = nullptr;
  row->dgemm = nullptr;
  row->gemm_bf16 = nullptr;
  row->release = [pack] {
    std::lock_guard<std::mutex> lock(pack->mutex);
    pack->packed.reset();
    pack->w = nullptr;
  };
  using invar::MatrixView;
  using invar::Op;
  row->sgemm_bt = [context, pack](int64_t m, int64_t n, int64_t k, const float* a, const float* w,
                                  float* c, std::string* error) {
    std::lock_guard<std::mutex> lock(pack->mutex);
    return guarded(
        [&] {
          const invar::PackedB& packed = pack->get(w, n, k, [&] {
            return invar::pack_b(Op::kTrans, MatrixView<const float>(w, n, k), *context);
          });
          invar::gemm(1.0f, Op::kNoTrans, MatrixView<const float>(a, m, k), packed, 0.0f,
                      MatrixView<float>(c, m, n), *context);
        },
        error);
  };
  row->gemm_u8s8 = [context, pack](int64_t m, int64_t n, int64_t k, const uint8_t* a,
                                   const int8_t* b, int32_t* c, std::string* error) {
    std::lock_guard<std::mutex> lock(pack->mutex);
    return guarded(
        [&] {
          const invar::PackedB& packed = pack->get(b, n, k, [&] {
            return invar::pack_b_u8s8s32(Op::kNoTrans, MatrixView<const int8_t>(b, k, n), *context);
          });
          invar::gemm(1, Op::kNoTrans, MatrixView<const uint8_t>(a, m, k), packed, 0,
                      MatrixView<int32_t>(c, m, n), *context);
        },
        error);
  };
}

// A row for a context with these options; false (and a skip note) when the context is refused.
// With `packed`, the -packed row (above) on that context.
bool make_invar_row(const std::string& name, const invar::ContextOptions& options, GemmRow* row,
                    SkipNotes* skips, bool packed = false) {
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
  // The int8 products run on a kernel of their own (a VNNI or AMX one where the CPU has them).
  if (!packed)
    row->kernel += std::string("; u8s8: ") +
                   invar::kernels::kernel_for<uint8_t>(*context->impl().kernels).name;
  row->threads = context->num_threads();
  row->is_invar = true;
  const Isa isa = context->isa();
  row->peak = isa == Isa::kAvx2     ? PeakRef::kAvx2
              : isa == Isa::kAvx512 ? PeakRef::kAvx512
                                    : PeakRef::kBest;
  using invar::MatrixView;
  using invar::Op;
  // Runs one invar call, turning its exception into the row's error.
  row->sgemm = [context](int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                         std::string* error) {
    return guarded(
        [&] {
          invar::gemm(1.0f, Op::kNoTrans, MatrixView<const float>(a, m, k), Op::kNoTrans,
                      MatrixView<const float>(b, k, n), 0.0f, MatrixView<float>(c, m, n), *context);
        },
        error);
  };
  row->sgemm_bt = [context](int64_t m, int64_t n, int64_t k, const float* a, const float* w,
                            float* c, std::string* error) {
    return guarded(
        [&] {
          invar::gemm(1.0f, Op::kNoTrans, MatrixView<const float>(a, m, k), Op::kTrans,
                      MatrixView<const float>(w, n, k), 0.0f, MatrixView<float>(c, m, n), *context);
        },
        error);
  };
  row->dgemm = [context](int64_t m, int64_t n, int64_t k, const double* a, const double* b,
                         double* c, std::string* error) {
    return guarded(
        [&] {
          invar::gemm(1.0, Op::kNoTrans, MatrixView<const double>(a, m, k), Op::kNoTrans,
                      MatrixView<const double>(b, k, n), 0.0, MatrixView<double>(c, m, n),
                      *context);
        },
        error);
  };
  row->gemm_bf16 = [context](int64_t m, int64_t n, int64_t k, const uint16_t* a, const uint16_t* b,
                             float* c, std::string* error) {
    const auto* a16 = reinterpret_cast<const invar::bf16*>(a);
    const auto* b16 = reinterpret_cast<const invar::bf16*>(b);
    return guarded(
        [&] {
          invar::gemm(1.0f, Op::kNoTrans, MatrixView<const invar::bf16>(a16, m, k), Op::kNoTrans,
                      MatrixView<const invar::bf16>(b16, k, n), 0.0f, MatrixView<float>(c, m, n),
                      *context);
        },
        error);
  };
  row->gemm_u8s8 = [context](int64_t m, int64_t n, int64_t k, const uint8_t* a, const int8_t* b,
                             int32_t* c, std::string* error) {
    return guarded(
        [&] {
          invar::gemm(int32_t{1}, Op::kNoTrans, MatrixView<const uint8_t>(a, m, k), Op::kNoTrans,
                      MatrixView<const int8_t>(b, k, n), int32_t{0}, MatrixView<int32_t>(c, m, n),
                      *context);
        },
        error);
  };
  if (packed) make_packed_row(context, row);
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
  if (best_simd != Isa::kGeneric) {
    for (int t : threads) {
      invar::ContextOptions options;
      options.num_threads = t;
      options.isa = best_simd;
      GemmRow row;
      if (!make_invar_row(std::string("invar-") + invar::isa_name(best_simd), options, &row, skips,
                          true))
        continue;
      row.requested_threads = t;
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
