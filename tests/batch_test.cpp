// Batched products: every entry equals its single call bit for bit, whether the batch runs in
// parallel across entries (small products) or entry by entry on all threads (large ones); and a
// bad entry is reported before any C is written. f32 and f64 first, then the 16-bit and 8-bit
// element types.
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "driver/gemm_driver.h"
#include "invar/invar.h"
#include "invar/invar.hpp"
#include "numeric/half.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

// Restores the default context's thread count when a test ends.
struct ThreadCount {
  explicit ThreadCount(int n) { invar_set_num_threads(n); }
  ~ThreadCount() { invar_set_num_threads(0); }
};

template <class T>
invar_status strided(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, int64_t sa,
                     const T* b, int64_t ldb, int64_t sb, T beta, T* c, int64_t ldc, int64_t sc,
                     int64_t batch) {
  if constexpr (sizeof(T) == 4)
    return invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_TRANS, m, n, k, alpha, a, lda, sa, b,
                                     ldb, sb, beta, c, ldc, sc, batch);
  else
    return invar_dgemm_batch_strided(INVAR_NO_TRANS, INVAR_TRANS, m, n, k, alpha, a, lda, sa, b,
                                     ldb, sb, beta, c, ldc, sc, batch);
}

template <class T>
invar_status single(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                    int64_t ldb, T beta, T* c, int64_t ldc) {
  if constexpr (sizeof(T) == 4)
    return invar_sgemm(INVAR_NO_TRANS, INVAR_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    return invar_dgemm(INVAR_NO_TRANS, INVAR_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <class T>
class Batch : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Batch, ElementTypes);

// x * W^T for a batch of inputs sharing one W (stride_b = 0), small (parallel across the batch)
// and large (one entry after another, threads inside each).
TYPED_TEST(Batch, StridedEntriesEqualSingleCalls) {
  using T = TypeParam;
  const ThreadCount two(2);
  for (const auto& shape :
       {std::array<int64_t, 4>{5, 7, 9, 11}, {1, 33, 300, 5}, {150, 170, 190, 3}}) {
    const int64_t m = shape[0], n = shape[1], k = shape[2], batch = shape[3];
    const int64_t lda = k + 1, ldb = k + 2, ldc = n + 3;
    const int64_t sa = m * lda + 5, sc = m * ldc + 1;
    const auto a = random_values<T>(sa * batch, 1 + m);
    const auto w = random_values<T>(n * ldb, 2 + m);
    const auto c0 = random_values<T>(sc * batch, 3 + m);
    auto c = c0, expected = c0, reference = c0;
    const T alpha = T(-0.3), beta = T(3.7);
    ASSERT_EQ(strided<T>(m, n, k, alpha, a.data(), lda, sa, w.data(), ldb, 0, beta, c.data(), ldc,
                         sc, batch),
              INVAR_OK);
    for (int64_t i = 0; i < batch; ++i) {
      ASSERT_EQ(single<T>(m, n, k, alpha, a.data() + i * sa, lda, w.data(), ldb, beta,
                          expected.data() + i * sc, ldc),
                INVAR_OK);
      reference_gemm<T>(false, true, m, n, k, alpha, a.data() + i * sa, lda, w.data(), ldb, beta,
                        reference.data() + i * sc, ldc);
    }
    EXPECT_TRUE(same_bits(c, expected)) << "m=" << m << " batch=" << batch;
    EXPECT_TRUE(same_bits(c, reference)) << "m=" << m << " batch=" << batch;
  }
}

// A strided batch of tiny products over a transposed A, alpha not 1 and a beta of 1 or 0 (the
// direct kernel's scaled form), long enough to be shared by two threads: each entry's bits are
// its single call's, whatever the thread count.
TYPED_TEST(Batch, TinyEntriesOverATransposedAEqualSingleCalls) {
  using T = TypeParam;
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{2, 2, 2}, std::array<int64_t, 3>{3, 5, 7},
                                std::array<int64_t, 3>{4, 17, 4}}) {
    for (int threads : {1, 2}) {
      for (const T beta : {T(1), T(0)}) {
        ThreadCount count(threads);
        const int64_t batch = 1001, lda = m + 1;
        const int64_t sa = k * lda + 1, sb = k * n, sc = m * n + 1;
        const auto a = random_values<T>(batch * sa, 4 + m);
        const auto b = random_values<T>(batch * sb, 5 + n);
        auto c = random_values<T>(batch * sc, 6 + k);
        auto expected = c;
        const T alpha = T(-0.75);
        invar_status s;
        if constexpr (sizeof(T) == 4)
          s = invar_sgemm_batch_strided(INVAR_TRANS, INVAR_NO_TRANS, m, n, k, alpha, a.data(), lda,
                                        sa, b.data(), n, sb, beta, c.data(), n, sc, batch);
        else
          s = invar_dgemm_batch_strided(INVAR_TRANS, INVAR_NO_TRANS, m, n, k, alpha, a.data(), lda,
                                        sa, b.data(), n, sb, beta, c.data(), n, sc, batch);
        ASSERT_EQ(s, INVAR_OK) << invar_last_error();
        for (int64_t i = 0; i < batch; ++i) {
          if constexpr (sizeof(T) == 4)
            s = invar_sgemm(INVAR_TRANS, INVAR_NO_TRANS, m, n, k, alpha, a.data() + i * sa, lda,
                            b.data() + i * sb, n, beta, expected.data() + i * sc, n);
          else
            s = invar_dgemm(INVAR_TRANS, INVAR_NO_TRANS, m, n, k, alpha, a.data() + i * sa, lda,
                            b.data() + i * sb, n, beta, expected.data() + i * sc, n);
          ASSERT_EQ(s, INVAR_OK);
        }
        ASSERT_TRUE(same_bits(c, expected))
            << m << "x" << n << "x" << k << ", " << threads << " threads, beta " << beta;
      }
    }
  }
}

