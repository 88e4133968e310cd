// Every path against guard pages: each operand, C and the bias vector sits in its own buffer that
// ends right before an inaccessible page (then, in a second run, starts right after one), with
// tight leading dimensions, so a kernel, packer or edge tile that touches one element outside its
// operand faults. Shapes around the tile edges of the direct (few-row), packed and narrow paths,
// all element types, the batches and the prepacked operands; results compared by memcmp with the
// reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "invar/invar.h"
#include "support/any_reference.h"
#include "support/guarded_buffer.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

struct Shape {
  int64_t m, n, k;
};

// Few rows (the direct path; columns filling half a vector or masked in it), tile edges of every
// kernel (MR up to 32, NR up to 32), K around the unroll and block edges, and one product large
// enough for several blocks.
const Shape kShapes[] = {{1, 1, 1},   {1, 17, 5},  {2, 33, 3},   {3, 1, 64},   {4, 65, 9},
                         {5, 7, 1},   {6, 2, 5},   {4, 4, 4},    {7, 16, 17},  {13, 31, 2},
                         {17, 9, 33}, {33, 64, 7}, {37, 70, 45}, {65, 3, 129}, {96, 97, 300}};

template <class T>
void fill(T* p, std::size_t count, uint64_t seed) {
  Rng rng(seed);
  for (std::size_t i = 0; i < count; ++i) {
    if constexpr (std::is_same_v<T, invar_bf16>)
      p[i] = numeric::round_to_bf16(rng.symmetric());
    else if constexpr (std::is_same_v<T, invar_f16>)
      p[i] = numeric::round_to_f16(rng.symmetric());
    else if constexpr (std::is_integral_v<T>)
      p[i] = static_cast<T>(rng.next());
    else
      p[i] = rng.symmetric_value<T>();
  }
}

// The operands of one product (or `batch` contiguous products), each in a guarded buffer.
template <class In, class InB, class Out>
struct Guarded {
  int64_t lda, ldb, ldc, sa, sb, sc;
  GuardedBuffer<In> a;
  GuardedBuffer<InB> b;
  GuardedBuffer<Out> c;
  std::vector<Out> want;
  static int64_t rows_a(bool ta, Shape s) { return ta ? s.k : s.m; }
  static int64_t cols_a(bool ta, Shape s) { return ta ? s.m : s.k; }
  static int64_t rows_b(bool tb, Shape s) { return tb ? s.n : s.k; }
  static int64_t cols_b(bool tb, Shape s) { return tb ? s.k : s.n; }
  Guarded(bool ta, bool tb, Shape s, int64_t batch, GuardAt at, uint64_t seed)
      : lda(cols_a(ta, s)),
        ldb(cols_b(tb, s)),
        ldc(s.n),
        sa(rows_a(ta, s) * lda),
        sb(rows_b(tb, s) * ldb),
        sc(s.m * ldc),
        a(static_cast<std::size_t>(sa * batch), at),
        b(static_cast<std::size_t>(sb * batch), at),
        c(static_cast<std::size_t>(sc * batch), at) {
    fill(a.data(), a.size(), seed);
    fill(b.data(), b.size(), seed + 1);
    fill(c.data(), c.size(), seed + 2);
    want.assign(c.data(), c.data() + c.size());
  }
  template <class Acc>
  void expect(bool ta, bool tb, Shape s, int64_t batch, Acc alpha, Acc beta, int bias = 0,
              const Acc* bias_values = nullptr, bool relu = false) {
    for (int64_t i = 0; i < batch; ++i)
      reference_any<In, InB, Out, Acc>(
          s.m, s.n, s.k, alpha, a.data() + i * sa, row_major(ta, lda), b.data() + i * sb,
          row_major(tb, ldb), beta, want.data() + i * sc, Strides{ldc, 1}, bias, bias_values, relu);
  }
  bool matches() { return std::memcmp(c.data(), want.data(), want.size() * sizeof(Out)) == 0; }
};

std::string where(const char* what, bool ta, bool tb, Shape s, GuardAt at) {
  return std::string(what) + (ta ? " T" : " N") + (tb ? "T" : "N") + " " + std::to_string(s.m) +
         "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
         (at == GuardAt::kEnd ? " (guard after)" : " (guard before)");
}

invar_trans tr(bool t) { return t ? INVAR_TRANS : INVAR_NO_TRANS; }

template <class In, class InB, class Out, class Acc, class Call>
void check_all(const char* what, Acc alpha, Acc beta, Call call) {
  for (GuardAt at : {GuardAt::kEnd, GuardAt::kStart}) {
    for (const Shape& s : kShapes) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        Guarded<In, InB, Out> g(ta, tb, s, 1, at,
                                static_cast<uint64_t>(s.m * 131 + s.n * 7 + s.k + t));
        g.template expect<Acc>(ta, tb, s, 1, alpha, beta);
        ASSERT_EQ(call(ta, tb, s, g), INVAR_OK)
            << where(what, ta, tb, s, at) << ": " << invar_last_error();
        ASSERT_TRUE(g.matches()) << where(what, ta, tb, s, at);
      }
    }
  }
}

