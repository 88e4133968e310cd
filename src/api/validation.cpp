#include "api/validation.h"

namespace invar::api {
namespace {

std::string arg(const char* function, const std::string& text) {
  return std::string(function) + ": " + text;
}

}  // namespace

std::string invalid_trans_message(const char* function, const char* name, int trans) {
  return arg(function, std::string(name) + " = " + std::to_string(trans) +
                           " is neither INVAR_NO_TRANS nor INVAR_TRANS");
}

std::string negative_extent_message(const char* function, const char* name, int64_t value) {
  return arg(function, std::string(name) + " = " + std::to_string(value) + " is negative");
}

std::string short_ld_message(const char* function, Operand operand, int64_t ld, bool transposed,
                             int64_t stored_cols) {
  const bool is_a = operand == Operand::kA;
  // The stored row length is k for A and for transposed B, m for transposed A, n for B.
  const char* cols_name = is_a == transposed ? (is_a ? "m = " : "n = ") : "k = ";
  std::string text = std::string(is_a ? "lda = " : "ldb = ") + std::to_string(ld) +
                     " is smaller than " + cols_name + std::to_string(stored_cols);
  if (transposed)
    text += is_a ? " (A is transposed, stored k x m)" : " (B is transposed, stored n x k)";
  return arg(function, text);
}

std::string span_message(const char* function, const char* name, const char* ld_name, int64_t rows,
                         int64_t cols, int64_t ld, int64_t span) {
  if (span < 0)
    return arg(function, std::string(ld_name) + " = " + std::to_string(ld) + " with " +
                             std::to_string(rows) + " rows of " + std::to_string(cols) +
                             " elements makes " + name +
                             " span more memory than a process can address");
  return arg(function, std::string(name) + ": its " + std::to_string(span) +
                           " elements would run past the end of the address space");
}

}  // namespace invar::api
