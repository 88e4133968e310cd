// The C API's boundary: no exception crosses it. guarded() runs an entry point's work in the
// library's floating-point mode and turns any exception into a status and a message.
#ifndef INVAR_API_C_GUARD_H_
#define INVAR_API_C_GUARD_H_

#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "api/last_error.h"
#include "invar/invar.h"
#include "invar/invar.hpp"
#include "runtime/fp_mode.h"

namespace invar::api {

inline invar_status to_status(Status s) { return static_cast<invar_status>(static_cast<int>(s)); }

// The message of an error raised below: most already start with the function's name.
inline void report(const char* function, const char* what) noexcept {
  const std::size_t n = std::strlen(function);
  if (std::strncmp(what, function, n) == 0 && what[n] == ':') {
    try {
      set_last_error(std::string(what));
    } catch (...) {
      set_last_error(function, "out of memory while reporting an error");
    }
  } else {
    set_last_error(function, what);
  }
}

// Runs fn, which returns a status, in the library's floating-point mode (every comparison of
// alpha or beta and every conversion happens there, whatever FTZ, DAZ or rounding the caller's
// thread has, and the caller's whole MXCSR, flags included, is restored afterwards); turns any
// exception into a status and a message.
template <class Fn>
invar_status guarded(const char* function, Fn&& fn) noexcept {
  runtime::FpModeGuard fp_mode;
  try {
    return fn();
  } catch (const Error& e) {
    report(function, e.what());
    return to_status(e.status());
  } catch (const std::bad_alloc&) {
    set_last_error(function, "out of memory");
    return INVAR_ENOMEM;
  } catch (const std::exception& e) {
    report(function, e.what());
    return INVAR_EINVAL;
  } catch (...) {
    set_last_error(function, "unexpected error");
    return INVAR_EINVAL;
  }
}

}  // namespace invar::api

#endif  // INVAR_API_C_GUARD_H_