// Tiny entries with a row-major B (the small and direct paths, and the direct kernel's record
// form for up to kFewRowsMaxRows rows of at most kFewRowsMaxCols columns: 8 x 8, 6 x 16; 7 x 17
// is past it; and over more rows of narrow columns: 16 x 1, 12 x 20 in f32), planned once per
// batch: each entry's bits are its single call's. In the C++ batch every other entry has other
// leading dimensions, so those run alone between the entries that share the first's plan.
TYPED_TEST(Batch, TinyEntriesPlannedOnceEqualSingleCalls) {
  using T = TypeParam;
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{4, 4, 4}, std::array<int64_t, 3>{8, 8, 8},
                                std::array<int64_t, 3>{5, 7, 3}, std::array<int64_t, 3>{16, 1, 9},
                                std::array<int64_t, 3>{6, 16, 5}, std::array<int64_t, 3>{7, 17, 3},
                                std::array<int64_t, 3>{12, 20, 4}}) {
    for (int threads : {1, 2}) {
      ThreadCount count(threads);
      const int64_t batch = 37;
      const int64_t sa = m * k + 3, sb = k * n + 1, sc = m * n + 2;
      const auto a = random_values<T>(batch * sa, 1 + m);
      const auto b = random_values<T>(batch * sb, 2 + n);
      auto c = random_values<T>(batch * sc, 3 + k);
      auto expected = c;
      const T beta = T(0.5);
      invar_status s;
      if constexpr (sizeof(T) == 4)
        s = invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                                      sa, b.data(), n, sb, beta, c.data(), n, sc, batch);
      else
        s = invar_dgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0, a.data(), k, sa,
                                      b.data(), n, sb, beta, c.data(), n, sc, batch);
      ASSERT_EQ(s, INVAR_OK) << invar_last_error();
      for (int64_t i = 0; i < batch; ++i) {
        if constexpr (sizeof(T) == 4)
          s = invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data() + i * sa, k,
                          b.data() + i * sb, n, beta, expected.data() + i * sc, n);
        else
          s = invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0, a.data() + i * sa, k,
                          b.data() + i * sb, n, beta, expected.data() + i * sc, n);
        ASSERT_EQ(s, INVAR_OK);
      }
      ASSERT_TRUE(same_bits(c, expected)) << m << "x" << n << "x" << k << ", " << threads;

      // Views: odd entries over a wider C (ldc n + 1), the rest as dense as the first.
      std::vector<T> cw(static_cast<std::size_t>(batch * m * (n + 1)), T(0));
      std::vector<T> cw_expected = cw;
      std::vector<MatrixView<const T>> av, bv;
      std::vector<MatrixView<T>> cv;
      for (int64_t i = 0; i < batch; ++i) {
        const int64_t ldc = i % 2 ? n + 1 : n;
        av.emplace_back(a.data() + i * sa, m, k);
        bv.emplace_back(b.data() + i * sb, k, n);
        cv.emplace_back(cw.data() + i * m * (n + 1), m, n, ldc);
        gemm(T(1), Op::kNoTrans, av.back(), Op::kNoTrans, bv.back(), T(0),
             MatrixView<T>(cw_expected.data() + i * m * (n + 1), m, n, ldc));
      }
      gemm_batch(T(1), Op::kNoTrans, av.data(), Op::kNoTrans, bv.data(), T(0), cv.data(),
                 static_cast<std::size_t>(batch), Context::default_context());
      ASSERT_TRUE(same_bits(cw, cw_expected)) << m << "x" << n << "x" << k << ", " << threads;
    }
  }
}

