#include "api/last_error.h"

namespace invar::api {
namespace {
// One thread-local object, so that each access costs one TLS lookup (clear_last_error runs on
// every call).
struct LastError {
  std::string message;
  const char* fixed = nullptr;  // set when the message itself could not be stored
};
thread_local LastError t_error;
}  // namespace

void set_last_error(std::string message) noexcept {
  LastError& e = t_error;
  e.message = std::move(message);
  e.fixed = nullptr;
}

void set_last_error(const char* function, const char* what) noexcept {
  try {
    std::string message(function);
    message += ": ";
    message += what;
    set_last_error(std::move(message));
  } catch (...) {
    t_error.fixed = "invar: out of memory while reporting an error";
  }
}

void clear_last_error() noexcept {
  LastError& e = t_error;
  e.message.clear();
  e.fixed = nullptr;
}

const char* last_error() noexcept {
  const LastError& e = t_error;
  return e.fixed != nullptr ? e.fixed : e.message.c_str();
}

}  // namespace invar::api
