// The C++ API: views, shape checks, exceptions, contexts and INVAR_* settings.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "api/context_impl.h"
#include "invar/invar.hpp"
#include "runtime/env.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

// Sets an environment variable for the lifetime of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(CppApi, MultipliesViewsOfLargerBuffers) {
  // C[2:5, 1:4] = A[1:4, 0:2] * B[0:2, 3:6] inside bigger buffers.
  auto abuf = random_floats(6 * 5, 1), bbuf = random_floats(4 * 8, 2),
       cbuf = random_floats(7 * 6, 3);
  auto expected = cbuf;
  MatrixView<const float> a = MatrixView<const float>(abuf.data(), 6, 5).block(1, 0, 3, 2);
  MatrixView<const float> b = MatrixView<const float>(bbuf.data(), 4, 8).block(0, 3, 2, 3);
  MatrixView<float> c = MatrixView<float>(cbuf.data(), 7, 6).block(2, 1, 3, 3);
  gemm(a, b, c);
  reference_gemm<float>(false, false, 3, 3, 2, 1.0f, abuf.data() + 5, 5, bbuf.data() + 3, 8, 0.0f,
                        expected.data() + 2 * 6 + 1, 6);
  EXPECT_TRUE(same_bits(cbuf, expected));
}

TEST(CppApi, MultipliesDoubleViews) {
  auto abuf = random_doubles(6 * 5, 1), bbuf = random_doubles(8 * 4, 2),
       cbuf = random_doubles(7 * 6, 3);
  auto expected = cbuf;
  // C[2:5, 1:4] = 0.3 * A[1:4, 0:2] * (B[3:6, 0:2])^T - 1.5 * C[2:5, 1:4]
  MatrixView<const double> a = MatrixView<const double>(abuf.data(), 6, 5).block(1, 0, 3, 2);
  MatrixView<const double> b = MatrixView<const double>(bbuf.data(), 8, 4).block(3, 0, 3, 2);
  MatrixView<double> c = MatrixView<double>(cbuf.data(), 7, 6).block(2, 1, 3, 3);
  gemm(0.3, Op::kNoTrans, a, Op::kTrans, b, -1.5, c);
  reference_gemm<double>(false, true, 3, 3, 2, 0.3, abuf.data() + 5, 5, bbuf.data() + 3 * 4, 4,
                         -1.5, expected.data() + 2 * 6 + 1, 6);
  EXPECT_TRUE(same_bits(cbuf, expected));
  EXPECT_THROW(
      gemm(MatrixView<const double>(abuf.data(), 3, 4), MatrixView<const double>(bbuf.data(), 3, 4),
           MatrixView<double>(cbuf.data(), 3, 3)),
      InvalidArgument);
}

TEST(CppApi, ShapeMismatchThrowsAndLeavesCUntouched) {
  std::vector<float> a(12), b(12);
  auto c = random_floats(9, 4);
  const auto c0 = c;
  EXPECT_THROW(gemm(MatrixView<const float>(a.data(), 3, 4),
                    MatrixView<const float>(b.data(), 3, 4), MatrixView<float>(c.data(), 3, 3)),
               InvalidArgument);
  EXPECT_THROW(
      gemm(1.0f, Op::kTrans, MatrixView<const float>(a.data(), 4, 3), Op::kNoTrans,
           MatrixView<const float>(b.data(), 4, 3), 0.0f, MatrixView<float>(c.data(), 3, 2)),
      InvalidArgument);
  EXPECT_THROW(gemm(MatrixView<const float>(nullptr, 3, 4), MatrixView<const float>(b.data(), 4, 3),
                    MatrixView<float>(c.data(), 3, 3)),
               InvalidArgument);
  EXPECT_TRUE(same_bits(c, c0));
  EXPECT_THROW(MatrixView<float>(c.data(), 3, 3, 2), InvalidArgument);
  EXPECT_THROW(MatrixView<float>(c.data(), 3, 3).block(1, 1, 3, 1), InvalidArgument);
  try {
    gemm(MatrixView<const float>(a.data(), 3, 4), MatrixView<const float>(b.data(), 3, 4),
         MatrixView<float>(c.data(), 3, 3));
    ADD_FAILURE() << "a shape mismatch was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("op(A) is 3 x 4"), std::string::npos) << e.what();
  }
}

TEST(CppApi, ContextsHonourOptionsAndEnvironment) {
  ContextOptions o;
  o.num_threads = 3;
  o.isa = Isa::kGeneric;
  Context generic(o);
  EXPECT_EQ(generic.isa(), Isa::kGeneric);
  EXPECT_EQ(generic.num_threads(), 3);
  generic.set_num_threads(0);
  EXPECT_GE(generic.num_threads(), 1);
  EXPECT_THROW(generic.set_num_threads(-1), InvalidArgument);
  {
    ScopedEnv kc("INVAR_KC", "17");
    ScopedEnv mc("INVAR_MC", "9");
    ScopedEnv threads("INVAR_NUM_THREADS", "5");
    Context c;
    EXPECT_EQ(c.impl().overrides.kc, 17);
    EXPECT_EQ(c.impl().overrides.mc, 9);
    EXPECT_EQ(c.num_threads(), 5);
  }
  {
    ScopedEnv kc("INVAR_KC", "12x");
    EXPECT_THROW(Context{}, InvalidArgument);
  }
  {
    ScopedEnv threads("INVAR_NUM_THREADS", "0");
    EXPECT_THROW(Context{}, InvalidArgument);
  }
}

TEST(CppApi, UnavailableIsaIsAClearError) {
  {
    ScopedEnv isa("INVAR_ISA", "sse9");
    EXPECT_THROW(Context{}, InvalidArgument);
  }
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512, Isa::kNeon}) {
    ContextOptions o;
    o.isa = isa;
    if (kernels::compiled_kernel_set(isa) != nullptr && kernels::cpu_supports(isa)) {
      EXPECT_EQ(Context(o).isa(), isa);
    } else {
      try {
        Context c(o);
        ADD_FAILURE() << "a context on " << isa_name(isa) << " was created";
      } catch (const Unsupported& e) {
        EXPECT_NE(std::string(e.what()).find(isa_name(isa)), std::string::npos) << e.what();
      }
    }
  }
}

TEST(Env, StrictIntegerParsing) {
  std::string error;
  EXPECT_EQ(runtime::parse_positive_int("X", "48", 100, &error), 48);
  for (const char* bad : {"", "0", "-1", "1.5", "4k", " 4", "101", "99999999999999999999"}) {
    error.clear();
    EXPECT_FALSE(runtime::parse_positive_int("X", bad, 100, &error).has_value()) << bad;
    EXPECT_NE(error.find("X="), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace invar::test
