#include "api/last_error.h"

namespace invar::api {

namespace last_error_detail {
constinit thread_local const char* t_message = nullptr;
}  // namespace last_error_detail

namespace {
// Every call clears the message, so that state is a plain pointer (last_error.h): a thread_local
// with a constructor or destructor (a std::string) is reached through a guard that initializes it
// on the thread's first use, on every access. The text lives in t_store, touched only when a
// message is set.
struct Store {
  std::string message;
};
thread_local Store t_store;
}  // namespace

using last_error_detail::t_message;

void set_last_error(std::string message) noexcept {
  Store& store = t_store;
  store.message = std::move(message);
  t_message = store.message.c_str();
}

void set_last_error(const char* function, const char* what) noexcept {
  try {
    std::string message(function);
    message += ": ";
    message += what;
    set_last_error(std::move(message));
  } catch (...) {
    t_message = "invar: out of memory while reporting an error";
  }
}

const char* last_error() noexcept {
  const char* message = t_message;
  return message != nullptr ? message : "";
}

}  // namespace invar::api
