#include "api/last_error.h"

namespace invar::api {
namespace {
thread_local std::string t_last_error;
thread_local const char* t_fixed = nullptr;  // set when the message itself could not be stored
}  // namespace

void set_last_error(std::string message) noexcept {
  t_last_error = std::move(message);
  t_fixed = nullptr;
}

void set_last_error(const char* function, const char* what) noexcept {
  try {
    std::string message(function);
    message += ": ";
    message += what;
    set_last_error(std::move(message));
  } catch (...) {
    t_fixed = "invar: out of memory while reporting an error";
  }
}

void clear_last_error() noexcept {
  t_last_error.clear();
  t_fixed = nullptr;
}

const char* last_error() noexcept { return t_fixed != nullptr ? t_fixed : t_last_error.c_str(); }

}  // namespace invar::api
