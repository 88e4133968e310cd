// The caller's floating-point environment. Every C entry point computes in the contract's mode
// whatever mode its caller is in, and gives the caller's state back exactly, flags included
// (MXCSR on x86-64; FPCR and FPSR on AArch64): for calls that succeed, calls that fail
// validation, and the special cases (alpha == 0, K == 0, beta == 0 over NaN, beta == 1, a
// subnormal alpha), on the direct and the packed paths, on one and two threads. Results are
// compared by memcmp with the reference computed in the contract's mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "invar/invar.h"
#include "support/any_reference.h"
#include "support/fp_state.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

// ---- one checked call ------------------------------------------------------------------------

struct Case {
  std::string name;
  const char* function = "";  // the name the failure message must start with
  invar_status expect = INVAR_OK;
  std::vector<unsigned char> c0;    // C before the call
  std::vector<unsigned char> want;  // C after it
  // The library calls, on a C (bytes of c0's size); only integer work besides them.
  std::function<invar_status(unsigned char* c)> call;
};

// The message of a failed call, taken before a later call (invar_packed_free) clears it.
std::string g_message;
invar_status noted(invar_status s) {
  if (s != INVAR_OK) g_message = invar_last_error();
  return s;
}

// Runs `call` in each caller mode; "" when every state, status and C is as expected.
std::string run_in_every_mode(const Case& k) {
  std::string out;
  for (const CallerMode& mode : caller_modes()) {
    std::vector<unsigned char> c = k.c0;
    g_message.clear();
    write_fp_state(mode.state);
    const invar_status s = k.call(c.data());
    const FpState after = read_fp_state();
    write_fp_state(kContractState);
    const std::string where = k.name + " in mode " + mode.name + ": ";
    if (after != mode.state)
      out += where + "state " + mode.state.str() + " came back as " + after.str() + "\n";
    const std::string msg = g_message.empty() ? invar_last_error() : g_message;
    if (s != k.expect)
      out += where + "status " + std::to_string(s) + ", expected " + std::to_string(k.expect) +
             " (" + msg + ")\n";
    if (c != k.want) out += where + "C is not the reference's\n";
    if (s != INVAR_OK && msg.rfind(std::string(k.function) + ": ", 0) != 0)
      out += where + "the message \"" + msg + "\" does not start with the function\n";
  }
  return out;
}

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// ---- operand data ----------------------------------------------------------------------------

template <class T>
std::vector<T> values(std::size_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<T> v(count);
  for (T& x : v) {
    if constexpr (std::is_same_v<T, invar_bf16>)
      x = numeric::round_to_bf16(rng.symmetric());
    else if constexpr (std::is_same_v<T, invar_f16>)
      x = numeric::round_to_f16(rng.symmetric());
    else if constexpr (std::is_integral_v<T>)
      x = static_cast<T>(rng.next());
    else
      x = rng.symmetric_value<T>();
  }
  return v;
}

template <class T>
T nan_or_garbage() {
  if constexpr (std::is_same_v<T, invar_bf16>)
    return invar_bf16{0x7FC1};
  else if constexpr (std::is_same_v<T, invar_f16>)
    return invar_f16{0x7E01};
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(0x5A5A5A5A);
  else
    return std::numeric_limits<T>::quiet_NaN();
}

// ---- the entry points by element types -------------------------------------------------------

#define FP_ENV_FAMILY(Name, In_, InB_, Out_, Acc_, plain_fn, strided_fn, batch_fn) \
  struct Name {                                                                    \
    using In = In_;                                                                \
    using InB = InB_;                                                              \
    using Out = Out_;                                                              \
    using Acc = Acc_;                                                              \
    static constexpr const char* kPlain = #plain_fn;                               \
    static constexpr const char* kStrided = #strided_fn;                           \
    static constexpr const char* kBatch = #batch_fn;                               \
    static constexpr auto plain = plain_fn;                                        \
    static constexpr auto strided = strided_fn;                                    \
    static constexpr auto batch = batch_fn;                                        \
  };
