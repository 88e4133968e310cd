// Internal checks (common/check.h): INVAR_CHECK aborts with file:line, the condition and the
// message (or both values of a comparison) in every build; INVAR_DCHECK does the same in debug
// builds and evaluates nothing in the others.
#include "common/check.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace invar::test {
namespace {

TEST(Check, APassingCheckEvaluatesItsConditionOnceAndGoesOn) {
  int evaluated = 0;
  INVAR_CHECK(++evaluated == 1, "evaluated once");
  INVAR_CHECK_LE(++evaluated, 2);
  EXPECT_EQ(evaluated, 2);
}

TEST(CheckDeathTest, AFailingCheckAbortsNamingThePlaceAndTheMessage) {
  const int64_t rows = 5;
  EXPECT_DEATH(INVAR_CHECK(rows < 4, "rows fit the tile"),
               "internal check failed at .*check_test\\.cpp:[0-9]+: rows < 4 \\(rows fit the "
               "tile\\)");
  EXPECT_DEATH(INVAR_CHECK_LE(rows, 4),
               "internal check failed at .*check_test\\.cpp:[0-9]+: rows <= 4 \\(5 against 4\\)");
  EXPECT_DEATH(INVAR_CHECK_EQ(rows % 2, 0), "rows % 2 == 0 \\(1 against 0\\)");
}

TEST(CheckDeathTest, ADebugCheckRunsOnlyInDebugBuilds) {
  int evaluated = 0;
#if INVAR_DCHECK_IS_ON
  EXPECT_DEATH(INVAR_DCHECK(evaluated == 1, "in a debug build"),
               "check_test\\.cpp:[0-9]+: evaluated == 1 \\(in a debug build\\)");
  EXPECT_DEATH(INVAR_DCHECK_GE(evaluated, 1), "evaluated >= 1 \\(0 against 1\\)");
  INVAR_DCHECK(++evaluated == 1, "evaluated once");
  EXPECT_EQ(evaluated, 1);
#else
  INVAR_DCHECK(++evaluated == 7, "never evaluated");
  INVAR_DCHECK_EQ(++evaluated, 7);
  EXPECT_EQ(evaluated, 0);
#endif
}

}  // namespace
}  // namespace invar::test