// A strided batch of one entry may carry any stride: nothing past the entry is formed, let alone
// read (the record form's batch loop once moved its pointers on after the last entry, which
// wraps around the address space with strides this large: UBSan's pointer-overflow check).
TYPED_TEST(Batch, OneEntryWithAnyStride) {
  using T = TypeParam;
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{2, 3, 4}, std::array<int64_t, 3>{8, 8, 8},
                                std::array<int64_t, 3>{6, 16, 5}}) {
    const auto a = random_values<T>(m * k, 11);
    const auto b = random_values<T>(k * n, 12);
    auto c = random_values<T>(m * n, 13);
    auto expected = c;
    const int64_t huge = int64_t{1} << 60;
    invar_status s;
    if constexpr (sizeof(T) == 4) {
      s = invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                                    huge, b.data(), n, huge, 0.5f, c.data(), n, huge, 1);
      ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k, b.data(), n,
                            0.5f, expected.data(), n),
                INVAR_OK);
    } else {
      s = invar_dgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0, a.data(), k, huge,
                                    b.data(), n, huge, 0.5, c.data(), n, huge, 1);
      ASSERT_EQ(invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0, a.data(), k, b.data(), n,
                            0.5, expected.data(), n),
                INVAR_OK);
    }
    ASSERT_EQ(s, INVAR_OK) << invar_last_error();
    EXPECT_TRUE(same_bits(c, expected)) << m << "x" << n << "x" << k;
  }
}

TYPED_TEST(Batch, PointerArraysAndTheCppApi) {
  using T = TypeParam;
  const int64_t m = 9, n = 13, k = 17, batch = 6;
  std::vector<std::vector<T>> as, bs, cs;
  std::vector<const T*> ap, bp;
  std::vector<T*> cp;
  for (int64_t i = 0; i < batch; ++i) {
    as.push_back(random_values<T>(m * k, 10 + i));
    bs.push_back(random_values<T>(n * k, 20 + i));
    cs.push_back(random_values<T>(m * n, 30 + i));
  }
  auto expected = cs;
  for (int64_t i = 0; i < batch; ++i) {
    reference_gemm<T>(false, true, m, n, k, T(1), as[i].data(), k, bs[i].data(), k, T(0.5),
                      expected[i].data(), n);
    ap.push_back(as[i].data());
    bp.push_back(bs[i].data());
    cp.push_back(cs[i].data());
  }
  auto c_api = cs;
  std::vector<T*> c_api_p;
  for (auto& c : c_api) c_api_p.push_back(c.data());
  invar_status s;
  if constexpr (sizeof(T) == 4)
    s = invar_sgemm_batch(INVAR_NO_TRANS, INVAR_TRANS, m, n, k, 1.0f, ap.data(), k, bp.data(), k,
                          0.5f, c_api_p.data(), n, batch);
  else
    s = invar_dgemm_batch(INVAR_NO_TRANS, INVAR_TRANS, m, n, k, 1.0, ap.data(), k, bp.data(), k,
                          0.5, c_api_p.data(), n, batch);
  ASSERT_EQ(s, INVAR_OK);
  for (int64_t i = 0; i < batch; ++i) EXPECT_TRUE(same_bits(c_api[i], expected[i])) << i;

  ContextOptions o;
  o.num_threads = 2;
  Context context(o);
  std::vector<MatrixView<const T>> av, bv;
  std::vector<MatrixView<T>> cv;
  for (int64_t i = 0; i < batch; ++i) {
    av.emplace_back(as[i].data(), m, k);
    bv.emplace_back(bs[i].data(), n, k);
    cv.emplace_back(cs[i].data(), m, n);
  }
  gemm_batch(T(1), Op::kNoTrans, av.data(), Op::kTrans, bv.data(), T(0.5), cv.data(), batch,
             context);
  for (int64_t i = 0; i < batch; ++i) EXPECT_TRUE(same_bits(cs[i], expected[i])) << i;
  // An entry of another shape is refused before anything is computed.
  const auto before = cs;
  cv[3] = MatrixView<T>(cs[3].data(), m, n - 1);
  bv[3] = MatrixView<const T>(bs[3].data(), n - 1, k);
  EXPECT_THROW(gemm_batch(T(1), Op::kNoTrans, av.data(), Op::kTrans, bv.data(), T(0.5), cv.data(),
                          batch, context),
               InvalidArgument);
  for (int64_t i = 0; i < batch; ++i) EXPECT_TRUE(same_bits(cs[i], before[i])) << i;
}