FP_ENV_FAMILY(F32, float, float, float, float, invar_sgemm, invar_sgemm_batch_strided,
              invar_sgemm_batch)
FP_ENV_FAMILY(F64, double, double, double, double, invar_dgemm, invar_dgemm_batch_strided,
              invar_dgemm_batch)
FP_ENV_FAMILY(Bf16F32, invar_bf16, invar_bf16, float, float, invar_gemm_bf16bf16f32,
              invar_gemm_bf16bf16f32_batch_strided, invar_gemm_bf16bf16f32_batch)
FP_ENV_FAMILY(Bf16Bf16, invar_bf16, invar_bf16, invar_bf16, float, invar_gemm_bf16bf16bf16,
              invar_gemm_bf16bf16bf16_batch_strided, invar_gemm_bf16bf16bf16_batch)
FP_ENV_FAMILY(F16F32, invar_f16, invar_f16, float, float, invar_gemm_f16f16f32,
              invar_gemm_f16f16f32_batch_strided, invar_gemm_f16f16f32_batch)
FP_ENV_FAMILY(F16F16, invar_f16, invar_f16, invar_f16, float, invar_gemm_f16f16f16,
              invar_gemm_f16f16f16_batch_strided, invar_gemm_f16f16f16_batch)
FP_ENV_FAMILY(S8, int8_t, int8_t, int32_t, int32_t, invar_gemm_s8s8s32,
              invar_gemm_s8s8s32_batch_strided, invar_gemm_s8s8s32_batch)
FP_ENV_FAMILY(U8, uint8_t, int8_t, int32_t, int32_t, invar_gemm_u8s8s32,
              invar_gemm_u8s8s32_batch_strided, invar_gemm_u8s8s32_batch)
#undef FP_ENV_FAMILY

// The special cases and a failure, as (alpha, beta, k) and a twist.
struct Scenario {
  const char* name;
  double alpha, beta;
  bool k_zero = false;
  bool nan_c = false;    // C full of NaN (garbage for int32)
  bool invalid = false;  // m = -1
};

template <class Acc>
std::vector<Scenario> scenarios() {
  const double subnormal = std::is_same_v<Acc, double> ? 0x1.4p-1070 : 0x1.4p-146;
  if constexpr (std::is_integral_v<Acc>) {
    return {{"ordinary", 3, -2},
            {"alpha 0", 0, 2},
            {"k 0", 5, 7, true},
            {"beta 0 over garbage", -1, 0, false, true},
            {"alpha 0 beta 1", 0, 1},
            {"alpha INT32_MIN", -2147483648.0, 1},
            {"m -1", 1, 0, false, false, true}};
  } else {
    return {{"ordinary", 0.75, -1.5},
            {"alpha 0", 0, 2},
            {"k 0", 0.5, 0.5, true},
            {"beta 0 over NaN", -1, 0, false, true},
            {"alpha 0 beta 1", 0, 1},
            {"subnormal alpha", subnormal, 0},
            {"subnormal alpha, beta 1", subnormal, 1},
            {"m -1", 1, 0, false, false, true}};
  }
}

struct Shape {
  int64_t m, n, k;
};

