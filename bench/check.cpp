// Result checks (see check.h). Run once per row and shape, outside the timed region.
#include "check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "testing/reference.h"

namespace invar_bench {
namespace {

std::string sci(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", v);
  return text;
}

std::vector<float> widen_bf16(const uint16_t* x, size_t count) {
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t bits = uint32_t(x[i]) << 16;
    std::memcpy(&out[i], &bits, sizeof bits);
  }
  return out;
}

}  // namespace

template <class T>
Check check_against_oracle(const T* c, const T* a, const T* b, bool trans_b, int64_t m, int64_t n,
                           int64_t k, int64_t rows) {
  rows = std::min(rows, m);
  std::vector<T> oracle(size_t(rows * n));
  invar::test::reference_gemm<T>(false, trans_b, rows, n, k, T(1), a, k, b, trans_b ? k : n, T(0),
                                 oracle.data(), n);
  Check r = check_same_bits(c, oracle.data(), oracle.size(), "oracle");
  if (r.ok)
    r.text = rows == m ? "exact vs scalar oracle"
                       : "exact vs scalar oracle on the first " + std::to_string(rows) + " rows";
  return r;
}

Check check_bf16_against_oracle(const float* c, const uint16_t* a, const uint16_t* b, int64_t m,
                                int64_t n, int64_t k, int64_t rows) {
  rows = std::min(rows, m);
  const auto wa = widen_bf16(a, size_t(rows * k));
  const auto wb = widen_bf16(b, size_t(k * n));
  Check r = check_against_oracle<float>(c, wa.data(), wb.data(), false, rows, n, k, rows);
  if (r.ok)
    r.text =
        (rows == m ? std::string("exact vs scalar f32 oracle")
                   : "exact vs scalar f32 oracle on the first " + std::to_string(rows) + " rows") +
        " of the widened inputs";
  return r;
}

Check check_u8s8_against_oracle(const int32_t* c, const uint8_t* a, const int8_t* b, int64_t m,
                                int64_t n, int64_t k, int64_t rows) {
  rows = std::min(rows, m);
  // Sums in uint32_t: two's complement wrapping, the contract's arithmetic modulo 2^32.
  std::vector<int32_t> oracle(size_t(rows * n));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j) {
      uint32_t sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += uint32_t(int32_t(a[i * k + p]) * int32_t(b[p * n + j]));
      oracle[size_t(i * n + j)] = int32_t(sum);
    }
  Check r = check_same_bits(c, oracle.data(), oracle.size(), "oracle");
  if (r.ok)
    r.text = rows == m ? "exact vs scalar oracle"
                       : "exact vs scalar oracle on the first " + std::to_string(rows) + " rows";
  return r;
}

template <class T>
Check check_same_bits(const T* c, const T* ref, size_t count, const std::string& ref_name) {
  if (std::memcmp(c, ref, count * sizeof(T)) == 0) return {true, "bits = " + ref_name};
  size_t first = 0;
  while (first < count && std::memcmp(c + first, ref + first, sizeof(T)) == 0) ++first;
  if constexpr (std::is_integral_v<T>) {
    // Integers have no tolerance: say how many differ, and the first pair.
    size_t differ = 0;
    for (size_t i = first; i < count; ++i) differ += c[i] != ref[i];
    return {false, "FAIL: bits differ from " + ref_name + " in " + std::to_string(differ) + " of " +
                       std::to_string(count) + " elements, first at element " +
                       std::to_string(first) + " (" + std::to_string(c[first]) + " vs " +
                       std::to_string(ref[first]) + ")"};
  } else {
    Check r = check_close(c, ref, count, ref_name);
    return {false, "FAIL: bits differ from " + ref_name + " at element " + std::to_string(first) +
                       " (" + r.text + ")"};
  }
}

template <class T>
Check check_close(const T* c, const T* ref, size_t count, const std::string& ref_name) {
  double max_diff = 0, max_ref = 0;
  bool finite = true;
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(c[i])) finite = false;
    max_diff = std::fmax(max_diff, std::fabs(double(c[i]) - double(ref[i])));
    max_ref = std::fmax(max_ref, std::fabs(double(ref[i])));
  }
  const double rel = max_ref > 0 ? max_diff / max_ref : max_diff;
  const bool ok =
      finite && rel <= (sizeof(T) == sizeof(double) ? kLooseToleranceF64 : kLooseTolerance);
  return {ok, std::string(ok ? "" : "FAIL: ") + (finite ? "" : "non-finite, ") + "rel " + sci(rel) +
                  " vs " + ref_name};
}

template Check check_against_oracle<float>(const float*, const float*, const float*, bool, int64_t,
                                           int64_t, int64_t, int64_t);
template Check check_against_oracle<double>(const double*, const double*, const double*, bool,
                                            int64_t, int64_t, int64_t, int64_t);
template Check check_same_bits<float>(const float*, const float*, size_t, const std::string&);
template Check check_same_bits<double>(const double*, const double*, size_t, const std::string&);
template Check check_same_bits<int32_t>(const int32_t*, const int32_t*, size_t, const std::string&);
template Check check_close<float>(const float*, const float*, size_t, const std::string&);
template Check check_close<double>(const double*, const double*, size_t, const std::string&);

}  // namespace invar_bench
