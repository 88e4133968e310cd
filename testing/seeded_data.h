// Deterministic test data: a counter-based generator (splitmix64) whose floats are built from
// integers, so the same seed gives the same bits on every compiler, library and machine.
#ifndef INVAR_TESTING_SEEDED_DATA_H_
#define INVAR_TESTING_SEEDED_DATA_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace invar::test {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
  // A float in [-1, 1) with a full 24-bit significand, so products and sums round.
  float symmetric() {
    const int32_t v = static_cast<int32_t>(next() >> 40) - (1 << 23);
    return static_cast<float>(v) * (1.0f / (1 << 23));
  }

 private:
  uint64_t state_;
};

inline std::vector<float> random_floats(std::size_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(count);
  for (float& x : v) x = rng.symmetric();
  return v;
}

inline bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

// Index of the first differing element, for failure messages; -1 when equal.
inline int64_t first_difference(const float* x, const float* y, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (std::memcmp(x + i, y + i, sizeof(float)) != 0) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace invar::test

#endif  // INVAR_TESTING_SEEDED_DATA_H_