// Adds the plain, strided-batch and pointer-batch calls of one family, scenario and shape.
template <class F>
void add_family(std::vector<Case>& cases, const Scenario& sc, Shape shape, uint64_t seed) {
  using In = typename F::In;
  using InB = typename F::InB;
  using Out = typename F::Out;
  using Acc = typename F::Acc;
  const int64_t m = shape.m, n = shape.n, k = sc.k_zero ? 0 : shape.k;
  const int64_t batch = 3;
  const Acc alpha = static_cast<Acc>(sc.alpha), beta = static_cast<Acc>(sc.beta);
  // A is k x m (transposed), B is k x n, C is m x n with ldc = n + 3; batch entries contiguous.
  const int64_t lda = m + 1, ldb = n + 2, ldc = n + 3;
  const int64_t sa = std::max<int64_t>(k, 1) * lda, sb = std::max<int64_t>(k, 1) * ldb,
                scs = m * ldc;
  auto a = std::make_shared<std::vector<In>>(values<In>(sa * batch, seed));
  auto b = std::make_shared<std::vector<InB>>(values<InB>(sb * batch, seed + 1));
  std::vector<Out> c0 = values<Out>(scs * batch, seed + 2);
  if (sc.nan_c) c0.assign(c0.size(), nan_or_garbage<Out>());
  std::vector<Out> want = c0;
  if (!sc.invalid) {
    for (int64_t i = 0; i < batch; ++i)
      reference_any<In, InB, Out, Acc>(m, n, k, alpha, a->data() + i * sa, Strides{1, lda},
                                       b->data() + i * sb, Strides{ldb, 1}, beta,
                                       want.data() + i * scs, Strides{ldc, 1});
  }
  const int64_t mm = sc.invalid ? -1 : m;
  const std::string tag = std::string(sc.name) + " " + std::to_string(m) + "x" + std::to_string(n) +
                          "x" + std::to_string(k);
  const invar_status expect = sc.invalid ? INVAR_EINVAL : INVAR_OK;

  // The single call: entry 0 only.
  std::vector<Out> want1(c0.begin(), c0.begin() + scs), c01(c0.begin(), c0.begin() + scs);
  std::copy(want.begin(), want.begin() + scs, want1.begin());
  cases.push_back({std::string(F::kPlain) + " " + tag, F::kPlain, expect, bytes_of(c01),
                   bytes_of(want1), [=](unsigned char* c) {
                     return F::plain(INVAR_TRANS, INVAR_NO_TRANS, mm, n, k, alpha, a->data(), lda,
                                     b->data(), ldb, beta, reinterpret_cast<Out*>(c), ldc);
                   }});
  cases.push_back({std::string(F::kStrided) + " " + tag, F::kStrided, expect, bytes_of(c0),
                   bytes_of(want), [=](unsigned char* c) {
                     return F::strided(INVAR_TRANS, INVAR_NO_TRANS, mm, n, k, alpha, a->data(), lda,
                                       sa, b->data(), ldb, sb, beta, reinterpret_cast<Out*>(c), ldc,
                                       scs, batch);
                   }});
  cases.push_back({std::string(F::kBatch) + " " + tag, F::kBatch, expect, bytes_of(c0),
                   bytes_of(want), [=](unsigned char* c) {
                     const In* ap[3] = {a->data(), a->data() + sa, a->data() + 2 * sa};
                     const InB* bp[3] = {b->data(), b->data() + sb, b->data() + 2 * sb};
                     Out* base = reinterpret_cast<Out*>(c);
                     Out* cp[3] = {base, base + scs, base + 2 * scs};
                     return F::batch(INVAR_TRANS, INVAR_NO_TRANS, mm, n, k, alpha, ap, lda, bp, ldb,
                                     beta, cp, ldc, batch);
                   }});
}

