#include "runtime/env.h"

#include <cstdlib>

namespace invar::runtime {

std::optional<std::string> env_string(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

std::optional<int64_t> parse_positive_int(const char* name, const std::string& value, int64_t max,
                                          std::string* error) {
  // At most 18 digits, so the value fits in int64_t before the range check.
  int64_t x = 0;
  bool ok = !value.empty() && value.size() <= 18;
  for (std::size_t i = 0; ok && i < value.size(); ++i) {
    const char ch = value[i];
    ok = ch >= '0' && ch <= '9';
    x = x * 10 + (ch - '0');
  }
  if (ok && x >= 1 && x <= max) return x;
  *error = std::string(name) + "=\"" + value + "\" is not an integer between 1 and " +
           std::to_string(max);
  return std::nullopt;
}

std::optional<int64_t> parse_first_of_list(const char* name, const std::string& value, int64_t max,
                                           std::string* error) {
  std::string first = value.substr(0, value.find(','));
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!first.empty() && blank(first.back())) first.pop_back();
  std::size_t start = 0;
  while (start < first.size() && blank(first[start])) ++start;
  first.erase(0, start);
  if (const auto parsed = parse_positive_int(name, first, max, error)) return parsed;
  *error = std::string(name) + "=\"" + value +
           "\": its first value is not an integer between 1 and " + std::to_string(max);
  return std::nullopt;
}

}  // namespace invar::runtime
