// The default thread count from the environment: INVAR_NUM_THREADS, else the first value of
// OMP_NUM_THREADS, else the physical cores; invalid values are errors naming the variable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "arch/cpu_count.h"
#include "invar/invar.h"
#include "invar/invar.hpp"
#include "runtime/env.h"

namespace invar::test {
namespace {

// Sets (or, with nullptr, unsets) an environment variable for the lifetime of the object.
class EnvSetting {
 public:
  EnvSetting(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~EnvSetting() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }
  EnvSetting(const EnvSetting&) = delete;
  EnvSetting& operator=(const EnvSetting&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(ThreadsEnv, FirstOfListParsesOpenMpStyleValues) {
  std::string error;
  EXPECT_EQ(runtime::parse_first_of_list("OMP_NUM_THREADS", "4", 1024, &error), 4);
  EXPECT_EQ(runtime::parse_first_of_list("OMP_NUM_THREADS", "4,2", 1024, &error), 4);
  EXPECT_EQ(runtime::parse_first_of_list("OMP_NUM_THREADS", " 3 ,1", 1024, &error), 3);
  for (const char* bad : {"", ",4", "0", "0,2", "-1", "x", "4x,2", "2000", "4 2"}) {
    error.clear();
    EXPECT_FALSE(runtime::parse_first_of_list("OMP_NUM_THREADS", bad, 1024, &error).has_value())
        << bad;
    EXPECT_NE(error.find("OMP_NUM_THREADS=\"" + std::string(bad) + "\""), std::string::npos)
        << error;
  }
}

TEST(ThreadsEnv, InvarNumThreadsWinsOverOmpNumThreads) {
  EnvSetting invar("INVAR_NUM_THREADS", "3");
  EnvSetting omp("OMP_NUM_THREADS", "5,2");
  EXPECT_EQ(Context{}.num_threads(), 3);
}

TEST(ThreadsEnv, OmpNumThreadsFirstValueIsTheDefault) {
  EnvSetting invar("INVAR_NUM_THREADS", nullptr);
  {
    EnvSetting omp("OMP_NUM_THREADS", "5,2");
    EXPECT_EQ(Context{}.num_threads(), 5);
  }
  {
    EnvSetting omp("OMP_NUM_THREADS", "7");
    Context c;
    EXPECT_EQ(c.num_threads(), 7);
    c.set_num_threads(2);
    c.set_num_threads(0);  // back to the environment's count
    EXPECT_EQ(c.num_threads(), 7);
  }
  {
    EnvSetting omp("OMP_NUM_THREADS", nullptr);
    EXPECT_EQ(Context{}.num_threads(), arch::default_thread_count());
  }
}

TEST(ThreadsEnv, InvalidOmpNumThreadsIsAClearError) {
  EnvSetting invar("INVAR_NUM_THREADS", nullptr);
  for (const char* bad : {"0", "abc", ",2", "-3"}) {
    EnvSetting omp("OMP_NUM_THREADS", bad);
    try {
      Context c;
      ADD_FAILURE() << "OMP_NUM_THREADS=" << bad << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("OMP_NUM_THREADS"), std::string::npos) << e.what();
    }
  }
}

TEST(ThreadsEnv, ThreadsOnSaysWhoseThreads) {
  {
    EnvSetting on("INVAR_THREADS_ON", "invar");
    Context c;
    EXPECT_EQ(c.team_runner(), "");
  }
  {
    EnvSetting on("INVAR_THREADS_ON", "tbb");
    EXPECT_THROW(Context c, InvalidArgument);
  }
  {
    // This binary loads no OpenMP runtime (tests/omp_callers_test.cpp has one loaded).
    EnvSetting on("INVAR_THREADS_ON", "openmp");
    try {
      Context c;
      ADD_FAILURE() << "INVAR_THREADS_ON=openmp accepted without an OpenMP runtime";
    } catch (const Unsupported& e) {
      EXPECT_EQ(std::string(e.what()).rfind("INVAR_THREADS_ON=openmp, but no OpenMP runtime", 0),
                0u)
          << e.what();
    }
  }
}

TEST(ThreadsEnv, CGetterReportsTheDefaultContextsCount) {
  const int before = invar_get_num_threads();
  ASSERT_GE(before, 1) << invar_last_error();
  EXPECT_EQ(invar_set_num_threads(3), 3);
  EXPECT_EQ(invar_get_num_threads(), 3);
  EXPECT_STREQ(invar_last_error(), "");
  invar_set_num_threads(before);
  EXPECT_EQ(invar_get_num_threads(), before);
}

}  // namespace
}  // namespace invar::test
