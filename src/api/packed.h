// The inside of a prepacked operand (invar::PackedB, invar_packed in C): op(B) in the panel
// layout of one micro-kernel (driver/gemm_driver.h, GemmProblem::b_panels).
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

struct PackedB::Impl {
  // Bumped whenever the layout of the panels changes.
  static constexpr uint32_t kFormatVersion = 1;

  struct Free {
    void operator()(void* p) const { std::free(p); }
  };

  uint32_t format_version = kFormatVersion;
  int elem_bytes = 0;                          // 4: f32, 8: f64
  const kernels::GemmKernel* kernel = nullptr;  // the kernel whose layout this is
  int64_t k = 0, n = 0;
  std::size_t bytes = 0;
  std::unique_ptr<void, Free> data;  // 64-byte aligned; null when k or n is 0
};

namespace api {

// Packs op(B) (k x n; B stored n x k when trans_b) for the context's kernel of element type T.
// Throws InvalidArgument (message naming `function`) or OutOfMemory.
template <class T>
std::unique_ptr<PackedB::Impl> pack_b(Context::Impl& context, const char* function, int trans_b,
                                      int64_t k, int64_t n, const T* b, int64_t ldb);

}  // namespace api
}  // namespace invar

// The C handle.
struct invar_packed {
  std::unique_ptr<invar::PackedB::Impl> impl;
};

#endif  // INVAR_API_PACKED_H_
