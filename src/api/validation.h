// The checks every entry point makes of the same kind of argument, and their messages: a
// product's validate() (gemm_call.h) and the pack functions (packed.h) both check an operand's
// transpose flag, extents, leading dimension and address range with these, so that one bad
// argument gets one message whatever the call. A message names the function first
// ("invar_sgemm: lda = 3 is smaller than k = 4"); the conditions are stated here once, and the
// messages are built out of line, only for an argument that fails.
#ifndef INVAR_API_VALIDATION_H_
#define INVAR_API_VALIDATION_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "api/extents.h"

namespace invar::api {

enum class Operand { kA, kB };

// A transpose flag is INVAR_NO_TRANS (0) or INVAR_TRANS (1); `name` is "ta" or "tb".
inline bool valid_trans(int trans) { return trans == 0 || trans == 1; }
std::string invalid_trans_message(const char* function, const char* name, int trans);

// "m = -1 is negative".
std::string negative_extent_message(const char* function, const char* name, int64_t value);

// A is stored m x k (k x m when transposed), B k x n (n x k when transposed): the leading
// dimension must be at least the stored row length, `stored_cols`.
std::string short_ld_message(const char* function, Operand operand, int64_t ld, bool transposed,
                             int64_t stored_cols);

std::string span_message(const char* function, const char* name, const char* ld_name, int64_t rows,
                         int64_t cols, int64_t ld, int64_t span);

// "" when the rows x cols matrix `name` at p (rows > 0, cols > 0, ld >= cols), its leading
// dimension `ld_name` = ld, spans addresses the engine can form without overflow (extents.h),
// else the message.
inline std::string check_span(const char* function, const char* name, const char* ld_name,
                              const void* p, int64_t rows, int64_t cols, int64_t ld,
                              std::size_t elem_bytes) {
  const int64_t span = span_elements(rows, cols, ld, elem_bytes);
  if (span >= 0 && addressable(p, 0, span, elem_bytes)) return {};
  return span_message(function, name, ld_name, rows, cols, ld, span);
}

}  // namespace invar::api

#endif  // INVAR_API_VALIDATION_H_
