#include "common/check.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace invar::common {

void check_failed(const char* file, int line, const char* condition, const char* message) {
  std::fprintf(stderr, "invar: internal check failed at %s:%d: %s (%s)\n", file, line, condition,
               message);
  std::fflush(stderr);
  std::abort();
}

void check_op_failed(const char* file, int line, const char* comparison, int64_t a, int64_t b) {
  std::fprintf(stderr,
               "invar: internal check failed at %s:%d: %s (%" PRId64 " against %" PRId64 ")\n",
               file, line, comparison, a, b);
  std::fflush(stderr);
  std::abort();
}

}  // namespace invar::common