TEST(Guard, F32AndF64) {
  check_all<float, float, float, float>(
      "sgemm", 0.75f, -1.5f, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_sgemm(tr(ta), tr(tb), s.m, s.n, s.k, 0.75f, g.a.data(), g.lda, g.b.data(),
                           g.ldb, -1.5f, g.c.data(), g.ldc);
      });
  check_all<float, float, float, float>(
      "sgemm beta 0", 1.0f, 0.0f, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_sgemm(tr(ta), tr(tb), s.m, s.n, s.k, 1.0f, g.a.data(), g.lda, g.b.data(),
                           g.ldb, 0.0f, g.c.data(), g.ldc);
      });
  check_all<double, double, double, double>(
      "dgemm", 0.5, 2.0, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_dgemm(tr(ta), tr(tb), s.m, s.n, s.k, 0.5, g.a.data(), g.lda, g.b.data(), g.ldb,
                           2.0, g.c.data(), g.ldc);
      });
  check_all<double, double, double, double>(
      "dgemm beta 0", 1.0, 0.0, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_dgemm(tr(ta), tr(tb), s.m, s.n, s.k, 1.0, g.a.data(), g.lda, g.b.data(), g.ldb,
                           0.0, g.c.data(), g.ldc);
      });
}

TEST(Guard, SixteenBitInputs) {
  check_all<invar_bf16, invar_bf16, float, float>(
      "bf16bf16f32", 0.75f, 0.5f, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_gemm_bf16bf16f32(tr(ta), tr(tb), s.m, s.n, s.k, 0.75f, g.a.data(), g.lda,
                                      g.b.data(), g.ldb, 0.5f, g.c.data(), g.ldc);
      });
  check_all<invar_bf16, invar_bf16, invar_bf16, float>(
      "bf16bf16bf16", 1.0f, -2.0f, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_gemm_bf16bf16bf16(tr(ta), tr(tb), s.m, s.n, s.k, 1.0f, g.a.data(), g.lda,
                                       g.b.data(), g.ldb, -2.0f, g.c.data(), g.ldc);
      });
  check_all<invar_f16, invar_f16, float, float>(
      "f16f16f32", 3.0f, 0.0f, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_gemm_f16f16f32(tr(ta), tr(tb), s.m, s.n, s.k, 3.0f, g.a.data(), g.lda,
                                    g.b.data(), g.ldb, 0.0f, g.c.data(), g.ldc);
      });
  check_all<invar_f16, invar_f16, invar_f16, float>(
      "f16f16f16", 0.5f, 1.0f, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_gemm_f16f16f16(tr(ta), tr(tb), s.m, s.n, s.k, 0.5f, g.a.data(), g.lda,
                                    g.b.data(), g.ldb, 1.0f, g.c.data(), g.ldc);
      });
}

TEST(Guard, Int8) {
  check_all<int8_t, int8_t, int32_t, int32_t>(
      "s8s8s32", 3, -2, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_gemm_s8s8s32(tr(ta), tr(tb), s.m, s.n, s.k, 3, g.a.data(), g.lda, g.b.data(),
                                  g.ldb, -2, g.c.data(), g.ldc);
      });
  check_all<uint8_t, int8_t, int32_t, int32_t>(
      "u8s8s32", 1, 0, [](bool ta, bool tb, Shape s, auto& g) {
        return invar_gemm_u8s8s32(tr(ta), tr(tb), s.m, s.n, s.k, 1, g.a.data(), g.lda, g.b.data(),
                                  g.ldb, 0, g.c.data(), g.ldc);
      });
}

