// INVAR_* environment settings: strict parsers. A value that does not parse is an error with a
// message, never silently ignored; an unset or empty variable is "not set".
#ifndef INVAR_RUNTIME_ENV_H_
#define INVAR_RUNTIME_ENV_H_

#include <cstdint>
#include <optional>
#include <string>

namespace invar::runtime {

// The value of an environment variable, or nullopt when unset or empty.
std::optional<std::string> env_string(const char* name);

// Parses a positive decimal integer no larger than `max`. On failure returns nullopt and sets
// *error to a message naming `name` and the value.
std::optional<int64_t> parse_positive_int(const char* name, const std::string& value, int64_t max,
                                          std::string* error);

// The first value of a comma-separated list such as OMP_NUM_THREADS="4,2" (OpenMP's thread count
// per nesting level; invar's pool is one level, so it takes the outermost), under the rules of
// parse_positive_int. Blanks around the value are allowed, as OpenMP runtimes allow them.
std::optional<int64_t> parse_first_of_list(const char* name, const std::string& value, int64_t max,
                                           std::string* error);

}  // namespace invar::runtime

#endif  // INVAR_RUNTIME_ENV_H_
