// The inside of a prepacked operand (invar::PackedA and PackedB, invar_packed in C): op(B), or
// alpha * op(A), in the panel layout of one micro-kernel (driver/gemm_driver.h,
// GemmProblem::b_panels and a_panels).
#ifndef INVAR_API_PACKED_H_
#define INVAR_API_PACKED_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "invar/invar.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"

namespace invar {

struct detail::PackedOperand {
  // Bumped whenever the layout of the panels changes.
  static constexpr uint32_t kFormatVersion = 1;

  enum class Side { kA, kB };

  struct Free {
    void operator()(void* p) const { std::free(p); }
  };

  uint32_t format_version = kFormatVersion;
  Side side = Side::kB;
  int elem_bytes = 0;                          // 4: f32, 8: f64, 1: int8 (B)
  const kernels::GemmKernel* kernel = nullptr;  // the kernel whose layout this is
  int64_t m = 0, k = 0, n = 0;                  // op(A) is m x k; op(B) is k x n
  double alpha = 1;                             // a packed A's alpha, exact in double
  std::size_t bytes = 0;
  std::unique_ptr<void, Free> data;  // 64-byte aligned; null when a dimension is 0
};

namespace api {

// Packs op(B) (k x n; B stored n x k when trans_b), of element type T, for the context's kernel
// of A elements of type AIn: T itself for the floating-point types, int8_t or uint8_t for the
// int8 B of the integer products. Throws InvalidArgument (message naming `function`) or
// OutOfMemory.
template <class T, class AIn = T>
std::unique_ptr<detail::PackedOperand> pack_b(Context::Impl& context, const char* function,
                                              int trans_b, int64_t k, int64_t n, const T* b,
                                              int64_t ldb);

// Packs alpha * op(A) (m x k; A stored k x m when trans_a), likewise.
template <class T>
std::unique_ptr<detail::PackedOperand> pack_a(Context::Impl& context, const char* function,
                                              int trans_a, int64_t m, int64_t k, T alpha,
                                              const T* a, int64_t lda);

}  // namespace api
}  // namespace invar

// The C handle.
struct invar_packed {
  std::unique_ptr<invar::detail::PackedOperand> impl;
};

#endif  // INVAR_API_PACKED_H_
