// s8 x s8 and u8 x s8 -> s32: every micro-kernel alone on packed panels, then the whole engine
// through the C and C++ APIs, against a scalar reference that wraps modulo 2^32 in uint32_t.
// Compared with memcmp over all of C, padding columns included. Operands sit at the end of
// guarded buffers, so a read past them faults.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "api/context_impl.h"
#include "api/gemm_call.h"
#include "arch/cpu_features.h"
#include "invar/invar.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"
#include "support/guarded_buffer.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

using kernels::AccInit;

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
// 0, 1, -1, a large odd value, and the extremes (each wraps every nonzero sum it multiplies).
const int32_t kScalars[] = {0, 1, -1, 3, 1000003, kMin, kMax};

// C[i][j] <- alpha * sum_k op(A)[i][k] * op(B)[k][j] + beta * C[i][j], all modulo 2^32; C is not
// read when beta == 0.
template <class ASrc>
void reference(bool ta, bool tb, int64_t m, int64_t n, int64_t k, int32_t alpha, const ASrc* a,
               int64_t lda, const int8_t* b, int64_t ldb, int32_t beta, int32_t* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      uint32_t sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const int32_t x = ta ? a[p * lda + i] : a[i * lda + p];
        const int32_t y = tb ? b[j * ldb + p] : b[p * ldb + j];
        sum += static_cast<uint32_t>(x * y);
      }
      const uint32_t start =
          beta == 0 ? 0u : static_cast<uint32_t>(beta) * static_cast<uint32_t>(c[i * ldc + j]);
      c[i * ldc + j] = static_cast<int32_t>(start + static_cast<uint32_t>(alpha) * sum);
    }
  }
}

// How operands are filled: uniformly over the type, or only with its two extremes (so every
// product is +-16384, 32385, -32640 ... and long sums wrap).
enum class Fill { kUniform, kExtremes };

template <class T>
void fill(T* p, std::size_t n, uint64_t seed, Fill how) {
  Rng rng(seed);
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t r = rng.next();
    if (how == Fill::kUniform) {
      p[i] = static_cast<T>(static_cast<uint8_t>(r >> 56));
    } else {
      p[i] = (r >> 63) ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
    }
  }
}

struct Case {
  bool ta = false, tb = false;
  int64_t m = 1, n = 1, k = 1;
  int32_t alpha = 1, beta = 0;
  int64_t pad_a = 0, pad_b = 0, pad_c = 0;
  uint64_t seed = 1;
  Fill fill = Fill::kUniform;
  bool c_api = false;        // through invar_gemm_*s8s32 (default context) instead of invar::gemm
  bool prepacked_b = false;  // B packed ahead of time (invar_gemm_*s8s32_pack_b, pack_b_*s8s32)

  std::string describe() const {
    std::ostringstream os;
    os << (ta ? "T" : "N") << (tb ? "T" : "N") << " m=" << m << " n=" << n << " k=" << k
       << " alpha=" << alpha << " beta=" << beta << " pads=" << pad_a << "," << pad_b << ","
       << pad_c << " seed=" << seed << (fill == Fill::kExtremes ? " extremes" : "")
       << (c_api ? " C API" : "") << (prepacked_b ? " prepacked B" : "");
    return os.str();
  }
};

