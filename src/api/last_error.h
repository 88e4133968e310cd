// The per-thread message behind invar_last_error().
#ifndef INVAR_API_LAST_ERROR_H_
#define INVAR_API_LAST_ERROR_H_

#include <string>

namespace invar::api {

void set_last_error(std::string message) noexcept;  // moves; cannot allocate
// "<function>: <what>"; if memory for the message runs out, a fixed text instead.
void set_last_error(const char* function, const char* what) noexcept;
const char* last_error() noexcept;

namespace last_error_detail {
// The message, or nullptr: no failure since the last clear. A plain pointer initialized to a
// constant (constinit), so that a use in another translation unit reaches it directly, without
// the wrapper that asks whether a thread_local needs initializing. The text lives in
// last_error.cpp, touched only when a message is set.
extern constinit thread_local const char* t_message;
}  // namespace last_error_detail

// Every call clears the message: inline, a store through the thread pointer in the caller
// (with TLS descriptors, CMakeLists.txt, a few instructions).
inline void clear_last_error() noexcept { last_error_detail::t_message = nullptr; }

}  // namespace invar::api

#endif  // INVAR_API_LAST_ERROR_H_