TEST(BatchErrors, ABadEntryLeavesEveryCUntouched) {
  const int64_t m = 4, n = 4, k = 4, batch = 4;
  const auto a = random_floats(16, 1), b = random_floats(16, 2);
  const auto c0 = random_floats(16 * batch, 3);
  auto c = c0;
  std::vector<const float*> ap(batch, a.data()), bp(batch, b.data());
  std::vector<float*> cp;
  for (int64_t i = 0; i < batch; ++i) cp.push_back(c.data() + 16 * i);
  bp[2] = nullptr;
  EXPECT_EQ(invar_sgemm_batch(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, ap.data(), k,
                              bp.data(), n, 0.0f, cp.data(), n, batch),
            INVAR_EINVAL);
  std::string message = invar_last_error();
  EXPECT_NE(message.find("b is NULL"), std::string::npos) << message;
  EXPECT_NE(message.find("batch entry 2"), std::string::npos) << message;
  EXPECT_TRUE(same_bits(c, c0));
  // Overlapping C matrices, a negative batch.
  EXPECT_EQ(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k, 0,
                                      b.data(), n, 0, 0.0f, c.data(), n, 8, batch),
            INVAR_EINVAL);
  message = invar_last_error();
  EXPECT_NE(message.find("stride_c = 8"), std::string::npos) << message;
  EXPECT_EQ(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k, 0,
                                      b.data(), n, 0, 0.0f, c.data(), n, 16, -1),
            INVAR_EINVAL);
  EXPECT_TRUE(same_bits(c, c0));
  EXPECT_EQ(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k, 0,
                                      b.data(), n, 0, 0.0f, nullptr, n, 16, 0),
            INVAR_OK);
}

// ---- 16-bit and 8-bit element types ------------------------------------------------------------

// A single call of invar.h with its two batch forms, and the element types they take.
template <class InT, class InBT, class OutT>
struct Types {
  using In = InT;
  using InB = InBT;
  using Out = OutT;
  using Acc = std::conditional_t<std::is_integral_v<OutT>, int32_t, float>;
};
struct Bf16F32 : Types<bf16, bf16, float> {
  static constexpr auto single = &invar_gemm_bf16bf16f32;
  static constexpr auto strided = &invar_gemm_bf16bf16f32_batch_strided;
  static constexpr auto pointers = &invar_gemm_bf16bf16f32_batch;
};
struct Bf16Bf16 : Types<bf16, bf16, bf16> {
  static constexpr auto single = &invar_gemm_bf16bf16bf16;
  static constexpr auto strided = &invar_gemm_bf16bf16bf16_batch_strided;
  static constexpr auto pointers = &invar_gemm_bf16bf16bf16_batch;
};
struct F16F32 : Types<f16, f16, float> {
  static constexpr auto single = &invar_gemm_f16f16f32;
  static constexpr auto strided = &invar_gemm_f16f16f32_batch_strided;
  static constexpr auto pointers = &invar_gemm_f16f16f32_batch;
};
struct F16F16 : Types<f16, f16, f16> {
  static constexpr auto single = &invar_gemm_f16f16f16;
  static constexpr auto strided = &invar_gemm_f16f16f16_batch_strided;
  static constexpr auto pointers = &invar_gemm_f16f16f16_batch;
};
struct S8S8S32 : Types<int8_t, int8_t, int32_t> {
  static constexpr auto single = &invar_gemm_s8s8s32;
  static constexpr auto strided = &invar_gemm_s8s8s32_batch_strided;
  static constexpr auto pointers = &invar_gemm_s8s8s32_batch;
};
struct U8S8S32 : Types<uint8_t, int8_t, int32_t> {
  static constexpr auto single = &invar_gemm_u8s8s32;
  static constexpr auto strided = &invar_gemm_u8s8s32_batch_strided;
  static constexpr auto pointers = &invar_gemm_u8s8s32_batch;
};

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

