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
  // A double in [-1, 1) with a full 53-bit significand.
  double symmetric_double() {
    const int64_t v = static_cast<int64_t>(next() >> 10) - (int64_t{1} << 53);
    return static_cast<double>(v) * (1.0 / static_cast<double>(int64_t{1} << 53));
  }
  template <class T>
  T symmetric_value() {
    if constexpr (sizeof(T) == sizeof(float))
      return symmetric();
    else
      return symmetric_double();
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

inline std::vector<double> random_doubles(std::size_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> v(count);
  for (double& x : v) x = rng.symmetric_double();
  return v;
}

// random_floats or random_doubles.
template <class T>
std::vector<T> random_values(std::size_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<T> v(count);
  for (T& x : v) x = rng.symmetric_value<T>();
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

// Index of the first differing element, for failure messages; -1 when equal.
template <class T>
int64_t first_difference(const T* x, const T* y, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (std::memcmp(x + i, y + i, sizeof(T)) != 0) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace invar::test

#endif  // INVAR_TESTING_SEEDED_DATA_H_