// "" when invar's C equals the reference's bit for bit, else the first difference.
template <class ASrc>
std::string check(const Case& g, Context& context) {
  const int64_t a_rows = g.ta ? g.k : g.m, a_cols = g.ta ? g.m : g.k;
  const int64_t b_rows = g.tb ? g.n : g.k, b_cols = g.tb ? g.k : g.n;
  const int64_t lda = a_cols + g.pad_a, ldb = b_cols + g.pad_b, ldc = g.n + g.pad_c;
  const std::size_t a_size = static_cast<std::size_t>(a_rows * lda);
  const std::size_t b_size = static_cast<std::size_t>(b_rows * ldb);
  const std::size_t c_size = static_cast<std::size_t>(g.m * ldc);
  GuardedBuffer<ASrc> a(a_size);
  GuardedBuffer<int8_t> b(b_size);
  GuardedBuffer<int32_t> c(c_size);
  fill(a.data(), a_size, g.seed * 3, g.fill);
  fill(b.data(), b_size, g.seed * 3 + 1, g.fill);
  Rng rng(g.seed * 3 + 2);
  for (std::size_t i = 0; i < c_size; ++i) c.data()[i] = static_cast<int32_t>(rng.next() >> 32);
  std::vector<int32_t> expected(c.data(), c.data() + c_size);
  reference(g.ta, g.tb, g.m, g.n, g.k, g.alpha, a.data(), lda, b.data(), ldb, g.beta,
            expected.data(), ldc);

  constexpr bool kSigned = std::is_same_v<ASrc, int8_t>;
  if (g.c_api && g.prepacked_b) {
    const invar_trans ta = g.ta ? INVAR_TRANS : INVAR_NO_TRANS;
    const invar_trans tb = g.tb ? INVAR_TRANS : INVAR_NO_TRANS;
    invar_packed* packed = nullptr;
    invar_status s = kSigned ? invar_gemm_s8s8s32_pack_b(tb, g.k, g.n, b.data(), ldb, &packed)
                             : invar_gemm_u8s8s32_pack_b(tb, g.k, g.n, b.data(), ldb, &packed);
    if (s != INVAR_OK)
      return g.describe() + ": packing, status " + std::to_string(s) + ", " + invar_last_error();
    if constexpr (kSigned)
      s = invar_gemm_s8s8s32_packed(ta, g.m, g.alpha, a.data(), lda, packed, g.beta, c.data(), ldc);
    else
      s = invar_gemm_u8s8s32_packed(ta, g.m, g.alpha, a.data(), lda, packed, g.beta, c.data(), ldc);
    invar_packed_free(packed);
    if (s != INVAR_OK)
      return g.describe() + ": status " + std::to_string(s) + ", " + invar_last_error();
  } else if (g.prepacked_b) {
    const MatrixView<const int8_t> b_view(b.data(), b_rows, b_cols, ldb);
    const Op op_b = g.tb ? Op::kTrans : Op::kNoTrans;
    const PackedB packed =
        kSigned ? pack_b_s8s8s32(op_b, b_view, context) : pack_b_u8s8s32(op_b, b_view, context);
    if (packed.k() != g.k || packed.n() != g.n) return g.describe() + ": packed B shape";
    gemm(g.alpha, g.ta ? Op::kTrans : Op::kNoTrans,
         MatrixView<const ASrc>(a.data(), a_rows, a_cols, lda), packed, g.beta,
         MatrixView<int32_t>(c.data(), g.m, g.n, ldc), context);
  } else if (g.c_api) {
    const invar_trans ta = g.ta ? INVAR_TRANS : INVAR_NO_TRANS;
    const invar_trans tb = g.tb ? INVAR_TRANS : INVAR_NO_TRANS;
    invar_status s;
    if constexpr (kSigned)
      s = invar_gemm_s8s8s32(ta, tb, g.m, g.n, g.k, g.alpha, a.data(), lda, b.data(), ldb, g.beta,
                             c.data(), ldc);
    else
      s = invar_gemm_u8s8s32(ta, tb, g.m, g.n, g.k, g.alpha, a.data(), lda, b.data(), ldb, g.beta,
                             c.data(), ldc);
    if (s != INVAR_OK)
      return g.describe() + ": status " + std::to_string(s) + ", " + invar_last_error();
  } else {
    gemm(g.alpha, g.ta ? Op::kTrans : Op::kNoTrans,
         MatrixView<const ASrc>(a.data(), a_rows, a_cols, lda), g.tb ? Op::kTrans : Op::kNoTrans,
         MatrixView<const int8_t>(b.data(), b_rows, b_cols, ldb), g.beta,
         MatrixView<int32_t>(c.data(), g.m, g.n, ldc), context);
  }
  if (std::memcmp(c.data(), expected.data(), c_size * sizeof(int32_t)) == 0) return "";
  std::size_t at = 0;
  while (c.data()[at] == expected[at]) ++at;
  std::ostringstream os;
  os << g.describe() << ": first difference at C[" << at / ldc << "][" << at % ldc << "]: got "
     << c.data()[at] << ", expected " << expected[at];
  return os.str();
}

template <class ASrc>
const kernels::GemmKernel& kernel_of(const kernels::KernelSet& set) {
  return kernels::kernel_for<ASrc>(set);
}

template <class ASrc>
const kernels::GemmKernel& kernel_of(Context& context) {
  return kernel_of<ASrc>(*context.impl().kernels);
}

template <class T>
class Int8 : public ::testing::Test {};
using ATypes = ::testing::Types<int8_t, uint8_t>;
TYPED_TEST_SUITE(Int8, ATypes);

// The three panel layouts of ukernel.h: int16 pairs (k_unit 2), byte quads (k_unit 4), and the
// AMX kernels' 64-step chunks of A over B's byte quads (k_unit 64).
bool is_quads(const kernels::GemmKernel& kern) { return kern.k_unit == 4; }
bool is_chunks(const kernels::GemmKernel& kern) { return kern.k_unit == 64; }

