// Arrays at the edge of the Python package: whatever the caller passes (a numpy array, a PyTorch
// CPU tensor, anything with the buffer protocol or DLPack) is imported zero-copy through nanobind
// as an Array, a pointer with a shape and strides in elements. Nothing here computes; products.cpp
// turns Arrays into C API calls.
//
// A 2-D slice is passed to the library in place whenever a leading dimension and a transpose can
// describe it (rows contiguous with ld >= cols, or columns contiguous with ld >= rows); otherwise
// it is copied once into a fresh row-major buffer (negative or zero strides, both strides > 1).
#ifndef INVAR_PYTHON_ARRAYS_H_
#define INVAR_PYTHON_ARRAYS_H_

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "invar/invar.h"

namespace invar::python {

namespace nb = nanobind;

enum class Kind { kF32, kF64, kBF16, kF16, kS8, kU8, kS32 };

std::size_t element_size(Kind kind);
const char* kind_name(Kind kind);

struct Array {
  nb::object owner;  // keeps the memory alive (the import or a copy)
  void* data = nullptr;
  Kind kind = Kind::kF32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
  bool torch = false;            // came from PyTorch: results are returned as tensors

  int ndim() const { return static_cast<int>(shape.size()); }
  int64_t size() const;
  // The first and one-past-last byte any element occupies (for overlap checks).
  std::pair<const char*, const char*> byte_range() const;
};

// Imports `obj` read-only (an operand) or writable (an output). Raises TypeError for a dtype
// invar has no product for, a non-CPU device or a non-array.
Array import_array(nb::handle obj, const char* name, bool writable);

// How the library reads a rows x cols matrix with the given strides: as stored (ld = the row
// stride) or as the transpose of a row-major matrix (ld = the column stride).
struct Layout {
  bool ok = false;
  invar_trans trans = INVAR_NO_TRANS;
  int64_t ld = 1;
};
Layout layout_of(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride);

// The lean path of the tiny products: a 2-D float32 or float64 matrix of a plain numpy array
// (exactly numpy.ndarray, native byte order), read without building an Array. False, with
// nothing held, for anything else (other types, dimensions or dtypes, a read-only array asked
// for writing), which then takes the general import and its errors.
struct Matrix {
  void* data = nullptr;
  Kind kind = Kind::kF32;
  int64_t rows = 0, cols = 0;
  int64_t rs = 0, cs = 0;  // strides in elements
};
bool plain_matrix(nb::handle obj, bool writable, Matrix* m);
// The same for a 1-D float32 or float64 numpy array, read as one row (rows 1, cols its length).
bool plain_vector(nb::handle obj, Matrix* m);
// Whether two matrices share a byte.
bool overlap(const Matrix& x, const Matrix& y);
// A fresh C-order rows x cols numpy array of float32 or float64.
nb::object new_numpy_matrix(Kind kind, int64_t rows, int64_t cols, void** data);

// A C-order copy of `a` (same kind and shape).
Array contiguous_copy(const Array& a);

// A fresh C-order array of the given kind and shape; `torch` selects the framework of the result.
Array new_array(Kind kind, const std::vector<int64_t>& shape, bool torch);
// The Python object of an array made by new_array (a numpy array or a torch tensor).
nb::object to_python(const Array& a);

// Raises the exception matching a failed status, with the library's message.
[[noreturn]] void raise_status(invar_status status);

}  // namespace invar::python

#endif  // INVAR_PYTHON_ARRAYS_H_
