#include "numeric/epilogue.h"

#include <cstring>
#include <limits>

namespace invar::numeric {
namespace {

template <class T>
struct Consts;

template <>
struct Consts<float> {
  using Bits = uint32_t;
  static constexpr int kDegree = 7;
  static constexpr int kMantissa = 23;
  static constexpr int kBias = 127;
  static constexpr float kMax = 88.73f;                // above: +inf
  static constexpr float kMin = -104.0f;               // below: +0
  static constexpr float kLn2Hi = 0.693145751953125f;  // 15 significant bits: n * kLn2Hi exact
  static constexpr float kLn2Lo = 1.428606765330187e-06f;
};

template <>
struct Consts<double> {
  using Bits = uint64_t;
  static constexpr int kDegree = 13;
  static constexpr int kMantissa = 52;
  static constexpr int kBias = 1023;
  static constexpr double kMax = 709.79;
  static constexpr double kMin = -746.0;
  static constexpr double kLn2Hi = 0.693147180369123816490;  // 32 significant bits
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;
};

// 2^n for n in the normal exponent range of T, built from its bits.
template <class T>
T two_pow(int n) {
  using C = Consts<T>;
  const typename C::Bits bits = static_cast<typename C::Bits>(n + C::kBias) << C::kMantissa;
  T x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

template <class T>
T exp_fixed(T x) {
  using C = Consts<T>;
  if (x != x) return x;
  if (x > C::kMax) return std::numeric_limits<T>::infinity();
  if (x < C::kMin) return T(0);
  const T t = x * T(1.4426950408889634074);  // x / ln 2
  const int n = static_cast<int>(t < 0 ? t - T(0.5) : t + T(0.5));
  const T r = (x - T(n) * C::kLn2Hi) - T(n) * C::kLn2Lo;
  // Taylor coefficients 1/i!, highest first.
  T p = T(1);
  for (int i = C::kDegree; i >= 1; --i) p = p * (r / T(i)) + T(1);
  // 2^n in two factors, so that n = 128 (f32) and results below the normal range come out
  // (the second multiply rounds into the subnormals).
  const int n1 = n / 2, n2 = n - n / 2;
  return (p * two_pow<T>(n1)) * two_pow<T>(n2);
}

template <class T>
T tanh_fixed(T y) {
  return T(1) - T(2) / (exp_fixed(T(2) * y) + T(1));
}

template <class T>
T activate_t(Activation a, T x) {
  switch (a) {
    case Activation::kNone: return x;
    case Activation::kRelu: return x < T(0) ? T(0) : x;
    case Activation::kSilu:
      if (x == -std::numeric_limits<T>::infinity()) return -T(0);  // -inf / inf would be NaN
      return x / (T(1) + exp_fixed(-x));
    case Activation::kGeluTanh: {
      const T u = T(0.7978845608028654) * (x + T(0.044715) * (x * x * x));
      const T one_plus = T(1) + tanh_fixed(u);
      if (one_plus == T(0)) return -T(0);  // x -> -inf: 0.5 * x * 0 would be NaN at -inf
      return T(0.5) * x * one_plus;
    }
  }
  return x;
}

template <class T>
void apply(const Epilogue& e, T* c, int64_t ldc, int64_t rows, int64_t cols, int64_t row0,
           int64_t col0) {
  const T* bias = static_cast<const T*>(e.bias_values);
  for (int64_t i = 0; i < rows; ++i) {
    T* row = c + i * ldc;
    if (e.bias == Bias::kPerRow) {
      const T b = bias[row0 + i];
      for (int64_t j = 0; j < cols; ++j) row[j] = row[j] + b;
    } else if (e.bias == Bias::kPerColumn) {
      const T* b = bias + col0;
      for (int64_t j = 0; j < cols; ++j) row[j] = row[j] + b[j];
    }
    switch (e.activation) {
      case Activation::kNone: break;
      case Activation::kRelu:
        for (int64_t j = 0; j < cols; ++j) row[j] = row[j] < T(0) ? T(0) : row[j];
        break;
      default:
        for (int64_t j = 0; j < cols; ++j) row[j] = activate_t(e.activation, row[j]);
        break;
    }
  }
}

}  // namespace

void apply_epilogue(const Epilogue& e, void* c, int64_t ldc, int64_t rows, int64_t cols,
                    int64_t row0, int64_t col0) {
  if (e.empty() || rows <= 0 || cols <= 0) return;
  if (e.elem_bytes == 8)
    apply(e, static_cast<double*>(c), ldc, rows, cols, row0, col0);
  else
    apply(e, static_cast<float*>(c), ldc, rows, cols, row0, col0);
}

float activate(Activation a, float x) { return activate_t(a, x); }
double activate(Activation a, double x) { return activate_t(a, x); }

}  // namespace invar::numeric