// The epilogue and prepacked calls of f32 and f64.
template <class T>
void add_packed(std::vector<Case>& cases, const Scenario& sc, Shape shape, uint64_t seed) {
  constexpr bool d = std::is_same_v<T, double>;
  const int64_t m = shape.m, n = shape.n, k = sc.k_zero ? 0 : shape.k;
  const T alpha = static_cast<T>(sc.alpha), beta = static_cast<T>(sc.beta);
  const int64_t lda = k + 1, ldb = k + 2, ldc = n + 3;  // A m x k, B stored n x k (transposed)
  auto a = std::make_shared<std::vector<T>>(values<T>(m * lda, seed));
  auto b = std::make_shared<std::vector<T>>(values<T>(n * ldb, seed + 1));
  auto bias = std::make_shared<std::vector<T>>(values<T>(m, seed + 3));
  std::vector<T> c0 = values<T>(m * ldc, seed + 2);
  if (sc.nan_c) c0.assign(c0.size(), std::numeric_limits<T>::quiet_NaN());
  std::vector<T> want = c0, want_epilogue = c0;
  if (!sc.invalid) {
    reference_any<T, T, T, T>(m, n, k, alpha, a->data(), Strides{lda, 1}, b->data(),
                              Strides{1, ldb}, beta, want.data(), Strides{ldc, 1});
    reference_any<T, T, T, T>(m, n, k, alpha, a->data(), Strides{lda, 1}, b->data(),
                              Strides{1, ldb}, beta, want_epilogue.data(), Strides{ldc, 1},
                              INVAR_BIAS_ROW, bias->data(), true);
  }
  const int64_t mm = sc.invalid ? -1 : m;
  const invar_status expect = sc.invalid ? INVAR_EINVAL : INVAR_OK;
  const std::string tag = std::string(sc.name) + " " + std::to_string(m) + "x" + std::to_string(n) +
                          "x" + std::to_string(k);
  auto pack_b = [=](invar_packed** h) {
    if constexpr (d)
      return invar_dgemm_pack_b(INVAR_TRANS, k, n, b->data(), ldb, h);
    else
      return invar_sgemm_pack_b(INVAR_TRANS, k, n, b->data(), ldb, h);
  };
  auto pack_a = [=](invar_packed** h) {
    if constexpr (d)
      return invar_dgemm_pack_a(INVAR_NO_TRANS, mm, k, alpha, a->data(), lda, h);
    else
      return invar_sgemm_pack_a(INVAR_NO_TRANS, mm, k, alpha, a->data(), lda, h);
  };
  const char* f_epi = d ? "invar_dgemm_epilogue" : "invar_sgemm_epilogue";
  cases.push_back({std::string(f_epi) + " " + tag, f_epi, expect, bytes_of(c0),
                   bytes_of(want_epilogue), [=](unsigned char* c) {
                     T* cc = reinterpret_cast<T*>(c);
                     if constexpr (d)
                       return invar_dgemm_epilogue(INVAR_NO_TRANS, INVAR_TRANS, mm, n, k, alpha,
                                                   a->data(), lda, b->data(), ldb, beta, cc, ldc,
                                                   INVAR_BIAS_ROW, bias->data(), INVAR_ACT_RELU);
                     else
                       return invar_sgemm_epilogue(INVAR_NO_TRANS, INVAR_TRANS, mm, n, k, alpha,
                                                   a->data(), lda, b->data(), ldb, beta, cc, ldc,
                                                   INVAR_BIAS_ROW, bias->data(), INVAR_ACT_RELU);
                   }});
  const char* f_packed = d ? "invar_dgemm_packed" : "invar_sgemm_packed";
  cases.push_back({std::string(f_packed) + " " + tag, f_packed, expect, bytes_of(c0),
                   bytes_of(want), [=](unsigned char* c) {
                     invar_packed* h = nullptr;
                     invar_status s = noted(pack_b(&h));
                     if (s != INVAR_OK) return s;
                     T* cc = reinterpret_cast<T*>(c);
                     if constexpr (d)
                       s = noted(invar_dgemm_packed(INVAR_NO_TRANS, mm, alpha, a->data(), lda, h,
                                                    beta, cc, ldc));
                     else
                       s = noted(invar_sgemm_packed(INVAR_NO_TRANS, mm, alpha, a->data(), lda, h,
                                                    beta, cc, ldc));
                     invar_packed_free(h);
                     return s;
                   }});
  const char* f_pepi = d ? "invar_dgemm_packed_epilogue" : "invar_sgemm_packed_epilogue";
  cases.push_back({std::string(f_pepi) + " " + tag, f_pepi, expect, bytes_of(c0),
                   bytes_of(want_epilogue), [=](unsigned char* c) {
                     invar_packed* h = nullptr;
                     invar_status s = noted(pack_b(&h));
                     if (s != INVAR_OK) return s;
                     T* cc = reinterpret_cast<T*>(c);
                     if constexpr (d)
                       s = noted(invar_dgemm_packed_epilogue(INVAR_NO_TRANS, mm, alpha, a->data(),
                                                             lda, h, beta, cc, ldc, INVAR_BIAS_ROW,
                                                             bias->data(), INVAR_ACT_RELU));
                     else
                       s = noted(invar_sgemm_packed_epilogue(INVAR_NO_TRANS, mm, alpha, a->data(),
                                                             lda, h, beta, cc, ldc, INVAR_BIAS_ROW,
                                                             bias->data(), INVAR_ACT_RELU));
                     invar_packed_free(h);
                     return s;
                   }});
  // Prepacked A: a failure is pack_a's (m = -1).
  const char* f_pack_a = d ? "invar_dgemm_pack_a" : "invar_sgemm_pack_a";
  const char* f_pa = d ? "invar_dgemm_packed_a" : "invar_sgemm_packed_a";
  cases.push_back(
      {std::string(f_pa) + " " + tag, sc.invalid ? f_pack_a : f_pa, expect, bytes_of(c0),
       bytes_of(want), [=](unsigned char* c) {
         invar_packed* h = nullptr;
         invar_status s = noted(pack_a(&h));
         if (s != INVAR_OK) return s;
         T* cc = reinterpret_cast<T*>(c);
         if constexpr (d)
           s = noted(invar_dgemm_packed_a(h, INVAR_TRANS, n, b->data(), ldb, beta, cc, ldc));
         else
           s = noted(invar_sgemm_packed_a(h, INVAR_TRANS, n, b->data(), ldb, beta, cc, ldc));
         invar_packed_free(h);
         return s;
       }});
  const char* f_pab = d ? "invar_dgemm_packed_ab" : "invar_sgemm_packed_ab";
  cases.push_back({std::string(f_pab) + " " + tag, sc.invalid ? f_pack_a : f_pab, expect,
                   bytes_of(c0), bytes_of(want), [=](unsigned char* c) {
                     invar_packed* ha = nullptr;
                     invar_packed* hb = nullptr;
                     invar_status s = noted(pack_a(&ha));
                     if (s != INVAR_OK) return s;
                     s = noted(pack_b(&hb));
                     T* cc = reinterpret_cast<T*>(c);
                     if (s == INVAR_OK) {
                       if constexpr (d)
                         s = noted(invar_dgemm_packed_ab(ha, hb, beta, cc, ldc));
                       else
                         s = noted(invar_sgemm_packed_ab(ha, hb, beta, cc, ldc));
                     }
                     invar_packed_free(ha);
                     invar_packed_free(hb);
                     return s;
                   }});
}

