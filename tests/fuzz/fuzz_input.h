// The byte format of gemm_fuzz's inputs, shared with tests/fuzz/make_corpus.py (which writes the
// checked-in corpus in it). Every field is read from the front; an input that ends early reads
// zeros. Bytes, in order:
//
//   entry        which entry point (kEntries of them, see gemm_fuzz.cpp), modulo kEntries
//   fp_mode      bits 0-1 rounding (0 nearest, 1 down, 2 up, 3 toward zero), bit 2 FTZ, bit 3 DAZ
//   fp_flags     bits 0-5: the sticky status flags set in MXCSR before the call
//   threads      1 + threads % 3
//   ta, tb       enum: see enum_value()
//   m, n, k      extent: see extent()
//   lda, ldb, ldc          leading dimension: see leading()
//   stride_a, stride_b, stride_c   batch stride: see stride()
//   batch        see batch_count()
//   alpha, beta  scalar: see scalar_f() / scalar_i()
//   bias, activation       enum (0..2 / 0..3 valid)
//   nulls        bit 0: a NULL, 1: b NULL, 2: c NULL, 3: bias values NULL, 4: one entry of a
//                pointer batch NULL, 5: a pointer array NULL
//   handle       packed entries: 0 the right handle, 1 a handle of the other side, 2 one of another
//                element type, 3 NULL, 4 not a handle (bytes of the caller), 5 the other K
//   data         three pairs (kind, seed) for A, B and C: kind 0 values in [-1, 1), 1 values of
//                the scalar table (subnormals, huge, NaN, ...), 2 random bits, 3 all 2^60
#ifndef INVAR_TESTS_FUZZ_FUZZ_INPUT_H_
#define INVAR_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace invar::fuzz {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

// Extents, leading dimensions and strides near the limits (tag bytes 0xD0..0xEF).
constexpr int64_t kSpecial[32] = {
    0,
    1,
    -1,
    kI64Min,
    kI64Max,
    kI64Max - 1,
    (int64_t{1} << 31) - 1,
    int64_t{1} << 31,
    int64_t{1} << 32,
    int64_t{1} << 40,
    int64_t{1} << 61,
    int64_t{1} << 62,
    (int64_t{1} << 62) + 1,
    kI64Max / 2 + 1,
    -(int64_t{1} << 40),
    -(int64_t{1} << 62),
    int64_t{1} << 30,
    int64_t{1} << 20,
    (int64_t{1} << 16) + 1,
    kI64Max / 3,
    (int64_t{1} << 47) - 1,
    int64_t{1} << 47,
    int64_t{1} << 48,
    int64_t{1} << 53,
    kI64Max / 4 + 1,
    int64_t{1} << 33,
    int64_t{1} << 24,
    int64_t{1} << 28,
    int64_t{1} << 59,
    int64_t{1} << 60,
    kI64Min + 1,
    -2,
};

class Reader {
 public:
  Reader(const uint8_t* data, std::size_t size) : p_(data), left_(size) {}
  uint8_t byte() {
    if (left_ == 0) return 0;
    --left_;
    return *p_++;
  }
  uint64_t bytes(int count) {  // little-endian
    uint64_t v = 0;
    for (int i = 0; i < count; ++i) v |= static_cast<uint64_t>(byte()) << (8 * i);
    return v;
  }
  const uint8_t* rest() const { return p_; }
  std::size_t rest_size() const { return left_; }