::testing::AssertionResult known_layout(const kernels::GemmKernel& kern) {
  const bool pairs = kern.k_unit == 2 && kern.a_packed_bytes == 2 && kern.b_packed_bytes == 2;
  const bool bytes = kern.a_packed_bytes == 1 && kern.b_packed_bytes == 1;
  if (pairs || (bytes && (is_quads(kern) || is_chunks(kern)))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << kern.name << ": neither int16 pairs, byte quads nor 64-step chunks";
}

// The kernels for A of type ASrc of every form of every path this CPU runs (the AVX-512 path's
// forms differ in their integer kernels too: VNNI, or AMX where the CPU has it), each once.
template <class ASrc>
std::vector<const kernels::GemmKernel*> runnable_kernels() {
  std::vector<const kernels::GemmKernel*> out;
  for (Isa isa : kernels::available_isas()) {
    for (const kernels::KernelSet* set : kernels::compiled_kernel_sets(isa)) {
      const kernels::GemmKernel& kern = kernel_of<ASrc>(*set);
      bool seen = false;
      for (const kernels::GemmKernel* k : out) seen = seen || std::string(k->name) == kern.name;
      if (!seen) out.push_back(&kern);
    }
  }
  return out;
}

// Whether this build has the AMX kernels and this CPU (and its OS) lets them run.
bool amx_runs() {
  return INVAR_TEST_HAVE_AMX && arch::cpu_features().amx_int8 && arch::request_tile_data();
}

// The AMX kernels ran when the CPU runs them (a lost path fails here, not silently).
void expect_amx_ran(const std::vector<std::string>& ran) {
  if (!amx_runs()) return;
  bool any = false;
  for (const std::string& name : ran) any = any || name.find("_amx_") != std::string::npos;
  EXPECT_TRUE(any) << "this CPU runs AMX-INT8 and no AMX kernel was tested";
}

// Each compiled kernel the CPU runs, alone: A and B packed by the kernel's own packers, a whole
// tile from every accumulator start, kc around the pair, quad and unroll boundaries (every tail
// length too), over a strided C, against the reference on the same operands.
TYPED_TEST(Int8, UkernelWholeTilesFromPackedPanels) {
  using ASrc = TypeParam;
  std::vector<std::string> ran;
  for (const kernels::GemmKernel* kp : runnable_kernels<ASrc>()) {
    const kernels::GemmKernel& kern = *kp;
    ASSERT_TRUE(known_layout(kern));
    const int64_t mr = kern.mr, nr = kern.nr, ldc = nr + 3;
    for (int64_t kc : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 33, 63, 64, 65, 67, 128, 190}) {
      for (Fill how : {Fill::kUniform, Fill::kExtremes}) {
        std::vector<ASrc> a(mr * kc);
        std::vector<int8_t> b(kc * nr);
        fill(a.data(), a.size(), 10 + kc, how);
        fill(b.data(), b.size(), 20 + kc, how);
        // Exactly the panels' bytes, a guard page right after: no load may reach past them.
        GuardedBuffer<char> a_panel(mr * kc * kern.a_packed_bytes),
            b_panel(kc * nr * kern.b_packed_bytes);
        const int32_t alpha_one = 1;
        kern.pack_a(mr, kc, a.data(), kc, 1, &alpha_one, a_panel.data());
        kern.pack_b(kc, nr, b.data(), nr, 1, b_panel.data());
        for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
          for (int32_t alpha : {1, -1, 1000003, kMin}) {
            const int32_t beta = init == AccInit::kZero ? 0 : init == AccInit::kLoad ? 1 : -7;
            std::vector<int32_t> c(mr * ldc);
            Rng rng(kc * 7 + static_cast<int>(init));
            for (int32_t& x : c) x = static_cast<int32_t>(rng.next() >> 32);
            std::vector<int32_t> expected = c;
            reference(false, false, mr, nr, kc, alpha, a.data(), kc, b.data(), nr, beta,
                      expected.data(), ldc);
            kern.ukernel(kc, a_panel.data(), b_panel.data(), c.data(), ldc, init, &alpha, &beta);
            ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(int32_t)), 0)
                << kern.name << " kc=" << kc << " init=" << static_cast<int>(init)
                << " alpha=" << alpha;
          }
        }
      }
    }
    ran.push_back(kern.name);
    if (kern.release != nullptr) kern.release();  // as the driver does after a thread's tiles
  }
  EXPECT_GE(ran.size(), 1u);
  expect_amx_ran(ran);
}

// A kernel's edge form alone, on every partial tile shape (rows 1..MR, cols 1..NR) from whole
// panels packed by the kernel's own packers: the block gets the reference's sums, and no other
// element of C is read or written (the block ends at a guard page when ldc == cols; three
// sentinel columns follow each row otherwise).
TYPED_TEST(Int8, EdgeKernelsTouchOnlyTheirBlock) {
  using ASrc = TypeParam;
  std::vector<std::string> ran;
  for (const kernels::GemmKernel* kp : runnable_kernels<ASrc>()) {
    const kernels::GemmKernel& kern = *kp;
    if (kern.ukernel_edge == nullptr) continue;
    ran.push_back(kern.name);
    const int64_t mr = kern.mr, nr = kern.nr;
    // Past a chunk of the AMX kernels too (64 steps), with and without a remainder.
    for (int64_t kc : {1, 6, 9, 64, 70}) {
      std::vector<ASrc> a(mr * kc);
      std::vector<int8_t> b(kc * nr);
      fill(a.data(), a.size(), 30 + kc, Fill::kExtremes);
      fill(b.data(), b.size(), 40 + kc, Fill::kUniform);
      std::vector<char> a_panel(mr * kc * kern.a_packed_bytes);
      std::vector<char> b_panel(kc * nr * kern.b_packed_bytes);
      const int32_t alpha_one = 1;
      kern.pack_a(mr, kc, a.data(), kc, 1, &alpha_one, a_panel.data());
      kern.pack_b(kc, nr, b.data(), nr, 1, b_panel.data());
      for (int64_t rows = 1; rows <= mr; ++rows) {
        for (int64_t cols = 1; cols <= nr; ++cols) {
          for (int64_t pad : {0, 3}) {
            for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
              const int32_t alpha = cols % 2 ? 1 : -3;
              const int32_t beta = init == AccInit::kZero ? 0 : init == AccInit::kLoad ? 1 : 5;
              const int64_t ldc = cols + pad;
              GuardedBuffer<int32_t> c(static_cast<std::size_t>(rows * ldc));
              Rng rng(rows * 100 + cols);
              for (std::size_t i = 0; i < c.size(); ++i)
                c.data()[i] = static_cast<int32_t>(rng.next() >> 32);
              std::vector<int32_t> expected(c.data(), c.data() + c.size());
              // Rows 0..rows-1 of A (row stride kc) times columns 0..cols-1 of B (row stride nr).
              reference(false, false, rows, cols, kc, alpha, a.data(), kc, b.data(), nr, beta,
                        expected.data(), ldc);
              kern.ukernel_edge(rows, cols, kc, a_panel.data(), b_panel.data(), c.data(), ldc, init,
                                &alpha, &beta);
              ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(int32_t)), 0)
                  << kern.name << " rows=" << rows << " cols=" << cols << " kc=" << kc
                  << " ldc=" << ldc << " init=" << static_cast<int>(init);
            }
          }
        }
      }
    }
    if (kern.release != nullptr) kern.release();
  }
  // The VNNI and AMX kernels have edge forms: a CPU with AVX-512 VNNI must have run them.
  if (kernels::cpu_supports(Isa::kAvx512) &&
      kernel_of<ASrc>(*kernels::compiled_kernel_set(Isa::kAvx512)).ukernel_edge != nullptr)
    EXPECT_FALSE(ran.empty());
  expect_amx_ran(ran);
}