// Seeded elements: 16-bit floats rounded from f32 values in [-1, 1), integers over every bit
// pattern, or with `extremes` only the integer type's smallest and largest values.
template <class T>
std::vector<T> random_elements(std::size_t count, uint64_t seed, bool extremes = false) {
  Rng rng(seed);
  std::vector<T> v(count);
  for (T& x : v) {
    if constexpr (std::is_same_v<T, bf16>) {
      x = numeric::round_to_bf16(rng.symmetric());
    } else if constexpr (std::is_same_v<T, f16>) {
      x = numeric::round_to_f16(rng.symmetric());
    } else if constexpr (std::is_floating_point_v<T>) {
      x = rng.symmetric();
    } else {
      const uint64_t r = rng.next();
      const T extreme = r >> 63 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
      x = extremes ? extreme : static_cast<T>(r >> 32);
    }
  }
  return v;
}

// alpha and beta of the i-th case: a general beta, beta == 0 (C not read) and beta == 1 (C
// loaded as it is); for int32, factors that wrap.
template <class Acc>
std::pair<Acc, Acc> scalars(int i) {
  if constexpr (std::is_integral_v<Acc>) {
    const std::pair<Acc, Acc> s[] = {{3, -7}, {-1, 0}, {kMax, 1}};
    return s[i % 3];
  } else {
    const std::pair<Acc, Acc> s[] = {{-0.3f, 3.7f}, {1.0f, 0.0f}, {0.5f, 1.0f}};
    return s[i % 3];
  }
}

invar_trans trans(bool t) { return t ? INVAR_TRANS : INVAR_NO_TRANS; }

struct Shape {
  int64_t m, n, k, batch;
};
// Small products, which run in parallel across the batch with 2 or 3 threads (the decode-like
// M = 1 among them, and one large enough for packed panels); one that runs in parallel with 3
// threads but one entry after another with 2; and a large one, entry after entry on all threads.
constexpr Shape kShapes[] = {{5, 7, 9, 11},    {1, 33, 300, 5},    {37, 29, 41, 4},
                             {60, 70, 110, 5}, {100, 100, 120, 3}, {150, 170, 190, 3}};

// The rule of execute_batch (api/gemm_call.h), to show that kShapes takes both ways.
bool one_by_one(const Shape& s, int threads) {
  return s.batch == 1 || driver::useful_threads(s.m, s.n, s.k, threads) >= threads;
}

TEST(MixedBatchShapes, TakeBothWaysOfRunningABatch) {
  for (int threads : {2, 3}) {
    int parallel = 0, serial = 0;
    for (const Shape& s : kShapes) ++(one_by_one(s, threads) ? serial : parallel);
    EXPECT_GT(parallel, 0) << threads << " threads";
    EXPECT_GT(serial, 0) << threads << " threads";
  }
}

template <class P>
class MixedBatch : public ::testing::Test {};
using Combinations = ::testing::Types<Bf16F32, Bf16Bf16, F16F32, F16F16, S8S8S32, U8S8S32>;
TYPED_TEST_SUITE(MixedBatch, Combinations);

