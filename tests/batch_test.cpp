// Batched products: every entry equals its single call bit for bit, whether the batch runs in
// parallel across entries (small products) or entry by entry on all threads (large ones); and a
// bad entry is reported before any C is written.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "invar/invar.h"
#include "invar/invar.hpp"
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
invar_status strided(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
                     int64_t sa, const T* b, int64_t ldb, int64_t sb, T beta, T* c, int64_t ldc,
                     int64_t sc, int64_t batch) {
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
  for (const auto& shape : {std::array<int64_t, 4>{5, 7, 9, 11}, {1, 33, 300, 5},
                            {150, 170, 190, 3}}) {
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
  EXPECT_EQ(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                                      0, b.data(), n, 0, 0.0f, c.data(), n, 8, batch),
            INVAR_EINVAL);
  message = invar_last_error();
  EXPECT_NE(message.find("stride_c = 8"), std::string::npos) << message;
  EXPECT_EQ(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                                      0, b.data(), n, 0, 0.0f, c.data(), n, 16, -1),
            INVAR_EINVAL);
  EXPECT_TRUE(same_bits(c, c0));
  EXPECT_EQ(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                                      0, b.data(), n, 0, 0.0f, nullptr, n, 16, 0),
            INVAR_OK);
}

}  // namespace
}  // namespace invar::test
