// One GEMM call as the API layer sees it, before and after validation. The C and C++ front ends
// both describe their arguments as a GemmCall, so validation and the special cases of the
// contract (empty products, alpha == 0, K == 0, beta == 0 or 1) live in one place.
#ifndef INVAR_API_GEMM_CALL_H_
#define INVAR_API_GEMM_CALL_H_

#include <cstdint>
#include <string>

#include "invar/invar.hpp"

namespace invar::api {

template <class T>
struct GemmCall {
  const char* function = "";  // named in error messages
  int trans_a = 0;            // 0 or 1; anything else is invalid
  int trans_b = 0;
  int64_t m = 0, n = 0, k = 0;
  T alpha{};
  const T* a = nullptr;
  int64_t lda = 0;
  const T* b = nullptr;
  int64_t ldb = 0;
  T beta{};
  T* c = nullptr;
  int64_t ldc = 0;
  // A prepacked op(B) instead of b, ldb and trans_b; k and n are then the handle's.
  const PackedB::Impl* packed_b = nullptr;
};

// "" when the call is valid, else a message naming the function and the argument.
template <class T>
std::string validate(const GemmCall<T>& call);

// Runs a validated call on the context. Throws std::bad_alloc when workspace runs out.
template <class T>
void execute(Context::Impl& context, const GemmCall<T>& call);

}  // namespace invar::api

#endif  // INVAR_API_GEMM_CALL_H_
