// The inside of a prepacked operand (invar::PackedA and PackedB, invar_packed in C): op(B), or
// alpha * op(A), in the panel layout of one micro-kernel (driver/gemm_driver.h,
// GemmProblem::b_panels and a_panels).
#ifndef INVAR_API_PACKED_H_
#define INVAR_API_PACKED_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>

#include "invar/invar.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"

namespace invar {
namespace detail {

// The element type an operand was packed from.
enum class ElemType : uint8_t { kF32, kF64, kBf16, kF16, kInt8, kUint8 };

template <class T>
constexpr ElemType elem_type_of() {
  if constexpr (std::is_same_v<T, float>)
    return ElemType::kF32;
  else if constexpr (std::is_same_v<T, double>)
    return ElemType::kF64;
  else if constexpr (std::is_same_v<T, bf16>)
    return ElemType::kBf16;
  else if constexpr (std::is_same_v<T, f16>)
    return ElemType::kF16;
  else if constexpr (std::is_same_v<T, int8_t>)
    return ElemType::kInt8;
  else {
    static_assert(std::is_same_v<T, uint8_t>, "not an element type");
    return ElemType::kUint8;
  }
}

constexpr const char* elem_type_name(ElemType t) {
  switch (t) {
    case ElemType::kF32: return "f32";
    case ElemType::kF64: return "f64";
    case ElemType::kBf16: return "bf16";
    case ElemType::kF16: return "f16";
    case ElemType::kInt8: return "int8";
    case ElemType::kUint8: return "uint8";
  }
  return "?";
}

}  // namespace detail

struct detail::PackedOperand {
  // Bumped whenever the layout of the panels changes.
  static constexpr uint32_t kFormatVersion = 1;

  enum class Side { kA, kB };

  struct Free {
    void operator()(void* p) const { std::free(p); }
  };

  uint32_t format_version = kFormatVersion;
  Side side = Side::kB;
  int elem_bytes = 0;  // 4: f32, 8: f64, 1: int8 (B)
  ElemType elem_type = ElemType::kF32;
  const kernels::GemmKernel* kernel = nullptr;  // the kernel whose layout this is
  int64_t m = 0, k = 0, n = 0;                  // op(A) is m x k; op(B) is k x n
  double alpha = 1;                             // a packed A's alpha, exact in double
  std::size_t bytes = 0;
  std::unique_ptr<void, Free> data;  // 64-byte aligned; null when a dimension is 0
  // A bf16 or f16 B kept in 16 bits (api/packed16.cpp): ceil(n / NR) panels of the kernel's NR
  // columns over all of K, row stride NR, panel s at element s * k * NR, zero-padded, the
  // caller's values unwidened: half the bytes of the kernel's f32 panels.
  bool narrow_panels = false;
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

// The bytes of a 16-bit packed B (PackedOperand::narrow_panels) of k x n for `kernel`, and its
// packing from op(B)[p][j] = b[p * rs + j * cs] (raw 16-bit values).
std::size_t narrow_b_bytes(const kernels::GemmKernel& kernel, int64_t k, int64_t n);
void pack_narrow_b(const kernels::GemmKernel& kernel, int64_t k, int64_t n, const uint16_t* b,
                   int64_t rs, int64_t cs, uint16_t* dst);

}  // namespace api
}  // namespace invar

// The C handle. A live handle carries kLive; invar_packed_free clears it and keeps the handle's
// few bytes for the next handle made, never returning them to the allocator, so that a freed
// handle passed again still points at a handle and is refused instead of read after free.
struct invar_packed {
  static constexpr uint64_t kLive = 0x6b6361702d726176u;  // "var-pack"
  uint64_t magic = 0;
  std::unique_ptr<invar::detail::PackedOperand> impl;
};

namespace invar::api {

// A live handle holding `impl`.
invar_packed* new_handle(std::unique_ptr<detail::PackedOperand> impl);
// Releases a live handle's panels and retires it. False (nothing done) when `handle` is not a
// live handle: freed already, or never made by new_handle.
bool free_handle(invar_packed* handle) noexcept;
// The operand of a live handle; throws InvalidArgument naming `function` and `name` for a
// misaligned, freed or foreign pointer.
const detail::PackedOperand& operand_of(const invar_packed* handle, const char* function,
                                        const char* name);

}  // namespace invar::api

#endif  // INVAR_API_PACKED_H_
