// Result checks (see check.h). Run once per row and shape, outside the timed region.
#include "check.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "testing/reference.h"

namespace invar_bench {
namespace {

std::string sci(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", v);
  return text;
}

}  // namespace

Check check_against_oracle(const float* c, const float* a, const float* b, int64_t m, int64_t n,
                           int64_t k) {
  std::vector<float> oracle(size_t(m * n));
  invar::test::reference_gemm<float>(false, false, m, n, k, 1.0f, a, k, b, n, 0.0f, oracle.data(),
                                     n);
  Check r = check_same_bits(c, oracle.data(), oracle.size(), "oracle");
  if (r.ok) r.text = "exact vs scalar oracle";
  return r;
}

Check check_same_bits(const float* c, const float* ref, size_t count, const std::string& ref_name) {
  if (std::memcmp(c, ref, count * sizeof(float)) == 0) return {true, "bits = " + ref_name};
  size_t first = 0;
  while (first < count && std::memcmp(c + first, ref + first, sizeof(float)) == 0) ++first;
  Check r = check_close(c, ref, count, ref_name);
  return {false, "FAIL: bits differ from " + ref_name + " at element " + std::to_string(first) +
                     " (" + r.text + ")"};
}

Check check_close(const float* c, const float* ref, size_t count, const std::string& ref_name) {
  double max_diff = 0, max_ref = 0;
  bool finite = true;
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(c[i])) finite = false;
    max_diff = std::fmax(max_diff, std::fabs(double(c[i]) - double(ref[i])));
    max_ref = std::fmax(max_ref, std::fabs(double(ref[i])));
  }
  const double rel = max_ref > 0 ? max_diff / max_ref : max_diff;
  const bool ok = finite && rel <= kLooseTolerance;
  return {ok, std::string(ok ? "" : "FAIL: ") + (finite ? "" : "non-finite, ") + "rel " + sci(rel) +
                  " vs " + ref_name};
}

}  // namespace invar_bench