// Prepacked int8 B.
template <class F>
void add_int8_packed(std::vector<Case>& cases, const Scenario& sc, Shape shape, uint64_t seed) {
  using In = typename F::In;
  constexpr bool u8 = std::is_same_v<In, uint8_t>;
  const int64_t m = shape.m, n = shape.n, k = sc.k_zero ? 0 : shape.k;
  const int32_t alpha = static_cast<int32_t>(sc.alpha), beta = static_cast<int32_t>(sc.beta);
  const int64_t lda = k + 1, ldb = n + 2, ldc = n + 3;
  auto a = std::make_shared<std::vector<In>>(values<In>(m * lda, seed));
  auto b = std::make_shared<std::vector<int8_t>>(
      values<int8_t>(std::max<int64_t>(k, 1) * ldb, seed + 1));
  std::vector<int32_t> c0 = values<int32_t>(m * ldc, seed + 2);
  if (sc.nan_c) c0.assign(c0.size(), 0x5A5A5A5A);
  std::vector<int32_t> want = c0;
  if (!sc.invalid)
    reference_any<In, int8_t, int32_t, int32_t>(m, n, k, alpha, a->data(), Strides{lda, 1},
                                                b->data(), Strides{ldb, 1}, beta, want.data(),
                                                Strides{ldc, 1});
  const int64_t mm = sc.invalid ? -1 : m;
  const char* f = u8 ? "invar_gemm_u8s8s32_packed" : "invar_gemm_s8s8s32_packed";
  cases.push_back({std::string(f) + " " + sc.name + " " + std::to_string(m) + "x" +
                       std::to_string(n) + "x" + std::to_string(k),
                   f, sc.invalid ? INVAR_EINVAL : INVAR_OK, bytes_of(c0), bytes_of(want),
                   [=](unsigned char* c) {
                     invar_packed* h = nullptr;
                     invar_status s =
                         u8 ? invar_gemm_u8s8s32_pack_b(INVAR_NO_TRANS, k, n, b->data(), ldb, &h)
                            : invar_gemm_s8s8s32_pack_b(INVAR_NO_TRANS, k, n, b->data(), ldb, &h);
                     if (s != INVAR_OK) return s;
                     int32_t* cc = reinterpret_cast<int32_t*>(c);
                     if constexpr (u8)
                       s = noted(invar_gemm_u8s8s32_packed(INVAR_NO_TRANS, mm, alpha, a->data(),
                                                           lda, h, beta, cc, ldc));
                     else
                       s = noted(invar_gemm_s8s8s32_packed(INVAR_NO_TRANS, mm, alpha, a->data(),
                                                           lda, h, beta, cc, ldc));
                     invar_packed_free(h);
                     return s;
                   }});
}

