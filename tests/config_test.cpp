// invar_get_config(): one line naming the version, path, threads and caches, valid for the life
// of the process.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "invar/invar.h"

namespace {

TEST(Config, NamesVersionIsaThreadsAndCaches) {
  const char* line = invar_get_config();
  ASSERT_NE(line, nullptr);
  const std::string text = line;
  EXPECT_EQ(text.rfind(std::string("invar ") + invar_version(), 0), 0u) << text;
  EXPECT_NE(text.find(std::string("; isa ") + invar_isa() + " ("), std::string::npos) << text;
  EXPECT_NE(text.find("; threads "), std::string::npos) << text;
  EXPECT_NE(text.find("; L1d "), std::string::npos) << text;
  EXPECT_NE(text.find("; L2 "), std::string::npos) << text;
  EXPECT_NE(text.find("; L3 "), std::string::npos) << text;
  EXPECT_STREQ(invar_last_error(), "");
}

TEST(Config, EarlierPointersStayValidWhenTheThreadCountChanges) {
  const int before = invar_set_num_threads(0);
  const char* first = invar_get_config();
  const std::string first_text = first;
  const int other = before == 1 ? 2 : 1;
  ASSERT_EQ(invar_set_num_threads(other), other);
  const char* second = invar_get_config();
  EXPECT_NE(std::string(second).find("; threads " + std::to_string(other) + ";"), std::string::npos)
      << second;
  EXPECT_NE(first_text, second);
  EXPECT_EQ(first_text, first);           // the first line is still there, unchanged
  EXPECT_EQ(invar_get_config(), second);  // the same settings give the same pointer
  invar_set_num_threads(0);
  EXPECT_EQ(invar_get_config(), first);
}

}  // namespace