// Strided batches, both transposes, padded rows, gaps between the C matrices (which must stay as
// they were), every other shape with one B shared by all entries (stride_b = 0). The whole of C
// is compared, gaps included.
TYPED_TEST(MixedBatch, StridedEntriesEqualSingleCalls) {
  using P = TypeParam;
  using In = typename P::In;
  using InB = typename P::InB;
  using Out = typename P::Out;
  using Acc = typename P::Acc;
  int index = 0;
  for (int threads : {1, 2, 3}) {
    const ThreadCount count(threads);
    for (const Shape& s : kShapes) {
      const bool ta = index % 2 == 1, tb = index % 3 != 1;
      const auto [alpha, beta] = scalars<Acc>(index);
      const uint64_t seed = 100 + 10 * static_cast<uint64_t>(index);
      const bool shared_b = index % 2 == 0;
      ++index;
      const int64_t lda = (ta ? s.m : s.k) + 1, ldb = (tb ? s.k : s.n) + 2, ldc = s.n + 3;
      const int64_t b_size = (tb ? s.n : s.k) * ldb;
      const int64_t sa = (ta ? s.k : s.m) * lda + 5, sb = shared_b ? 0 : b_size + 1;
      const int64_t sc = s.m * ldc + 1;
      const auto a = random_elements<In>(sa * s.batch, seed);
      const auto b = random_elements<InB>(shared_b ? b_size : sb * s.batch, seed + 1);
      const auto c0 = random_elements<Out>(sc * s.batch, seed + 2);
      auto c = c0, expected = c0;
      const std::string where = "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                                " k=" + std::to_string(s.k) + " batch=" + std::to_string(s.batch) +
                                " threads=" + std::to_string(threads);
      ASSERT_EQ(P::strided(trans(ta), trans(tb), s.m, s.n, s.k, alpha, a.data(), lda, sa, b.data(),
                           ldb, sb, beta, c.data(), ldc, sc, s.batch),
                INVAR_OK)
          << invar_last_error() << " " << where;
      for (int64_t i = 0; i < s.batch; ++i) {
        ASSERT_EQ(P::single(trans(ta), trans(tb), s.m, s.n, s.k, alpha, a.data() + i * sa, lda,
                            b.data() + i * sb, ldb, beta, expected.data() + i * sc, ldc),
                  INVAR_OK)
            << invar_last_error() << " " << where;
      }
      EXPECT_FALSE(same_bits(expected, c0)) << where;  // the products wrote something
      EXPECT_TRUE(same_bits(c, expected)) << where << ", first difference at element "
                                          << first_difference(c.data(), expected.data(), c.size());
    }
  }
}

// Pointer batches, each matrix in its own allocation, through the C API (the default context)
// and through invar::gemm_batch (a Context of the same thread count).
TYPED_TEST(MixedBatch, PointerArraysAndTheCppApiEqualSingleCalls) {
  using P = TypeParam;
  using In = typename P::In;
  using InB = typename P::InB;
  using Out = typename P::Out;
  using Acc = typename P::Acc;
  int index = 0;
  for (int threads : {1, 2, 3}) {
    const ThreadCount count(threads);
    ContextOptions o;
    o.num_threads = threads;
    Context context(o);
    for (const Shape& s : kShapes) {
      const bool ta = index % 3 == 2, tb = index % 2 == 0;
      const auto [alpha, beta] = scalars<Acc>(index + 1);
      const uint64_t seed = 5000 + 100 * static_cast<uint64_t>(index);
      ++index;
      const int64_t a_rows = ta ? s.k : s.m, a_cols = ta ? s.m : s.k;
      const int64_t b_rows = tb ? s.n : s.k, b_cols = tb ? s.k : s.n;
      const int64_t lda = a_cols + 2, ldb = b_cols + 1, ldc = s.n + 1;
      std::vector<std::vector<In>> as;
      std::vector<std::vector<InB>> bs;
      std::vector<std::vector<Out>> c0;
      for (int64_t i = 0; i < s.batch; ++i) {
        as.push_back(random_elements<In>(a_rows * lda, seed + 3 * i));
        bs.push_back(random_elements<InB>(b_rows * ldb, seed + 3 * i + 1));
        c0.push_back(random_elements<Out>(s.m * ldc, seed + 3 * i + 2));
      }
      auto expected = c0, c_api = c0, cpp = c0;
      std::vector<const In*> ap;
      std::vector<const InB*> bp;
      std::vector<Out*> cp;
      std::vector<MatrixView<const In>> av;
      std::vector<MatrixView<const InB>> bv;
      std::vector<MatrixView<Out>> cv;
      for (int64_t i = 0; i < s.batch; ++i) {
        ASSERT_EQ(P::single(trans(ta), trans(tb), s.m, s.n, s.k, alpha, as[i].data(), lda,
                            bs[i].data(), ldb, beta, expected[i].data(), ldc),
                  INVAR_OK)
            << invar_last_error();
        ap.push_back(as[i].data());
        bp.push_back(bs[i].data());
        cp.push_back(c_api[i].data());
        av.emplace_back(as[i].data(), a_rows, a_cols, lda);
        bv.emplace_back(bs[i].data(), b_rows, b_cols, ldb);
        cv.emplace_back(cpp[i].data(), s.m, s.n, ldc);
      }
      const std::string where = "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                                " k=" + std::to_string(s.k) + " batch=" + std::to_string(s.batch) +
                                " threads=" + std::to_string(threads);
      ASSERT_EQ(P::pointers(trans(ta), trans(tb), s.m, s.n, s.k, alpha, ap.data(), lda, bp.data(),
                            ldb, beta, cp.data(), ldc, s.batch),
                INVAR_OK)
          << invar_last_error() << " " << where;
      gemm_batch(alpha, ta ? Op::kTrans : Op::kNoTrans, av.data(), tb ? Op::kTrans : Op::kNoTrans,
                 bv.data(), beta, cv.data(), static_cast<std::size_t>(s.batch), context);
      for (int64_t i = 0; i < s.batch; ++i) {
        EXPECT_FALSE(same_bits(expected[i], c0[i])) << where << " entry " << i;
        EXPECT_TRUE(same_bits(c_api[i], expected[i])) << "C API, " << where << " entry " << i;
        EXPECT_TRUE(same_bits(cpp[i], expected[i])) << "C++ API, " << where << " entry " << i;
      }
    }
  }
}