template <class F>
void add_all_scenarios(std::vector<Case>& cases, Shape shape, uint64_t seed) {
  for (const Scenario& sc : scenarios<typename F::Acc>()) {
    add_family<F>(cases, sc, shape, seed++);
    if constexpr (std::is_same_v<F, F32> || std::is_same_v<F, F64>)
      add_packed<typename F::In>(cases, sc, shape, seed++);
    if constexpr (std::is_same_v<F, S8> || std::is_same_v<F, U8>)
      add_int8_packed<F>(cases, sc, shape, seed++);
  }
}

std::vector<Case> every_entry_point(Shape shape) {
  std::vector<Case> cases;
  add_all_scenarios<F32>(cases, shape, 100);
  add_all_scenarios<F64>(cases, shape, 200);
  add_all_scenarios<Bf16F32>(cases, shape, 300);
  add_all_scenarios<Bf16Bf16>(cases, shape, 400);
  add_all_scenarios<F16F32>(cases, shape, 500);
  add_all_scenarios<F16F16>(cases, shape, 600);
  add_all_scenarios<S8>(cases, shape, 700);
  add_all_scenarios<U8>(cases, shape, 800);
  return cases;
}

class FpEnv : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!kHaveFpState) GTEST_SKIP() << "no floating-point state to check on this architecture";
    invar_set_num_threads(GetParam());
  }
  void TearDown() override { invar_set_num_threads(0); }
};

// Small products (the direct path) and ones large enough for packing, blocking and, on two
// threads, the pool.
TEST_P(FpEnv, EveryEntryPointGivesTheCallersStateBackOnTheDirectPath) {
  std::string failures;
  for (const Case& k : every_entry_point({3, 5, 4})) failures += run_in_every_mode(k);
  EXPECT_EQ(failures, "");
}

TEST_P(FpEnv, EveryEntryPointGivesTheCallersStateBackOnThePackedPath) {
  std::string failures;
  for (const Case& k : every_entry_point({29, 40, 33})) failures += run_in_every_mode(k);
  EXPECT_EQ(failures, "");
}

INSTANTIATE_TEST_SUITE_P(Threads, FpEnv, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return std::to_string(p.param) + "_threads";
                         });

