// The per-thread message behind invar_last_error().
#ifndef INVAR_API_LAST_ERROR_H_
#define INVAR_API_LAST_ERROR_H_

#include <string>

namespace invar::api {

void set_last_error(std::string message);
void clear_last_error();
const char* last_error();

}  // namespace invar::api

#endif  // INVAR_API_LAST_ERROR_H_
