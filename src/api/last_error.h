// The per-thread message behind invar_last_error().
#ifndef INVAR_API_LAST_ERROR_H_
#define INVAR_API_LAST_ERROR_H_

#include <string>

namespace invar::api {

void set_last_error(std::string message) noexcept;  // moves; cannot allocate
// "<function>: <what>"; if memory for the message runs out, a fixed text instead.
void set_last_error(const char* function, const char* what) noexcept;
void clear_last_error() noexcept;
const char* last_error() noexcept;

}  // namespace invar::api

#endif  // INVAR_API_LAST_ERROR_H_