TEST(FpEnvOther, TheOtherEntryPointsLeaveTheStateAlone) {
  if (!kHaveFpState) GTEST_SKIP();
  float b[4] = {1, 2, 3, 4};
  for (const CallerMode& mode : caller_modes()) {
    write_fp_state(mode.state);
    invar_packed* h = nullptr;
    const invar_status s = noted(invar_sgemm_pack_b(INVAR_NO_TRANS, 2, 2, b, 2, &h));
    const size_t bytes = invar_packed_bytes(h);
    invar_packed_free(h);
    invar_packed_free(nullptr);
    const int threads = invar_set_num_threads(2);
    const int refused = invar_set_num_threads(-1);
    invar_set_num_threads(0);
    const char* version = invar_version();
    const char* isa = invar_isa();
    const char* config = invar_get_config();
    const char* error = invar_last_error();
    const FpState after = read_fp_state();
    write_fp_state(kContractState);
    EXPECT_EQ(after, mode.state) << mode.name << ": " << after.str();
    EXPECT_EQ(s, INVAR_OK);
    EXPECT_GT(bytes, 0u);
    EXPECT_EQ(threads, 2);
    EXPECT_NE(refused, -1);
    EXPECT_NE(version, nullptr);
    EXPECT_NE(isa, nullptr);
    EXPECT_NE(config, nullptr);
    EXPECT_NE(error, nullptr);
  }
}

// ---- the reported cases ----------------------------------------------------------------------

#if defined(__x86_64__)
constexpr unsigned kDaz = 0x1FC0, kFtzDaz = 0x9FC0;

// With DAZ set by the caller, a subnormal alpha must be honoured (not taken for zero) by the
// 16-bit products and their strided batches, with the exact bits of the chain.
TEST(FpEnvReported, DazAndASubnormalAlphaOnSixteenBitProducts) {
  const float alpha = 0x1.4p-146f;
  const invar_bf16 ab[4] = {{0x3F80}, {0x4000}, {0x4040}, {0x4080}};  // 1, 2, 3, 4
  const invar_f16 af[4] = {{0x3C00}, {0x4000}, {0x4200}, {0x4400}};
  invar_bf16 cb[8], want_b[8];
  invar_f16 cf[8], want_f[8];
  for (int i = 0; i < 8; ++i)
    cb[i] = want_b[i] = invar_bf16{0x7FC0}, cf[i] = want_f[i] = invar_f16{0x7E00};
  for (int e = 0; e < 2; ++e) {
    reference_any<invar_bf16, invar_bf16, invar_bf16, float>(
        2, 2, 2, alpha, ab, Strides{2, 1}, ab, Strides{2, 1}, 0.0f, want_b + 4 * e, Strides{2, 1});
    reference_any<invar_f16, invar_f16, invar_f16, float>(
        2, 2, 2, alpha, af, Strides{2, 1}, af, Strides{2, 1}, 0.0f, want_f + 4 * e, Strides{2, 1});
  }
  _mm_setcsr(kDaz);
  const invar_status s1 = invar_gemm_bf16bf16bf16(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, alpha,
                                                  ab, 2, ab, 2, 0.0f, cb, 2);
  const invar_status s2 = invar_gemm_f16f16f16(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, alpha, af,
                                               2, af, 2, 0.0f, cf, 2);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(0x1F80);
  EXPECT_EQ(after, kDaz);
  ASSERT_EQ(s1, INVAR_OK) << invar_last_error();
  ASSERT_EQ(s2, INVAR_OK) << invar_last_error();
  EXPECT_EQ(std::memcmp(cb, want_b, 8), 0);
  EXPECT_EQ(std::memcmp(cf, want_f, 8), 0);
  _mm_setcsr(kDaz);
  const invar_status s3 = invar_gemm_bf16bf16bf16_batch_strided(
      INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, alpha, ab, 2, 0, ab, 2, 0, 0.0f, cb, 2, 4, 2);
  const invar_status s4 = invar_gemm_f16f16f16_batch_strided(
      INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, alpha, af, 2, 0, af, 2, 0, 0.0f, cf, 2, 4, 2);
  _mm_setcsr(0x1F80);
  ASSERT_EQ(s3, INVAR_OK) << invar_last_error();
  ASSERT_EQ(s4, INVAR_OK) << invar_last_error();
  EXPECT_EQ(std::memcmp(cb, want_b, sizeof cb), 0);
  EXPECT_EQ(std::memcmp(cf, want_f, sizeof cf), 0);
}