// The packers' layout itself (kernels/ukernel.h), from row-major and transposed sources, with
// zero padding: int16 pairs, or byte quads (an s8 A stored as a + 128, its padding as 0 + 128).
TYPED_TEST(Int8, PackersWriteTheirPanelLayout) {
  using ASrc = TypeParam;
  for (const kernels::GemmKernel* kp : runnable_kernels<ASrc>()) {
    const kernels::GemmKernel& kern = *kp;
    ASSERT_TRUE(known_layout(kern));
    const bool chunks = is_chunks(kern);
    const bool quads = is_quads(kern) || chunks;  // B's layout; A's outside the chunks
    const int64_t mr = kern.mr, nr = kern.nr;
    // Element index of (lane, step p) in quad or pair panels of `width` lanes and kc steps.
    auto grouped_at = [quads](int64_t kc, int64_t width, int64_t l, int64_t p) {
      const int64_t group = quads ? 4 : 2;
      const int64_t grouped = kc / group * group;  // steps before the tail
      if (p >= grouped) return p * width + l;
      return (p / group) * group * width + group * l + p % group;
    };
    auto at = [&](int64_t kc, int64_t width, int64_t lane, int64_t p) {
      const int64_t base = lane / width * width * kc, l = lane % width;
      return base + grouped_at(kc, width, l, p);
    };
    // A's panels of the AMX kernels: 64-step chunks of rows, then the remainder in quads.
    auto a_at = [&](int64_t kc, int64_t lane, int64_t p) {
      if (!chunks) return at(kc, mr, lane, p);
      const int64_t base = lane / mr * mr * kc, l = lane % mr;
      const int64_t whole = kc / 64 * 64;
      if (p < whole) return base + p / 64 * 64 * mr + 64 * l + p % 64;
      return base + whole * mr + grouped_at(kc - whole, mr, l, p - whole);
    };
    // What the panel holds for a source value v (or padding) at step p: s8 A flipped (plus 128)
    // in quads, as it is in the chunks.
    auto a_expect = [&](int64_t kc, int64_t p, bool pad, ASrc v) -> int32_t {
      if (!quads) return pad ? 0 : int32_t{v};
      const bool flip = std::is_same_v<ASrc, int8_t> && !(chunks && p < kc / 64 * 64);
      const uint8_t bits = pad ? 0 : static_cast<uint8_t>(v);
      return flip ? bits ^ 0x80 : bits;
    };
    auto read = [quads](const std::vector<int16_t>& buf, int64_t index, bool a_side) -> int32_t {
      if (!quads) return buf[index];
      const auto* bytes = reinterpret_cast<const uint8_t*>(buf.data());
      return a_side ? int32_t{bytes[index]} : int32_t{static_cast<int8_t>(bytes[index])};
    };
    // Past 32 steps too: ISA packers of row-major operands move 8 quads of A at a time; past 64
    // and 128: the AMX kernels' chunks, with remainders of every kind.
    for (int64_t kc : {1, 2, 3, 4, 5, 6, 7, 9, 32, 35, 64, 70, 128, 131, 193}) {
      for (bool transposed : {false, true}) {
        const int64_t rows = mr + 1, cols = nr + 1;  // one whole panel and a padded one
        std::vector<ASrc> a(rows * kc);              // rows x kc, or kc x rows transposed
        std::vector<int8_t> b(kc * cols);            // kc x cols, or cols x kc transposed
        fill(a.data(), a.size(), 5 + kc, Fill::kUniform);
        fill(b.data(), b.size(), 6 + kc, Fill::kUniform);
        const int64_t a_rs = transposed ? 1 : kc, a_cs = transposed ? rows : 1;
        const int64_t b_rs = transposed ? 1 : cols, b_cs = transposed ? kc : 1;
        std::vector<int16_t> pa(2 * mr * kc, -1), pb(2 * nr * kc, -1);
        const int32_t alpha = 3;  // ignored by the integer packers
        kern.pack_a(rows, kc, a.data(), a_rs, a_cs, &alpha, pa.data());
        kern.pack_b(kc, cols, b.data(), b_rs, b_cs, pb.data());
        for (int64_t i = 0; i < 2 * mr; ++i)
          for (int64_t p = 0; p < kc; ++p)
            ASSERT_EQ(read(pa, a_at(kc, i, p), true),
                      a_expect(kc, p, i >= rows, i < rows ? a[i * a_rs + p * a_cs] : ASrc{0}))
                << kern.name << " A i=" << i << " p=" << p << " kc=" << kc
                << " transposed=" << transposed;
        for (int64_t j = 0; j < 2 * nr; ++j)
          for (int64_t p = 0; p < kc; ++p)
            ASSERT_EQ(read(pb, at(kc, nr, j, p), false),
                      j < cols ? int32_t{b[p * b_rs + j * b_cs]} : 0)
                << kern.name << " B j=" << j << " p=" << p << " kc=" << kc
                << " transposed=" << transposed;
      }
    }
  }
}

