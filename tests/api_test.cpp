// The C++ API: views, shape checks, exceptions, contexts and INVAR_* settings.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "api/context_impl.h"
#include "api/gemm_call.h"
#include "api/tiny_lane.h"
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

// Tiny products through invar::gemm on a context of one's own run on that context's tiny lane
// (Context::Impl::tiny, as invar_sgemm on the default context): the chain's bits for every
// layout, alpha and beta, on the record form (up to 8 rows, or more over narrow columns), the
// kernel calls of plan_tiny's plan and the planned run, the same as the loop nest's on a context
// without a direct path.
template <class T>
void tiny_products_on_contexts() {
  Context lane, nest;
  nest.impl().allow_direct = false;
  const kernels::GemmKernel& kernel = kernels::kernel_for<T>(*lane.impl().kernels);
  if (kernel.direct_args != nullptr && kernel.permitted == nullptr)
    EXPECT_EQ(lane.impl().tiny.direct<T>(), kernel.direct_args);  // the lane is open
  for (const auto& [m, n, k] :
       {std::array<int64_t, 3>{1, 1, 1}, std::array<int64_t, 3>{2, 2, 2},
        std::array<int64_t, 3>{4, 4, 4}, std::array<int64_t, 3>{3, 17, 5},
        std::array<int64_t, 3>{8, 8, 8}, std::array<int64_t, 3>{7, 17, 3},
        std::array<int64_t, 3>{12, 12, 12}, std::array<int64_t, 3>{16, 1, 9},
        std::array<int64_t, 3>{5, 40, 33}}) {
    for (Op op_a : {Op::kNoTrans, Op::kTrans}) {
      for (Op op_b : {Op::kNoTrans, Op::kTrans}) {
        for (T alpha : {T(1), T(-0.5)}) {
          for (T beta : {T(0), T(1), T(0.75)}) {
            const bool ta = op_a == Op::kTrans, tb = op_b == Op::kTrans;
            const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
            const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
            const int64_t lda = a_cols + 1, ldb = b_cols + 2, ldc = n + 3;
            const auto a = random_values<T>(a_rows * lda, 7 + m);
            const auto b = random_values<T>(b_rows * ldb, 8 + n);
            auto c = random_values<T>(m * ldc, 9 + k);
            auto expected = c, nested = c;
            reference_gemm<T>(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta,
                              expected.data(), ldc);
            const MatrixView<const T> av(a.data(), a_rows, a_cols, lda);
            const MatrixView<const T> bv(b.data(), b_rows, b_cols, ldb);
            gemm(alpha, op_a, av, op_b, bv, beta, MatrixView<T>(c.data(), m, n, ldc), lane);
            gemm(alpha, op_a, av, op_b, bv, beta, MatrixView<T>(nested.data(), m, n, ldc), nest);
            ASSERT_TRUE(same_bits(c, expected)) << m << "x" << n << "x" << k << " " << ta << tb
                                                << " alpha " << alpha << " beta " << beta;
            ASSERT_TRUE(same_bits(nested, expected)) << m << "x" << n << "x" << k;
          }
        }
      }
    }
  }
}

TEST(CppApi, TinyProductsOnAContextTakeItsLane) {
  tiny_products_on_contexts<float>();
  tiny_products_on_contexts<double>();
}

TEST(CppApi, OpenMpThreadsNeedALoadedRuntime) {
  // This binary links no OpenMP runtime (tests/omp_callers_test.cpp covers one that is loaded).
  ASSERT_EQ(dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD), nullptr);
  ASSERT_EQ(dlopen("libomp.so", RTLD_LAZY | RTLD_NOLOAD), nullptr);
  EXPECT_EQ(invar_use_openmp_threads(1), INVAR_EUNSUPPORTED);
  EXPECT_EQ(std::string(invar_last_error()).rfind("invar_use_openmp_threads: no OpenMP runtime", 0),
            0u)
      << invar_last_error();
  EXPECT_EQ(Context::default_context().impl().pool.team_runner().run, nullptr);
  Context context;
  try {
    context.use_openmp_threads();
    ADD_FAILURE() << "no exception";
  } catch (const Unsupported& e) {
    EXPECT_EQ(std::string(e.what()).rfind("invar::Context::use_openmp_threads: no OpenMP", 0), 0u)
        << e.what();
  }
  EXPECT_EQ(context.impl().pool.team_runner().run, nullptr);
  EXPECT_EQ(invar_use_openmp_threads(0), INVAR_OK);
  EXPECT_STREQ(invar_last_error(), "");
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

