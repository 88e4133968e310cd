// Test entry point. The suite runs once per instruction-set path (CTest sets INVAR_ISA); every
// Context the tests build then uses that path. A run for a path this CPU lacks reports itself
// skipped (exit 77) instead of failing, and a run that passes leaves a marker so that
// isa_coverage_test can fail when a path the CPU has was never exercised.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "kernels/kernel_set.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const char* forced = std::getenv("INVAR_ISA");
  std::string isa = "auto";
  if (forced != nullptr && *forced != '\0') {
    isa = forced;
    bool runnable = false;
    for (invar::Isa candidate : invar::kernels::available_isas())
      runnable = runnable || isa == invar::isa_name(candidate);
    if (!runnable) {
      std::printf("SKIPPED: INVAR_ISA=%s is not compiled in or not supported by this CPU\n",
                  isa.c_str());
      return 77;
    }
  }
  const int rc = RUN_ALL_TESTS();
  const char* marker_dir = std::getenv("INVAR_TEST_MARKER_DIR");
  if (rc == 0 && marker_dir != nullptr) {
    std::filesystem::create_directories(marker_dir);
    std::ofstream(std::filesystem::path(marker_dir) / isa) << "ok\n";
  }
  return rc;
}