// Every partial tile shape, k around the pair and unroll boundaries, all transposes, padded views.
TYPED_TEST(Int8, TileEdgesAllTransposes) {
  using ASrc = TypeParam;
  Context context;
  const kernels::GemmKernel& kern = kernel_of<ASrc>(context);
  Case g;
  for (int t = 0; t < 4; ++t) {
    g.ta = t & 1;
    g.tb = t & 2;
    for (g.m = 1; g.m <= kern.mr + 1; ++g.m) {
      for (g.n = 1; g.n <= kern.nr + 1; ++g.n) {
        for (int64_t k : {1, 2, 3, 8, 9}) {
          g.k = k;
          g.alpha = (g.m + g.n) % 3 == 0 ? -1 : 1;
          g.beta = (g.m * g.n + k) % 3 == 0 ? 0 : (k % 2 ? 1 : -3);
          g.pad_a = g.m % 2;
          g.pad_b = g.n % 3;
          g.pad_c = 2;
          ++g.seed;
          const std::string error = check<ASrc>(g, context);
          ASSERT_TRUE(error.empty()) << kern.name << " " << error;
        }
      }
    }
  }
}

// alpha and beta over their special and extreme values, with extreme operands, in small blocks:
// several k-blocks of odd depth, so alpha meets partial sums stored in C between blocks.
TYPED_TEST(Int8, ScalarsAndExtremesAcrossKBlocks) {
  using ASrc = TypeParam;
  Context context;
  ContextOptions o;
  const kernels::GemmKernel& kern = kernel_of<ASrc>(context);
  o.mc = 2 * kern.mr;
  o.kc = 7;
  o.nc = 2 * kern.nr;
  Context blocked(o);
  Case g;
  g.m = 2 * kern.mr + 3;
  g.n = 2 * kern.nr + 5;
  for (Context* ctx : {&context, &blocked}) {
    for (int64_t k : {1, 6, 7, 8, 15, 29}) {
      for (int32_t alpha : kScalars) {
        for (int32_t beta : kScalars) {
          g.k = k;
          g.alpha = alpha;
          g.beta = beta;
          g.fill = (static_cast<uint32_t>(alpha) + static_cast<uint32_t>(beta) + k) % 2
                       ? Fill::kExtremes
                       : Fill::kUniform;
          g.ta = k % 2;
          g.tb = alpha % 2;
          ++g.seed;
          const std::string error = check<ASrc>(g, *ctx);
          ASSERT_TRUE(error.empty()) << error;
        }
      }
    }
  }
}

// Sums that wrap modulo 2^32 with alpha == 1: every product of extremes is at least 16129 in
// magnitude, so 2^32 / 16129 ~ 266300 steps wrap at least once. Few rows and columns keep it cheap.
TYPED_TEST(Int8, LongSumsWrap) {
  using ASrc = TypeParam;
  Context context;
  Case g;
  g.m = 3;
  g.n = 5;
  g.k = 300001;
  g.fill = Fill::kExtremes;
  for (int32_t beta : {0, 1}) {
    g.beta = beta;
    g.tb = beta;
    const std::string error = check<ASrc>(g, context);
    ASSERT_TRUE(error.empty()) << error;
  }
  // All operands at the extremes of one sign: the sum is exactly k * product, which must wrap.
  std::vector<ASrc> a(g.k, std::numeric_limits<ASrc>::min() == 0 ? ASrc(255) : ASrc(-128));
  std::vector<int8_t> b(g.k, -128);
  int32_t c = 0;
  gemm(1, Op::kNoTrans, MatrixView<const ASrc>(a.data(), 1, g.k), Op::kNoTrans,
       MatrixView<const int8_t>(b.data(), g.k, 1), 0, MatrixView<int32_t>(&c, 1, 1), context);
  const uint32_t product = static_cast<uint32_t>(int32_t{a[0]} * -128);
  EXPECT_EQ(c, static_cast<int32_t>(product * static_cast<uint32_t>(g.k)));
  EXPECT_NE(static_cast<int64_t>(c), static_cast<int64_t>(a[0]) * -128 * g.k);
}

// A context of `threads` threads, with small blocks (several row, column and k-blocks; kc is
// rounded up to the kernel's k unit) or the model's.
Context test_context(int threads, bool small_blocks) {
  ContextOptions o;
  o.num_threads = threads;
  if (small_blocks) {
    o.mc = 18;
    o.kc = 9;
    o.nc = 48;
  }
  return Context(o);
}

