// Internal checks: the library's own invariants, as opposed to the caller's arguments.
//
// Two tiers of failure (STYLE.md, "Errors"): a caller's bad argument is reported (a status and a
// message in C, an exception in C++, api/), never aborted on; a broken internal invariant means
// invar itself is wrong, and the process stops at once, before a wrong bit can reach C:
//
//   INVAR_CHECK(cond, message)      always on: aborts with file:line, the condition and message.
//   INVAR_CHECK_EQ/NE/LT/LE/GT/GE(a, b)   the same for a comparison of integers, printing both
//                                   values.
//   INVAR_DCHECK(cond, message), INVAR_DCHECK_EQ(a, b), ...   the same, in debug builds only
//                                   (NDEBUG not defined, or the INVAR_ENABLE_DCHECKS option): in
//                                   other builds the condition is compiled but never evaluated.
//
// CHECK guards what is cheap and fatal if wrong; DCHECK states a kernel's assumptions at the
// driver/kernel boundary (rows within the tile, k-blocks in whole k units, aligned panels), where
// a release build must not pay for them. Neither belongs in an ISA translation unit: the failure
// path is an ordinary function of the baseline build (check.cpp), and the kernels' hot loops stay
// free of branches.
#ifndef INVAR_COMMON_CHECK_H_
#define INVAR_COMMON_CHECK_H_

#include <cstdint>

#if !defined(NDEBUG) || defined(INVAR_ENABLE_DCHECKS)
#define INVAR_DCHECK_IS_ON 1
#else
#define INVAR_DCHECK_IS_ON 0
#endif

namespace invar::common {

// Print "invar: internal check failed at file:line: ..." to stderr and abort.
[[noreturn]] void check_failed(const char* file, int line, const char* condition,
                               const char* message);
[[noreturn]] void check_op_failed(const char* file, int line, const char* comparison, int64_t a,
                                  int64_t b);

}  // namespace invar::common

#define INVAR_CHECK(condition, message)                                       \
  do {                                                                        \
    if (__builtin_expect(!(condition), 0))                                    \
      ::invar::common::check_failed(__FILE__, __LINE__, #condition, message); \
  } while (false)

#define INVAR_CHECK_OP_(a, op, b)                                                             \
  do {                                                                                        \
    const int64_t invar_check_a_ = static_cast<int64_t>(a);                                   \
    const int64_t invar_check_b_ = static_cast<int64_t>(b);                                   \
    if (__builtin_expect(!(invar_check_a_ op invar_check_b_), 0))                             \
      ::invar::common::check_op_failed(__FILE__, __LINE__, #a " " #op " " #b, invar_check_a_, \
                                       invar_check_b_);                                       \
  } while (false)

#define INVAR_CHECK_EQ(a, b) INVAR_CHECK_OP_(a, ==, b)
#define INVAR_CHECK_NE(a, b) INVAR_CHECK_OP_(a, !=, b)
#define INVAR_CHECK_LT(a, b) INVAR_CHECK_OP_(a, <, b)
#define INVAR_CHECK_LE(a, b) INVAR_CHECK_OP_(a, <=, b)
#define INVAR_CHECK_GT(a, b) INVAR_CHECK_OP_(a, >, b)
#define INVAR_CHECK_GE(a, b) INVAR_CHECK_OP_(a, >=, b)

#if INVAR_DCHECK_IS_ON
#define INVAR_DCHECK(condition, message) INVAR_CHECK(condition, message)
#define INVAR_DCHECK_OP_(a, op, b) INVAR_CHECK_OP_(a, op, b)
#else
// Compiled (so it cannot rot) but never evaluated.
#define INVAR_DCHECK(condition, message) \
  while (false) INVAR_CHECK(condition, message)
#define INVAR_DCHECK_OP_(a, op, b) \
  while (false) INVAR_CHECK_OP_(a, op, b)
#endif

#define INVAR_DCHECK_EQ(a, b) INVAR_DCHECK_OP_(a, ==, b)
#define INVAR_DCHECK_NE(a, b) INVAR_DCHECK_OP_(a, !=, b)
#define INVAR_DCHECK_LT(a, b) INVAR_DCHECK_OP_(a, <, b)
#define INVAR_DCHECK_LE(a, b) INVAR_DCHECK_OP_(a, <=, b)
#define INVAR_DCHECK_GT(a, b) INVAR_DCHECK_OP_(a, >, b)
#define INVAR_DCHECK_GE(a, b) INVAR_DCHECK_OP_(a, >=, b)

#endif  // INVAR_COMMON_CHECK_H_