// NULL A and B with a subnormal alpha: the chain would read them, so the call is invalid, under
// DAZ too.
TEST(FpEnvReported, NullOperandsWithASubnormalAlphaAreRefused) {
  float c[4] = {1, 2, 3, 4};
  double cd[4] = {1, 2, 3, 4};
  for (unsigned mode : {0x1F80u, kDaz, kFtzDaz}) {
    _mm_setcsr(mode);
    const invar_status s = noted(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 0x1.4p-146f,
                                             nullptr, 2, nullptr, 2, 0.0f, c, 2));
    const invar_status sd = invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 0x1p-1070, nullptr,
                                        2, nullptr, 2, 0.0, cd, 2);
    const unsigned after = _mm_getcsr();
    _mm_setcsr(0x1F80);
    EXPECT_EQ(after, mode);
    EXPECT_EQ(s, INVAR_EINVAL);
    EXPECT_EQ(sd, INVAR_EINVAL);
    EXPECT_EQ(c[0], 1.0f);
    EXPECT_EQ(cd[3], 4.0);
  }
}

// alpha * A packed under FTZ/DAZ: 2^60 * 2^60 * 0x1.4p-146 is 0x1.4p-26 per term, two terms.
TEST(FpEnvReported, PackedAUnderFtzDazKeepsASubnormalAlpha) {
  const float alpha = 0x1.4p-146f, big = 0x1p60f;
  const float a[4] = {big, big, big, big}, b[4] = {big, big, big, big};
  float c[4] = {0, 0, 0, 0};
  _mm_setcsr(kFtzDaz);
  invar_packed* h = nullptr;
  const invar_status s1 = invar_sgemm_pack_a(INVAR_NO_TRANS, 2, 2, alpha, a, 2, &h);
  const invar_status s2 =
      s1 == INVAR_OK ? invar_sgemm_packed_a(h, INVAR_NO_TRANS, 2, b, 2, 0.0f, c, 2) : s1;
  invar_packed_free(h);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(0x1F80);
  EXPECT_EQ(after, kFtzDaz);
  ASSERT_EQ(s1, INVAR_OK) << invar_last_error();
  ASSERT_EQ(s2, INVAR_OK) << invar_last_error();
  for (float x : c) EXPECT_EQ(x, 0x1.4p-25f);
}

// The flags: a subnormal alpha must not leave the denormal flag; a parallel strided batch must not
// leave inexact.
TEST(FpEnvReported, NoFlagLeaksIntoTheCaller) {
  const int64_t m = 104, n = 174, k = 123, batch = 2;
  const auto a = random_floats(m * k * batch, 1), b = random_floats(k * n * batch, 2);
  std::vector<float> c(m * n * batch, 0.0f);
  float small_c[4] = {0, 0, 0, 0};
  invar_set_num_threads(2);
  _mm_setcsr(0x1F80);
  const invar_status s1 = invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 0x1.4p-146f,
                                      a.data(), 2, b.data(), 2, 0.0f, small_c, 2);
  const unsigned after1 = _mm_getcsr();
  _mm_setcsr(0x1F80);
  const invar_status s2 =
      invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 0.1f, a.data(), k, m * k,
                                b.data(), n, k * n, 0.5f, c.data(), n, m * n, batch);
  const unsigned after2 = _mm_getcsr();
  _mm_setcsr(0x1F80);
  invar_set_num_threads(0);
  EXPECT_EQ(s1, INVAR_OK);
  EXPECT_EQ(s2, INVAR_OK);
  EXPECT_EQ(after1, 0x1F80u) << std::hex << after1;
  EXPECT_EQ(after2, 0x1F80u) << std::hex << after2;
}
#endif

}  // namespace
}  // namespace invar::test