// 1, 2 and 3 threads, default and small blocks, through both APIs: the same bits.
TYPED_TEST(Int8, ThreadsAndBlockingsThroughBothApis) {
  using ASrc = TypeParam;
  for (int threads : {1, 2, 3}) {
    for (bool small_blocks : {false, true}) {
      Context context = test_context(threads, small_blocks);
      ASSERT_EQ(context.num_threads(), threads);
      Case g;
      for (int t = 0; t < 4; ++t) {
        g.ta = t & 1;
        g.tb = t & 2;
        g.m = 197 + t;
        g.n = 233 - t;
        g.k = 151 + t;
        g.alpha = t == 3 ? kMin : 1 + t;
        g.beta = t == 0 ? 0 : -t;
        g.pad_a = 1;
        g.pad_b = 2;
        g.pad_c = 3;
        g.fill = t % 2 ? Fill::kExtremes : Fill::kUniform;
        ++g.seed;
        const std::string error = check<ASrc>(g, context);
        ASSERT_TRUE(error.empty()) << threads << " threads: " << error;
      }
    }
  }
  Case g;
  g.m = 301;
  g.n = 77;
  g.k = 95;
  g.alpha = -5;
  g.beta = 7;
  g.c_api = true;
  invar_set_num_threads(2);
  const std::string error = check<ASrc>(g, Context::default_context());
  invar_set_num_threads(0);
  ASSERT_TRUE(error.empty()) << error;
}

// Over a prepacked B, every shape gives the unpacked call's bits: one row (the decode step) and
// more, K across the kernels' k units (pairs, quads, the AMX 64-step chunks) and past the AMX
// k-block (2048), several k-blocks and column blocks over the panels (small blocks), 1 to 3
// threads, both APIs.
TYPED_TEST(Int8, PrepackedBGivesTheUnpackedBits) {
  using ASrc = TypeParam;
  uint64_t seed = 500;
  for (int threads : {1, 2, 3}) {
    for (bool small_blocks : {false, true}) {
      Context context = test_context(threads, small_blocks);
      for (int64_t m : {1, 2, 13, 45}) {
        for (int64_t k : {1, 3, 4, 5, 63, 64, 65, 131}) {
          Case g;
          g.ta = seed % 2;
          g.tb = seed % 3 == 0;
          g.m = m;
          g.n = 1 + static_cast<int64_t>(seed % 97);
          g.k = k;
          g.alpha = seed % 5 == 0 ? kMin : 1 + static_cast<int32_t>(seed % 3);
          g.beta = seed % 4 == 0 ? 0 : -static_cast<int32_t>(seed % 4);
          g.pad_a = 1;
          g.pad_b = 2;
          g.pad_c = 3;
          g.fill = seed % 2 ? Fill::kExtremes : Fill::kUniform;
          g.prepacked_b = true;
          g.seed = seed++;
          const std::string error = check<ASrc>(g, context);
          ASSERT_TRUE(error.empty()) << threads << " threads: " << error;
        }
      }
    }
  }
  Case g;
  g.m = 37;
  g.n = 70;
  g.k = 2100;  // past the AMX kernels' 2048-step k-block
  g.alpha = -5;
  g.beta = 7;
  g.prepacked_b = true;
  g.c_api = true;
  for (int threads : {1, 2}) {
    invar_set_num_threads(threads);
    g.ta = threads == 2;
    g.tb = threads == 2;
    ++g.seed;
    const std::string error = check<ASrc>(g, Context::default_context());
    ASSERT_TRUE(error.empty()) << threads << " threads: " << error;
  }
  invar_set_num_threads(0);
}

// A packed int8 B belongs to the kernel of the A type it was packed for, and is no f32 B: any
// other use is refused with a message, C untouched; so is a null handle.
TEST(Int8Errors, PackedBOfAnotherKindIsRefused) {
  const std::vector<int8_t> b(6 * 5, 1), a8(4 * 6, 2);
  const std::vector<uint8_t> au(4 * 6, 3);
  const std::vector<float> af(4 * 6, 1.0f), bf(6 * 5, 1.0f);
  invar_packed *for_u8 = nullptr, *for_s8 = nullptr, *for_f32 = nullptr;
  ASSERT_EQ(invar_gemm_u8s8s32_pack_b(INVAR_NO_TRANS, 6, 5, b.data(), 5, &for_u8), INVAR_OK);
  ASSERT_EQ(invar_gemm_s8s8s32_pack_b(INVAR_NO_TRANS, 6, 5, b.data(), 5, &for_s8), INVAR_OK);
  ASSERT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 6, 5, bf.data(), 5, &for_f32), INVAR_OK);
  std::vector<int32_t> c(4 * 5, 9);
  std::vector<float> cf(4 * 5, 9.0f);
  EXPECT_EQ(invar_gemm_s8s8s32_packed(INVAR_NO_TRANS, 4, 1, a8.data(), 6, for_u8, 0, c.data(), 5),
            INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("invar_gemm_s8s8s32_packed: b was packed for"),
            std::string::npos)
      << invar_last_error();
  EXPECT_EQ(invar_gemm_u8s8s32_packed(INVAR_NO_TRANS, 4, 1, au.data(), 6, for_s8, 0, c.data(), 5),
            INVAR_EINVAL);
  EXPECT_EQ(invar_gemm_u8s8s32_packed(INVAR_NO_TRANS, 4, 1, au.data(), 6, for_f32, 0, c.data(), 5),
            INVAR_EINVAL);
  EXPECT_EQ(std::string(invar_last_error()),
            "invar_gemm_u8s8s32_packed: b was packed from f32 elements, but this product's B is "
            "int8");
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 4, 1.0f, af.data(), 6, for_u8, 0.0f, cf.data(), 5),
            INVAR_EINVAL);
  EXPECT_EQ(std::string(invar_last_error()),
            "invar_sgemm_packed: b was packed from int8 elements, but this product's B is f32");
  EXPECT_EQ(invar_gemm_u8s8s32_packed(INVAR_NO_TRANS, 4, 1, au.data(), 6, nullptr, 0, c.data(), 5),
            INVAR_EINVAL);
  EXPECT_EQ(std::string(invar_last_error()), "invar_gemm_u8s8s32_packed: b is NULL");
  EXPECT_EQ(invar_gemm_u8s8s32_packed(INVAR_NO_TRANS, 4, 1, au.data(), 5, for_u8, 0, c.data(), 5),
            INVAR_EINVAL);  // lda < k
  EXPECT_EQ(c, std::vector<int32_t>(4 * 5, 9));
  EXPECT_EQ(cf, std::vector<float>(4 * 5, 9.0f));
  EXPECT_THROW(gemm(1, Op::kNoTrans, MatrixView<const int8_t>(a8.data(), 4, 6),
                    pack_b_u8s8s32(Op::kNoTrans, MatrixView<const int8_t>(b.data(), 6, 5)), 0,
                    MatrixView<int32_t>(c.data(), 4, 5)),
               InvalidArgument);
  EXPECT_THROW(gemm(1, Op::kNoTrans, MatrixView<const uint8_t>(au.data(), 4, 5),
                    pack_b_u8s8s32(Op::kNoTrans, MatrixView<const int8_t>(b.data(), 6, 5)), 0,
                    MatrixView<int32_t>(c.data(), 4, 5)),
               InvalidArgument);  // op(A) is 4 x 5, the packed B 6 x 5
  EXPECT_EQ(c, std::vector<int32_t>(4 * 5, 9));
  // The right kind works.
  ASSERT_EQ(invar_gemm_u8s8s32_packed(INVAR_NO_TRANS, 4, 1, au.data(), 6, for_u8, 0, c.data(), 5),
            INVAR_OK);
  EXPECT_EQ(c, std::vector<int32_t>(4 * 5, 6 * 3 * 1));
  invar_packed_free(for_u8);
  invar_packed_free(for_s8);
  invar_packed_free(for_f32);
}