// The entry points' quick check (plainly_valid) and the tiny lane's (tiny_arguments) decide a
// call alone only when they accept it; they must then accept only what the full validation
// accepts. Calls near the common case, with up to
// three arguments moved to an edge either check draws (extents and leading dimensions around
// 2^26, 0 and negative; addresses around 2^63 and the top; enums out of range; alpha 0).
TEST(Validation, QuickCheckAcceptsOnlyValidCalls) {
  const int64_t bound = int64_t{1} << 26;
  const int64_t sizes[] = {1, 3, 17, bound - 1};
  const int64_t edges[] = {-1,       0, 1, 2, 3, 16, 17, 18, bound - 1, bound, int64_t{1} << 40,
                           INT64_MAX};
  const uintptr_t top = uintptr_t{1} << 63;
  const uintptr_t good_addresses[] = {64, 4096, top - 64};
  const uintptr_t edge_addresses[] = {0, top, top + 64, UINTPTR_MAX - 4096};
  std::mt19937_64 rng(7);
  auto pick = [&](const auto& values) {
    return values[rng() % (sizeof(values) / sizeof(values[0]))];
  };
  int accepted = 0, refused_valid = 0, tiny_accepted = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    invar::api::GemmCall<float, float> call;
    call.function = "test";
    call.trans_a = static_cast<int>(rng() % 2);
    call.trans_b = static_cast<int>(rng() % 2);
    call.m = pick(sizes);
    call.n = pick(sizes);
    call.k = pick(sizes);
    call.lda = (call.trans_a ? call.m : call.k) + static_cast<int64_t>(rng() % 2);
    call.ldb = (call.trans_b ? call.k : call.n) + static_cast<int64_t>(rng() % 2);
    call.ldc = call.n + static_cast<int64_t>(rng() % 2);
    call.alpha = 1.0f;
    call.beta = 1.0f;
    call.a = reinterpret_cast<const float*>(pick(good_addresses));
    call.b = reinterpret_cast<const float*>(pick(good_addresses));
    call.c = reinterpret_cast<float*>(pick(good_addresses));
    for (int moves = static_cast<int>(rng() % 4); moves > 0; --moves) {
      switch (rng() % 13) {
        case 0: call.m = pick(edges); break;
        case 1: call.n = pick(edges); break;
        case 2: call.k = pick(edges); break;
        case 3: call.lda = pick(edges); break;
        case 4: call.ldb = pick(edges); break;
        case 5: call.ldc = pick(edges); break;
        case 6: call.a = reinterpret_cast<const float*>(pick(edge_addresses)); break;
        case 7: call.b = reinterpret_cast<const float*>(pick(edge_addresses)); break;
        case 8: call.c = reinterpret_cast<float*>(pick(edge_addresses)); break;
        case 9: call.trans_a = static_cast<int>(rng() % 4) - 1; break;
        case 10: call.trans_b = static_cast<int>(rng() % 4) - 1; break;
        case 11: call.alpha = rng() % 2 ? 0.0f : -0.0f; break;
        case 12:
          call.bias = static_cast<int>(rng() % 4);  // 3 is no invar_bias
          call.bias_values = rng() % 2 ? call.b : nullptr;
          call.activation = static_cast<int>(rng() % 5);  // 4 is no invar_activation
          break;
      }
    }
    // The tiny lane's one test accepts only valid tiny products (its epilogue is none).
    if (invar::api::tiny_arguments(call.trans_a, call.trans_b, call.m, call.n, call.k, call.alpha,
                                   call.a, call.lda, call.b, call.ldb, call.c, call.ldc)) {
      ++tiny_accepted;
      ASSERT_TRUE(invar::driver::tiny_shape(call.m, call.n, call.k));
      invar::api::GemmCall<float, float> plain = call;
      plain.bias = plain.activation = 0;
      ASSERT_EQ(invar::api::validate(plain), "")
          << "m " << call.m << " n " << call.n << " k " << call.k << " lda " << call.lda << " ldb "
          << call.ldb << " ldc " << call.ldc << " ta " << call.trans_a << " tb " << call.trans_b;
    }
    if (!invar::api::plainly_valid(call)) {
      refused_valid += invar::api::validate(call).empty();
      continue;
    }
    ++accepted;
    ASSERT_EQ(invar::api::validate(call), "")
        << "m " << call.m << " n " << call.n << " k " << call.k << " lda " << call.lda << " ldb "
        << call.ldb << " ldc " << call.ldc << " ta " << call.trans_a << " tb " << call.trans_b;
  }
  // Both outcomes occurred: the comparison ran, and the edges reached the full validation.
  EXPECT_GT(accepted, 10000);
  EXPECT_GT(refused_valid, 100);
  EXPECT_GT(tiny_accepted, 1000);
}
