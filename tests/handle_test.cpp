// Packed handles a caller got wrong: freed, freed twice, never a handle at all, of the other side
// or element type, and moved-from C++ objects. Each is refused (INVAR_EINVAL, or an exception in
// C++) with C untouched, and the messages say what was wrong without repeating themselves.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "invar/invar.h"
#include "invar/invar.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define INVAR_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INVAR_TEST_ASAN 1
#endif
#endif

namespace invar::test {
namespace {

std::string last() { return invar_last_error(); }

// The message starts with "function: " and the function is not named again.
::testing::AssertionResult names_once(const char* function) {
  const std::string msg = last(), prefix = std::string(function) + ": ";
  if (msg.rfind(prefix, 0) != 0) return ::testing::AssertionFailure() << "\"" << msg << "\"";
  if (msg.find(function, prefix.size()) != std::string::npos)
    return ::testing::AssertionFailure() << "function named twice: \"" << msg << "\"";
  return ::testing::AssertionSuccess();
}

struct Operands {
  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {9, 10, 11, 12}, c0[4] = {9, 10, 11, 12};
  int8_t ia[4] = {1, 2, 3, 4}, ib[4] = {5, 6, 7, 8};
  uint8_t ua[4] = {1, 2, 3, 4};
  int32_t ic[4] = {9, 10, 11, 12}, ic0[4] = {9, 10, 11, 12};
  bool untouched() const {
    return std::memcmp(c, c0, sizeof c) == 0 && std::memcmp(ic, ic0, sizeof ic) == 0;
  }
};

TEST(Handles, BytesThatAreNotAHandleAreRefused) {
  Operands o;
  alignas(64) unsigned char junk[512];
  for (unsigned char fill : {0x00, 0xAB, 0xFF}) {
    std::memset(junk, fill, sizeof junk);
    const auto* h = reinterpret_cast<const invar_packed*>(junk);
    EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 2, 1.0f, o.a, 2, h, 0.0f, o.c, 2), INVAR_EINVAL);
    EXPECT_TRUE(names_once("invar_sgemm_packed"));
    EXPECT_EQ(invar_sgemm_packed_a(h, INVAR_NO_TRANS, 2, o.b, 2, 0.0f, o.c, 2), INVAR_EINVAL);
    EXPECT_EQ(invar_sgemm_packed_ab(h, h, 0.0f, o.c, 2), INVAR_EINVAL);
    EXPECT_EQ(invar_gemm_s8s8s32_packed(INVAR_NO_TRANS, 2, 1, o.ia, 2, h, 0, o.ic, 2),
              INVAR_EINVAL);
    EXPECT_EQ(invar_packed_bytes(h), 0u);
    EXPECT_TRUE(o.untouched()) << "fill " << int(fill);
  }
}

#if !defined(INVAR_TEST_ASAN)
// Reading a freed handle is what AddressSanitizer reports by design, so these run in the other
// builds: the handle's check word is cleared when it is freed.
TEST(Handles, AFreedHandleIsRefused) {
  Operands o;
  invar_packed* h = nullptr;
  ASSERT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 2, 2, o.b, 2, &h), INVAR_OK);
  invar_packed_free(h);
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 2, 1.0f, o.a, 2, h, 0.0f, o.c, 2), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_sgemm_packed"));
  EXPECT_TRUE(o.untouched());
}

TEST(Handles, FreeingTwiceDoesNotCorruptTheHeap) {
  Operands o;
  invar_packed* h = nullptr;
  ASSERT_EQ(invar_sgemm_pack_a(INVAR_NO_TRANS, 2, 2, 1.0f, o.a, 2, &h), INVAR_OK);
  invar_packed_free(h);
  invar_packed_free(h);
  // The heap still works: pack, use and free again.
  invar_packed* g = nullptr;
  ASSERT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 2, 2, o.b, 2, &g), INVAR_OK);
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 2, 1.0f, o.a, 2, g, 0.0f, o.c, 2), INVAR_OK);
  invar_packed_free(g);
}
#endif