TEST(Guard, Batches) {
  const int64_t batch = 3;
  for (GuardAt at : {GuardAt::kEnd, GuardAt::kStart}) {
    for (const Shape& s : kShapes) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        Guarded<float, float, float> g(ta, tb, s, batch, at,
                                       static_cast<uint64_t>(s.m + 3 * s.n + t));
        g.expect<float>(ta, tb, s, batch, 0.75f, 0.5f);
        ASSERT_EQ(invar_sgemm_batch_strided(tr(ta), tr(tb), s.m, s.n, s.k, 0.75f, g.a.data(), g.lda,
                                            g.sa, g.b.data(), g.ldb, g.sb, 0.5f, g.c.data(), g.ldc,
                                            g.sc, batch),
                  INVAR_OK)
            << where("sgemm_batch_strided", ta, tb, s, at) << ": " << invar_last_error();
        ASSERT_TRUE(g.matches()) << where("sgemm_batch_strided", ta, tb, s, at);

        Guarded<invar_bf16, invar_bf16, invar_bf16> h(ta, tb, s, batch, at,
                                                      static_cast<uint64_t>(s.k + t));
        h.expect<float>(ta, tb, s, batch, 1.0f, 0.0f);
        const invar_bf16* ap[3] = {h.a.data(), h.a.data() + h.sa, h.a.data() + 2 * h.sa};
        const invar_bf16* bp[3] = {h.b.data(), h.b.data() + h.sb, h.b.data() + 2 * h.sb};
        invar_bf16* cp[3] = {h.c.data(), h.c.data() + h.sc, h.c.data() + 2 * h.sc};
        ASSERT_EQ(invar_gemm_bf16bf16bf16_batch(tr(ta), tr(tb), s.m, s.n, s.k, 1.0f, ap, h.lda, bp,
                                                h.ldb, 0.0f, cp, h.ldc, batch),
                  INVAR_OK)
            << where("bf16bf16bf16_batch", ta, tb, s, at) << ": " << invar_last_error();
        ASSERT_TRUE(h.matches()) << where("bf16bf16bf16_batch", ta, tb, s, at);
      }
    }
  }
}

TEST(Guard, PackedOperandsAndEpilogues) {
  for (GuardAt at : {GuardAt::kEnd, GuardAt::kStart}) {
    for (const Shape& s : kShapes) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        const std::string w = where("packed", ta, tb, s, at);
        GuardedBuffer<float> bias(static_cast<std::size_t>(s.m), at);
        fill(bias.data(), bias.size(), 99);
        // Prepacked B, with the epilogue.
        {
          Guarded<float, float, float> g(ta, tb, s, 1, at, 7 + t);
          g.expect<float>(ta, tb, s, 1, 0.5f, 1.0f, INVAR_BIAS_ROW, bias.data(), true);
          invar_packed* pb = nullptr;
          ASSERT_EQ(invar_sgemm_pack_b(tr(tb), s.k, s.n, g.b.data(), g.ldb, &pb), INVAR_OK) << w;
          ASSERT_EQ(invar_sgemm_packed_epilogue(tr(ta), s.m, 0.5f, g.a.data(), g.lda, pb, 1.0f,
                                                g.c.data(), g.ldc, INVAR_BIAS_ROW, bias.data(),
                                                INVAR_ACT_RELU),
                    INVAR_OK)
              << w << ": " << invar_last_error();
          invar_packed_free(pb);
          ASSERT_TRUE(g.matches()) << w << " B";
        }
        // Prepacked A, then A and B.
        {
          Guarded<float, float, float> g(ta, tb, s, 1, at, 11 + t);
          g.expect<float>(ta, tb, s, 1, -0.75f, 0.0f);
          invar_packed *pa = nullptr, *pb = nullptr;
          ASSERT_EQ(invar_sgemm_pack_a(tr(ta), s.m, s.k, -0.75f, g.a.data(), g.lda, &pa), INVAR_OK)
              << w;
          ASSERT_EQ(
              invar_sgemm_packed_a(pa, tr(tb), s.n, g.b.data(), g.ldb, 0.0f, g.c.data(), g.ldc),
              INVAR_OK)
              << w << ": " << invar_last_error();
          ASSERT_TRUE(g.matches()) << w << " A";
          ASSERT_EQ(invar_sgemm_pack_b(tr(tb), s.k, s.n, g.b.data(), g.ldb, &pb), INVAR_OK) << w;
          std::memset(g.c.data(), 0x7F, g.c.size() * sizeof(float));  // beta == 0 never reads C
          ASSERT_EQ(invar_sgemm_packed_ab(pa, pb, 0.0f, g.c.data(), g.ldc), INVAR_OK) << w;
          ASSERT_TRUE(g.matches()) << w << " A and B";
          invar_packed_free(pa);
          invar_packed_free(pb);
        }
        // Prepacked int8 B.
        {
          Guarded<uint8_t, int8_t, int32_t> g(ta, tb, s, 1, at, 13 + t);
          g.expect<int32_t>(ta, tb, s, 1, 2, 1);
          invar_packed* pb = nullptr;
          ASSERT_EQ(invar_gemm_u8s8s32_pack_b(tr(tb), s.k, s.n, g.b.data(), g.ldb, &pb), INVAR_OK)
              << w;
          ASSERT_EQ(invar_gemm_u8s8s32_packed(tr(ta), s.m, 2, g.a.data(), g.lda, pb, 1, g.c.data(),
                                              g.ldc),
                    INVAR_OK)
              << w << ": " << invar_last_error();
          invar_packed_free(pb);
          ASSERT_TRUE(g.matches()) << w << " int8 B";
        }
      }
    }
  }
}

}  // namespace
}  // namespace invar::test