// Whatever is wrong, and in whichever entry, the call fails before any C is written.
TYPED_TEST(MixedBatch, ABadEntryLeavesEveryCUntouched) {
  using P = TypeParam;
  using In = typename P::In;
  using InB = typename P::InB;
  using Out = typename P::Out;
  using Acc = typename P::Acc;
  const int64_t m = 6, n = 5, k = 4, batch = 4;
  const auto a = random_elements<In>(m * k * batch, 1);
  const auto b = random_elements<InB>(k * n * batch, 2);
  const auto c0 = random_elements<Out>(m * n * batch, 3);
  auto c = c0;
  std::vector<const In*> ap;
  std::vector<const InB*> bp;
  std::vector<Out*> cp;
  for (int64_t i = 0; i < batch; ++i) {
    ap.push_back(a.data() + i * m * k);
    bp.push_back(b.data() + i * k * n);
    cp.push_back(c.data() + i * m * n);
  }
  const Acc alpha = 1, beta = 0;
  auto fails_with = [](invar_status s, std::initializer_list<const char*> parts) {
    if (s != INVAR_EINVAL) return ::testing::AssertionFailure() << "status " << s;
    const std::string message = invar_last_error();
    for (const char* part : parts) {
      if (message.find(part) == std::string::npos)
        return ::testing::AssertionFailure() << "\"" << part << "\" not in: " << message;
    }
    return ::testing::AssertionSuccess();
  };

  // A null matrix in entry 2 of a pointer batch, after two good entries.
  cp[2] = nullptr;
  EXPECT_TRUE(fails_with(P::pointers(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, alpha, ap.data(), k,
                                     bp.data(), n, beta, cp.data(), n, batch),
                         {"_batch:", "c is NULL", "(batch entry 2)"}));
  EXPECT_TRUE(same_bits(c, c0));
  cp[2] = c.data() + 2 * m * n;
  ap[2] = nullptr;
  EXPECT_TRUE(fails_with(P::pointers(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, alpha, ap.data(), k,
                                     bp.data(), n, beta, cp.data(), n, batch),
                         {"a is NULL", "(batch entry 2)"}));
  EXPECT_TRUE(same_bits(c, c0));
  ap[2] = a.data() + 2 * m * k;

  // Strided batches share ldc, so a short ldc is wrong from entry 0; overlapping C matrices and a
  // negative count are refused too.
  EXPECT_TRUE(fails_with(P::strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, alpha, a.data(), k,
                                    m * k, b.data(), n, k * n, beta, c.data(), n - 1, m * n, batch),
                         {"_batch_strided:", "ldc = 4 is smaller than n = 5", "(batch entry 0)"}));
  EXPECT_TRUE(fails_with(P::strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, alpha, a.data(), k,
                                    m * k, b.data(), n, k * n, beta, c.data(), n, m * n - 1, batch),
                         {"stride_c = 29", "overlap"}));
  EXPECT_TRUE(fails_with(P::strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, alpha, a.data(), k,
                                    m * k, b.data(), n, k * n, beta, c.data(), n, m * n, -1),
                         {"batch = -1 is negative"}));
  EXPECT_TRUE(same_bits(c, c0));

  // The C++ API: entry 2 of another shape, or without C.
  ContextOptions o;
  o.num_threads = 2;
  Context context(o);
  std::vector<MatrixView<const In>> av;
  std::vector<MatrixView<const InB>> bv;
  std::vector<MatrixView<Out>> cv;
  for (int64_t i = 0; i < batch; ++i) {
    av.emplace_back(ap[i], m, k);
    bv.emplace_back(bp[i], k, n);
    cv.emplace_back(cp[i], m, n);
  }
  cv[2] = MatrixView<Out>(cp[2], m, n - 1);
  bv[2] = MatrixView<const InB>(bp[2], k, n - 1);
  EXPECT_THROW(gemm_batch(alpha, Op::kNoTrans, av.data(), Op::kNoTrans, bv.data(), beta, cv.data(),
                          batch, context),
               InvalidArgument);
  EXPECT_TRUE(same_bits(c, c0));
  bv[2] = MatrixView<const InB>(bp[2], k, n);
  cv[2] = MatrixView<Out>(nullptr, m, n);
  try {
    gemm_batch(alpha, Op::kNoTrans, av.data(), Op::kNoTrans, bv.data(), beta, cv.data(), batch,
               context);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("c is NULL (batch entry 2)"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(same_bits(c, c0));
}

// The C = A * B loop of the int8 contract: alpha * sum + beta * C modulo 2^32, C not read when
// beta == 0. A is m x k, B is k x n, both row-major.
template <class A>
void wrapping_reference(int64_t m, int64_t n, int64_t k, int32_t alpha, const A* a, int64_t lda,
                        const int8_t* b, int64_t ldb, int32_t beta, int32_t* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      uint32_t sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += static_cast<uint32_t>(int32_t{a[i * lda + p]} * int32_t{b[p * ldb + j]});
      const uint32_t start =
          beta == 0 ? 0u : static_cast<uint32_t>(beta) * static_cast<uint32_t>(c[i * ldc + j]);
      c[i * ldc + j] = static_cast<int32_t>(start + static_cast<uint32_t>(alpha) * sum);
    }
  }
}