  // An enum value: 0 and 1 mostly, sometimes something no enumerator has.
  int enum_value() {
    const uint8_t t = byte();
    if (t < 0xF0) return t % 8 < 7 ? (t & 1) : 2 + (t >> 4) % 3;
    static constexpr int kOdd[16] = {
        -1, 2, 3, 4, 7, 100, -100, 0x7FFFFFFF, -0x7FFFFFFF - 1, 111, 112, 101, 102, 'N', 'T', 5};
    return kOdd[t - 0xF0];
  }
  // tag < 0xB0: tag % 20; 0xB0..0xCF: the next two bytes modulo 320; 0xD0..0xEF: kSpecial;
  // 0xF0..0xFF: the next eight bytes.
  int64_t extent() {
    const uint8_t t = byte();
    if (t < 0xB0) return t % 20;
    if (t < 0xD0) return static_cast<int64_t>(bytes(2) % 320);
    return special_or_raw(t);
  }
  // tag < 0xB0: the stored row length plus (tag % 12) - 1 (so sometimes one too small).
  int64_t leading(int64_t row_length) {
    const uint8_t t = byte();
    if (t < 0xB0) return add(row_length, (t % 12) - 1);
    if (t < 0xD0) return static_cast<int64_t>(bytes(2) % 320);
    return special_or_raw(t);
  }
  // tag < 0xB0: 0 (tag % 8 == 0) or one matrix's span plus (tag % 8) - 2, negated when
  // tag & 0x80 (so sometimes overlapping, sometimes walking backwards).
  int64_t stride(int64_t span) {
    const uint8_t t = byte();
    if (t < 0xB0) {
      if (t % 8 == 0) return 0;
      const int64_t s = add(span, (t % 8) - 2);
      return (t & 0x80) ? (s == kI64Min ? kI64Max : -s) : s;
    }
    if (t < 0xD0) return static_cast<int64_t>(bytes(2) % 320);
    return special_or_raw(t);
  }
  // tag < 0xF0: tag % 6; else kSpecial (negative and huge counts).
  int64_t batch_count() {
    const uint8_t t = byte();
    if (t < 0xF0) return t % 6;
    return kSpecial[(t - 0xF0) * 2 % 32];
  }
  // Floating-point scalars: tag < 0xE0 picks from kScalars; else raw bits.
  double scalar_f(bool is_double);
  int32_t scalar_i() {
    const uint8_t t = byte();
    static constexpr int32_t kInts[16] = {
        0,   1,     -1,     2,       3,          -7, 0x7FFFFFFF, -0x7FFFFFFF - 1,
        255, 65536, -65536, 1000003, 0x40000000, -2, 5,          127};
    if (t < 0xF0) return kInts[t % 16];
    return static_cast<int32_t>(bytes(4));
  }

 private:
  static int64_t add(int64_t x, int64_t y) {  // saturating
    int64_t r;
    if (__builtin_add_overflow(x, y, &r)) return x > 0 ? kI64Max : kI64Min;
    return r;
  }
  int64_t special_or_raw(uint8_t t) {
    if (t < 0xF0) return kSpecial[t - 0xD0];
    return static_cast<int64_t>(bytes(8));
  }
  const uint8_t* p_;
  std::size_t left_;
};

// Scalars for alpha, beta and the "table" data kind.
inline constexpr double kScalars[24] = {
    0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    3.7,
    -0.0,
    0x1.4p-146,       // an f32 subnormal (the alpha of the DAZ reports)
    0x1p-149,         // the smallest f32 subnormal
    0x1p-126,         // the smallest f32 normal
    0x1.fffffcp-127,  // the largest f32 subnormal
    0x1.fffffep127,   // FLT_MAX
    std::numeric_limits<double>::infinity(),
    -std::numeric_limits<double>::infinity(),
    std::numeric_limits<double>::quiet_NaN(),
    0x1p60,
    0x1p-60,
    0.1,
    -2.5,
    0x1.0000020000000p0,  // 1 + 2^-23
    3.0,
    0x1p-1074,  // the smallest f64 subnormal
    -0x1p-140,
    0x1.8p-1040,  // an f64 subnormal
};

inline double Reader::scalar_f(bool is_double) {
  const uint8_t t = byte();
  if (t < 0xE0) {
    const double v = kScalars[t % 24];
    return is_double ? v : static_cast<double>(static_cast<float>(v));
  }
  if (is_double) {
    const uint64_t u = bytes(8);
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
  }
  const uint32_t u = static_cast<uint32_t>(bytes(4));
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace invar::fuzz

#endif  // INVAR_TESTS_FUZZ_FUZZ_INPUT_H_