// alpha == 0 and K == 0 give beta * C without reading A or B (null here); beta == 0 writes 0 over
// any C; M == 0 or N == 0 touch nothing.
TYPED_TEST(Int8, SpecialCasesNeverReadOperands) {
  using ASrc = TypeParam;
  Context context;
  const ASrc* no_a = nullptr;
  const int8_t* no_b = nullptr;
  for (int32_t beta : kScalars) {
    for (int64_t k : {0, 5}) {
      const int32_t alpha = k == 0 ? 9 : 0;
      std::vector<int32_t> c = {kMin, -1, 0, 1, kMax, 12345, -777, 3};
      std::vector<int32_t> expected(c.size());
      for (std::size_t i = 0; i < c.size(); ++i)
        expected[i] =
            beta == 0
                ? 0
                : static_cast<int32_t>(static_cast<uint32_t>(beta) * static_cast<uint32_t>(c[i]));
      gemm(alpha, Op::kNoTrans, MatrixView<const ASrc>(no_a, 2, k, k), Op::kNoTrans,
           MatrixView<const int8_t>(no_b, k, 4, 4), beta, MatrixView<int32_t>(c.data(), 2, 4),
           context);
      EXPECT_EQ(c, expected) << "beta=" << beta << " k=" << k;
    }
  }
  int32_t untouched = 42;
  if constexpr (std::is_same_v<ASrc, int8_t>) {
    EXPECT_EQ(invar_gemm_s8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, 0, 3, 3, 1, nullptr, 3, nullptr, 3,
                                 0, &untouched, 3),
              INVAR_OK);
  } else {
    EXPECT_EQ(invar_gemm_u8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, 3, 0, 3, 1, nullptr, 3, nullptr, 0,
                                 0, nullptr, 0),
              INVAR_OK);
  }
  EXPECT_EQ(untouched, 42);
}

