// Fails when an instruction-set path that this build has and this CPU supports was not run by
// the suite: silently losing a SIMD path is one of the worst regressions a GEMM library can have.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "kernels/kernel_set.h"

TEST(IsaCoverage, EveryAvailablePathRanTheSuite) {
  const char* dir = std::getenv("INVAR_TEST_MARKER_DIR");
  ASSERT_NE(dir, nullptr) << "INVAR_TEST_MARKER_DIR is not set";
  const auto available = invar::kernels::available_isas();
  ASSERT_FALSE(available.empty());
  for (invar::Isa isa : available) {
    const std::filesystem::path marker = std::filesystem::path(dir) / invar::isa_name(isa);
    EXPECT_TRUE(std::filesystem::exists(marker))
        << "the suite did not pass under INVAR_ISA=" << invar::isa_name(isa)
        << ", which this CPU supports";
  }
}
