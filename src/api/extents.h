// Overflow-safe extents of the caller's matrices. Every address the engine forms is
// base + (row * ld + col) * element size, in int64_t and then in pointer arithmetic; these checks
// run before anything is read, so that an extent that overflows either is an argument error and
// never a wild read or write.
#ifndef INVAR_API_EXTENTS_H_
#define INVAR_API_EXTENTS_H_

#include <cstddef>
#include <cstdint>

namespace invar::api {

// The most bytes one operand may span. No 64-bit machine maps more than 2^56 bytes into a process
// (x86-64 with five-level paging; aarch64 has at most 2^52), so a larger span cannot describe
// real memory; under this bound every product of two extents the engine computes fits int64_t.
inline constexpr int64_t kMaxSpanBytes = int64_t{1} << 56;

// Elements from the first to one past the last element of a rows x cols matrix whose rows start
// ld elements apart, i.e. (rows - 1) * ld + cols; rows, cols > 0 and ld >= cols. Returns -1 when
// the span, or its size in bytes, exceeds kMaxSpanBytes, and for extents outside those bounds.
inline int64_t span_elements(int64_t rows, int64_t cols, int64_t ld, std::size_t elem_bytes) {
  if (rows <= 0 || cols <= 0 || ld < cols) return -1;
  int64_t offset = 0, span = 0;
  if (__builtin_mul_overflow(rows - 1, ld, &offset) || __builtin_add_overflow(offset, cols, &span))
    return -1;
  if (span > kMaxSpanBytes / static_cast<int64_t>(elem_bytes)) return -1;
  return span;
}

// Whether [base + low, base + high) elements (low <= 0 <= high) are addresses that do not wrap
// around either end of the address space, none of them address 0.
inline bool addressable(const void* base, int64_t low, int64_t high, std::size_t elem_bytes) {
  const auto address = reinterpret_cast<std::uintptr_t>(base);
  const auto below = static_cast<std::uintptr_t>(-low) * elem_bytes;  // -low <= 2^56 / elem
  const auto above = static_cast<std::uintptr_t>(high) * elem_bytes;
  return address > below && address <= UINTPTR_MAX - above;
}

// The elements spanned by `count` matrices of `span` elements each, the i-th starting at
// base + i * stride (stride may be negative or 0): [low, high) relative to base. False when
// (count - 1) * stride or the whole range overflows or exceeds kMaxSpanBytes.
inline bool strided_range(int64_t span, int64_t stride, int64_t count, std::size_t elem_bytes,
                          int64_t* low, int64_t* high) {
  int64_t last = 0, end = 0, total = 0;
  if (__builtin_mul_overflow(count - 1, stride, &last)) return false;
  *low = last < 0 ? last : 0;
  if (__builtin_add_overflow(last > 0 ? last : 0, span, &end)) return false;
  if (__builtin_sub_overflow(end, *low, &total)) return false;
  if (total > kMaxSpanBytes / static_cast<int64_t>(elem_bytes)) return false;
  *high = end;
  return true;
}

}  // namespace invar::api

#endif  // INVAR_API_EXTENTS_H_