// Invalid arguments: INVAR_EINVAL naming the function and the argument, C untouched; the C++ API
// throws InvalidArgument.
TEST(Int8Errors, InvalidArgumentsLeaveCUntouched) {
  std::vector<int8_t> a(12, 1), b(12, 1);
  std::vector<uint8_t> ua(12, 1);
  std::vector<int32_t> c(16, 5);
  const std::vector<int32_t> before = c;
  // Each call's status, then its message (the next call clears it).
  auto expect_einval = [](invar_status status, const std::string& needle) {
    EXPECT_EQ(status, INVAR_EINVAL) << needle;
    EXPECT_NE(std::string(invar_last_error()).find(needle), std::string::npos)
        << "message: " << invar_last_error() << ", expected to contain: " << needle;
  };
  expect_einval(invar_gemm_s8s8s32(static_cast<invar_trans>(2), INVAR_NO_TRANS, 2, 2, 2, 1,
                                   a.data(), 2, b.data(), 2, 0, c.data(), 2),
                "invar_gemm_s8s8s32: ta = 2");
  expect_einval(invar_gemm_s8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, -1, 2, 2, 1, a.data(), 2,
                                   b.data(), 2, 0, c.data(), 2),
                "invar_gemm_s8s8s32: m = -1");
  expect_einval(invar_gemm_s8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 3, 1, a.data(), 2,
                                   b.data(), 2, 0, c.data(), 2),
                "lda = 2 is smaller than k = 3");
  expect_einval(invar_gemm_s8s8s32(INVAR_NO_TRANS, INVAR_TRANS, 2, 2, 3, 1, a.data(), 3, b.data(),
                                   2, 0, c.data(), 2),
                "ldb = 2 is smaller than k = 3");
  expect_einval(invar_gemm_s8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 3, 2, 1, a.data(), 2,
                                   b.data(), 3, 0, c.data(), 2),
                "ldc = 2 is smaller than n = 3");
  expect_einval(invar_gemm_s8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1, nullptr, 2, b.data(),
                                   2, 0, c.data(), 2),
                "invar_gemm_s8s8s32: a is NULL");
  expect_einval(invar_gemm_u8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1, ua.data(), 2,
                                   nullptr, 2, 0, c.data(), 2),
                "invar_gemm_u8s8s32: b is NULL");
  expect_einval(invar_gemm_u8s8s32(INVAR_NO_TRANS, INVAR_TRANS, 2, 2, 2, 1, ua.data(), 2, b.data(),
                                   2, 1, nullptr, 2),
                "invar_gemm_u8s8s32: c is NULL");
  expect_einval(invar_gemm_u8s8s32(INVAR_TRANS, static_cast<invar_trans>(-1), 2, 2, 2, 1, ua.data(),
                                   2, b.data(), 2, 1, c.data(), 2),
                "invar_gemm_u8s8s32: tb = -1");
  EXPECT_EQ(c, before);

  EXPECT_THROW(
      gemm(1, Op::kNoTrans, MatrixView<const int8_t>(a.data(), 2, 3), Op::kNoTrans,
           MatrixView<const int8_t>(b.data(), 2, 2), 0, MatrixView<int32_t>(c.data(), 2, 2)),
      InvalidArgument);
  EXPECT_THROW(
      gemm(1, Op::kTrans, MatrixView<const uint8_t>(ua.data(), 2, 3), Op::kNoTrans,
           MatrixView<const int8_t>(b.data(), 2, 2), 0, MatrixView<int32_t>(c.data(), 2, 2)),
      InvalidArgument);
  EXPECT_EQ(c, before);
}

// The engine's epilogues are floating-point code: an integer call that carries one is refused.
TEST(Int8Errors, NoEpilogueOnIntegerCalls) {
  int8_t a = 1, b = 1;
  int32_t c = 0;
  api::GemmCall<int8_t> call;
  call.function = "f";
  call.m = call.n = call.k = 1;
  call.alpha = 1;
  call.a = &a;
  call.lda = 1;
  call.b = &b;
  call.ldb = 1;
  call.c = &c;
  call.ldc = 1;
  EXPECT_EQ(api::validate(call), "");
  call.activation = 1;
  EXPECT_EQ(api::validate(call), "f: integer products take no bias or activation");
}

#if defined(__linux__) && defined(__x86_64__)
// Whether Linux has granted this process AMX tile data (state component 18) so far; -1 where the
// kernel does not answer (before Linux 5.16).
int tile_data_granted() {
  constexpr long kArchGetXcompPerm = 0x1022;
  uint64_t features = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &features) != 0) return -1;
  return static_cast<int>((features >> 18) & 1);
}

// The grant enlarges every later signal frame of the process, so only an integer product that
// runs the AMX kernels asks for it: not the detection, not float products, not an empty integer
// call. A fresh process ("threadsafe" death tests re-execute the test binary) runs f32 and f64
// products on one and two threads, then integer ones; exit code 0 when the grant came exactly
// with the first integer product that runs tiles.
TEST(Int8TilePermission, AskedAtTheFirstIntegerProductOnly) {
  if (tile_data_granted() < 0) GTEST_SKIP() << "Linux does not report its AMX grants";
  // Whether the default context's integer products would ask (the child runs these lines too, so
  // nothing here may ask).
  const bool asks = Context::default_context().impl().kernels->u8gemm.permitted != nullptr;
  const std::string style = GTEST_FLAG_GET(death_test_style);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        int code = 0;
        if (tile_data_granted() != 0) code |= 1;
        const std::vector<float> af(300 * 300, 0.5f);
        std::vector<float> cf(300 * 300);
        const std::vector<double> ad(64 * 64, 0.25);
        std::vector<double> cd(64 * 64);
        for (int threads : {1, 2}) {
          invar_set_num_threads(threads);
          invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 300, 300, 300, 1.0f, af.data(), 300,
                      af.data(), 300, 0.0f, cf.data(), 300);
          invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 64, 64, 64, 1.0, ad.data(), 64, ad.data(), 64,
                      0.0, cd.data(), 64);
        }
        int32_t c0 = 0;
        invar_gemm_u8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, 0, 0, 0, 1, nullptr, 1, nullptr, 1, 0,
                           &c0, 1);
        if (tile_data_granted() != 0) code |= 2;
        const std::vector<uint8_t> a(64 * 64, 3);
        const std::vector<int8_t> b(64 * 64, -2);
        std::vector<int32_t> c(64 * 64);
        invar_gemm_u8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, 64, 64, 64, 1, a.data(), 64, b.data(),
                           64, 0, c.data(), 64);
        // The grant as it stands, against the answer the product got (memoized; were the
        // question not asked yet, asking now would grant it too late for `granted`).
        const int granted = tile_data_granted();
        if (granted != static_cast<int>(asks && arch::request_tile_data())) code |= 4;
        if (c[0] != -384 || c[64 * 64 - 1] != -384) code |= 8;
        std::exit(code);
      },
      ::testing::ExitedWithCode(0), "");
  GTEST_FLAG_SET(death_test_style, style);
}
#endif

}  // namespace
}  // namespace invar::test
