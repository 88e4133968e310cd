// The products the Python package offers, each translated into C API calls: numpy.matmul
// semantics over any stack of matrices (one call, or one batch call with a pointer per entry),
// BLAS-style gemm on 2-D operands, and x @ W^T + bias with a fused activation.
#ifndef INVAR_PYTHON_PRODUCTS_H_
#define INVAR_PYTHON_PRODUCTS_H_

#include <optional>
#include <string>

#include "python/src/arrays.h"

namespace invar::python {

// Weights packed once (invar_*gemm_pack_b): op(B) is k x n.
struct Packed {
  invar_packed* handle = nullptr;
  Kind kind = Kind::kF32;    // the weights' type
  Kind a_kind = Kind::kF32;  // the type of the A it multiplies (int8 weights: int8 or uint8 A)
  int64_t k = 0, n = 0;
  Packed() = default;
  Packed(const Packed&) = delete;
  Packed& operator=(const Packed&) = delete;
  ~Packed() { invar_packed_free(handle); }
};

nb::object matmul(nb::handle a, nb::handle b, nb::handle out);
nb::object gemm(nb::handle a, nb::handle b, nb::handle c, double alpha, double beta, bool trans_a,
                bool trans_b);
nb::object linear(nb::handle x, nb::handle w, nb::handle bias,
                  const std::optional<std::string>& activation);
Packed* pack_b(nb::handle w, bool trans, const std::optional<std::string>& a_dtype);

}  // namespace invar::python

#endif  // INVAR_PYTHON_PRODUCTS_H_