template <class P>
class IntBatch : public ::testing::Test {};
using IntCombinations = ::testing::Types<S8S8S32, U8S8S32>;
TYPED_TEST_SUITE(IntBatch, IntCombinations);

// Operands of only the types' extreme values (every product is one of +-16384, -16256, 16129 ...
// for s8, 32385 and -32640 ... for u8) and scalars that wrap every sum they multiply: each entry
// still equals its single call and the loop above.
TYPED_TEST(IntBatch, WrappingExtremesEqualSingleCallsAndTheLoop) {
  using P = TypeParam;
  using In = typename P::In;
  const std::pair<int32_t, int32_t> wrapping[] = {{kMin, kMax}, {kMax, -1}, {-1, kMin}};
  const Shape shapes[] = {{7, 9, 300, 6}, {120, 130, 150, 3}};  // parallel, then one by one
  uint64_t seed = 900;
  for (int threads : {1, 2, 3}) {
    const ThreadCount count(threads);
    for (const Shape& s : shapes) {
      for (const auto& [alpha, beta] : wrapping) {
        const int64_t sa = s.m * s.k, sb = s.k * s.n, sc = s.m * s.n;
        const auto a = random_elements<In>(sa * s.batch, seed, /*extremes=*/true);
        const auto b = random_elements<int8_t>(sb * s.batch, seed + 1, /*extremes=*/true);
        auto c0 = random_elements<int32_t>(sc * s.batch, seed + 2, /*extremes=*/true);
        seed += 3;
        auto c = c0, expected = c0, reference = c0;
        ASSERT_EQ(P::strided(INVAR_NO_TRANS, INVAR_NO_TRANS, s.m, s.n, s.k, alpha, a.data(), s.k,
                             sa, b.data(), s.n, sb, beta, c.data(), s.n, sc, s.batch),
                  INVAR_OK)
            << invar_last_error();
        for (int64_t i = 0; i < s.batch; ++i) {
          ASSERT_EQ(
              P::single(INVAR_NO_TRANS, INVAR_NO_TRANS, s.m, s.n, s.k, alpha, a.data() + i * sa,
                        s.k, b.data() + i * sb, s.n, beta, expected.data() + i * sc, s.n),
              INVAR_OK);
          wrapping_reference(s.m, s.n, s.k, alpha, a.data() + i * sa, s.k, b.data() + i * sb, s.n,
                             beta, reference.data() + i * sc, s.n);
        }
        const std::string where = "m=" + std::to_string(s.m) + " alpha=" + std::to_string(alpha) +
                                  " beta=" + std::to_string(beta) +
                                  " threads=" + std::to_string(threads);
        EXPECT_TRUE(same_bits(expected, reference)) << where;
        EXPECT_TRUE(same_bits(c, expected)) << where;
      }
    }
  }
}

}  // namespace
}  // namespace invar::test