TEST(Handles, HandlesOfAnotherKindAreRefusedWithClearMessages) {
  Operands o;
  invar_packed *fb = nullptr, *fa = nullptr, *db = nullptr, *sb = nullptr, *ub = nullptr;
  const double dbv[4] = {1, 2, 3, 4};
  ASSERT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 2, 2, o.b, 2, &fb), INVAR_OK);
  ASSERT_EQ(invar_sgemm_pack_a(INVAR_NO_TRANS, 2, 2, 1.0f, o.a, 2, &fa), INVAR_OK);
  ASSERT_EQ(invar_dgemm_pack_b(INVAR_NO_TRANS, 2, 2, dbv, 2, &db), INVAR_OK);
  ASSERT_EQ(invar_gemm_s8s8s32_pack_b(INVAR_NO_TRANS, 2, 2, o.ib, 2, &sb), INVAR_OK);
  ASSERT_EQ(invar_gemm_u8s8s32_pack_b(INVAR_NO_TRANS, 2, 2, o.ib, 2, &ub), INVAR_OK);

  // An f32 B given to the int8 products: the message tells the two types apart.
  EXPECT_EQ(invar_gemm_s8s8s32_packed(INVAR_NO_TRANS, 2, 1, o.ia, 2, fb, 0, o.ic, 2), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_gemm_s8s8s32_packed"));
  EXPECT_EQ(last().find("f32, not in f32"), std::string::npos) << last();
  EXPECT_NE(last().find("f32"), std::string::npos) << last();
  EXPECT_EQ(invar_gemm_u8s8s32_packed(INVAR_NO_TRANS, 2, 1, o.ua, 2, fb, 0, o.ic, 2), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_gemm_u8s8s32_packed"));
  EXPECT_EQ(last().find("f32, not in f32"), std::string::npos) << last();
  // An int8 B given to the f32 product.
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 2, 1.0f, o.a, 2, sb, 0.0f, o.c, 2), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_sgemm_packed"));
  EXPECT_EQ(last().find("f32, not in f32"), std::string::npos) << last();
  // The other A type's int8 B.
  EXPECT_EQ(invar_gemm_s8s8s32_packed(INVAR_NO_TRANS, 2, 1, o.ia, 2, ub, 0, o.ic, 2), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_gemm_s8s8s32_packed"));
  EXPECT_EQ(invar_gemm_u8s8s32_packed(INVAR_NO_TRANS, 2, 1, o.ua, 2, sb, 0, o.ic, 2), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_gemm_u8s8s32_packed"));
  // f64 for f32, A for B and B for A.
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 2, 1.0f, o.a, 2, db, 0.0f, o.c, 2), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_sgemm_packed"));
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 2, 1.0f, o.a, 2, fa, 0.0f, o.c, 2), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_sgemm_packed"));
  EXPECT_EQ(invar_sgemm_packed_a(fb, INVAR_NO_TRANS, 2, o.b, 2, 0.0f, o.c, 2), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_sgemm_packed_a"));
  EXPECT_TRUE(o.untouched());
  for (invar_packed* h : {fb, fa, db, sb, ub}) invar_packed_free(h);
}

TEST(Handles, PackingMessagesNameTheFunctionOnce) {
  Operands o;
  invar_packed* h = nullptr;
  EXPECT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, -1, 2, o.b, 2, &h), INVAR_EINVAL);
  EXPECT_EQ(last(), "invar_sgemm_pack_b: k = -1 is negative");
  EXPECT_EQ(invar_sgemm_pack_a(INVAR_NO_TRANS, -1, 2, 1.0f, o.a, 2, &h), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_sgemm_pack_a"));
  EXPECT_NE(last().find("m = -1"), std::string::npos) << last();
  EXPECT_EQ(invar_dgemm_pack_b(INVAR_NO_TRANS, 2, 3, nullptr, 3, &h), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_dgemm_pack_b"));
  EXPECT_EQ(invar_gemm_s8s8s32_pack_b(INVAR_NO_TRANS, 2, 3, o.ib, 2, &h), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_gemm_s8s8s32_pack_b"));
  EXPECT_NE(last().find("ldb"), std::string::npos) << last();
  EXPECT_EQ(invar_gemm_u8s8s32_pack_b(INVAR_NO_TRANS, 2, -3, o.ib, 2, &h), INVAR_EINVAL);
  EXPECT_TRUE(names_once("invar_gemm_u8s8s32_pack_b"));
  EXPECT_EQ(h, nullptr);
}

TEST(Handles, MovedFromPackedOperandsAreRefusedInCpp) {
  std::vector<float> a(6, 1.0f), b(12, 2.0f), c(8, 3.0f);
  const std::vector<float> c0 = c;
  PackedB pb = pack_b(Op::kNoTrans, MatrixView<const float>(b.data(), 3, 4));
  PackedB taken = std::move(pb);
  EXPECT_THROW(gemm(1.0f, Op::kNoTrans, MatrixView<const float>(a.data(), 2, 3), pb, 0.0f,
                    MatrixView<float>(c.data(), 2, 4)),
               Error);
  PackedA pa = pack_a(1.0f, Op::kNoTrans, MatrixView<const float>(a.data(), 2, 3),
                      Context::default_context());
  PackedA kept = std::move(pa);
  EXPECT_THROW(gemm(pa, Op::kNoTrans, MatrixView<const float>(b.data(), 3, 4), 0.0f,
                    MatrixView<float>(c.data(), 2, 4)),
               Error);
  EXPECT_THROW(gemm(pa, taken, 0.0f, MatrixView<float>(c.data(), 2, 4)), Error);
  EXPECT_EQ(c, c0);
  // The objects moved to still work.
  gemm(1.0f, Op::kNoTrans, MatrixView<const float>(a.data(), 2, 3), taken, 0.0f,
       MatrixView<float>(c.data(), 2, 4));
  EXPECT_EQ(c[0], 6.0f);
  gemm(kept, taken, 0.0f, MatrixView<float>(c.data(), 2, 4));
  EXPECT_EQ(c[7], 6.0f);
}

}  // namespace
}  // namespace invar::test
