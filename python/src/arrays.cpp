#include "python/src/arrays.h"

// numpy's headers, for reading plain numpy arrays and making results without a Python call.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#undef import_array  // numpy's macro; _import_array() is called instead, and the name is ours

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace invar::python {

namespace dl = nb::dlpack;

std::size_t element_size(Kind kind) {
  switch (kind) {
    case Kind::kF64: return 8;
    case Kind::kF32:
    case Kind::kS32: return 4;
    case Kind::kBF16:
    case Kind::kF16: return 2;
    case Kind::kS8:
    case Kind::kU8: return 1;
  }
  return 1;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kF32: return "float32";
    case Kind::kF64: return "float64";
    case Kind::kBF16: return "bfloat16";
    case Kind::kF16: return "float16";
    case Kind::kS8: return "int8";
    case Kind::kU8: return "uint8";
    case Kind::kS32: return "int32";
  }
  return "?";
}

int64_t Array::size() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::pair<const char*, const char*> Array::byte_range() const {
  const char* base = static_cast<const char*>(data);
  if (size() == 0) return {base, base};
  int64_t lo = 0, hi = 0;
  for (int i = 0; i < ndim(); ++i) {
    const int64_t extent = (shape[i] - 1) * strides[i];
    (extent < 0 ? lo : hi) += extent;
  }
  const auto es = static_cast<int64_t>(element_size(kind));
  return {base + lo * es, base + (hi + 1) * es};
}

namespace {

bool kind_of(dl::dtype dt, Kind* kind) {
  if (dt.lanes != 1) return false;
  const auto code = static_cast<dl::dtype_code>(dt.code);
  if (code == dl::dtype_code::Float) {
    if (dt.bits == 32)
      *kind = Kind::kF32;
    else if (dt.bits == 64)
      *kind = Kind::kF64;
    else if (dt.bits == 16)
      *kind = Kind::kF16;
    else
      return false;
    return true;
  }
  if (code == dl::dtype_code::Bfloat && dt.bits == 16) {
    *kind = Kind::kBF16;
    return true;
  }
  if (code == dl::dtype_code::Int) {
    if (dt.bits == 8)
      *kind = Kind::kS8;
    else if (dt.bits == 32)
      *kind = Kind::kS32;
    else
      return false;
    return true;
  }
  if (code == dl::dtype_code::UInt && dt.bits == 8) {
    *kind = Kind::kU8;
    return true;
  }
  return false;
}

dl::dtype dtype_of(Kind kind) {
  switch (kind) {
    case Kind::kF32: return nb::dtype<float>();
    case Kind::kF64: return nb::dtype<double>();
    case Kind::kBF16: return {static_cast<uint8_t>(dl::dtype_code::Bfloat), 16, 1};
    case Kind::kF16: return {static_cast<uint8_t>(dl::dtype_code::Float), 16, 1};
    case Kind::kS8: return nb::dtype<int8_t>();
    case Kind::kU8: return nb::dtype<uint8_t>();
    case Kind::kS32: return nb::dtype<int32_t>();
  }
  return nb::dtype<float>();
}

bool from_torch(nb::handle obj) {
  nb::handle type = reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr()));
  if (!nb::hasattr(type, "__module__")) return false;
  nb::object module = type.attr("__module__");
  if (!nb::isinstance<nb::str>(module)) return false;
  const char* name = nb::borrow<nb::str>(module).c_str();
  return std::strncmp(name, "torch", 5) == 0;
}

// The numpy dtype name of obj, or "" (ml_dtypes' bfloat16 arrays are not importable through the
// buffer protocol or numpy's DLPack, so they are recognised by name and viewed as uint16).
std::string numpy_dtype_name(nb::handle obj) {
  if (!nb::hasattr(obj, "dtype")) return "";
  nb::object dtype = obj.attr("dtype");
  if (!nb::hasattr(dtype, "name")) return "";
  nb::object name = dtype.attr("name");
  return nb::isinstance<nb::str>(name) ? std::string(nb::borrow<nb::str>(name).c_str()) : "";
}

template <class NdArray>
bool try_import(nb::handle obj, Array* out, bool force_bf16) {
  NdArray arr;
  if (!nb::try_cast(obj, arr, /*convert=*/false)) return false;
  Kind kind;
  if (force_bf16) {
    if (arr.dtype() != nb::dtype<uint16_t>()) return false;
    kind = Kind::kBF16;
  } else if (!kind_of(arr.dtype(), &kind)) {
    throw nb::type_error(("invar: unsupported dtype (" + std::to_string(arr.dtype().code) + ", " +
                          std::to_string(arr.dtype().bits) +
                          " bits); invar multiplies float32, float64, bfloat16, float16 and "
                          "int8/uint8 x int8")
                             .c_str());
  }
  out->kind = kind;
  out->data = const_cast<void*>(static_cast<const void*>(arr.data()));
  out->shape.resize(arr.ndim());
  out->strides.resize(arr.ndim());
  for (std::size_t i = 0; i < arr.ndim(); ++i) {
    out->shape[i] = static_cast<int64_t>(arr.shape(i));
    out->strides[i] = arr.stride(i);
  }
  out->owner = nb::borrow(obj);
  return true;
}

// numpy arrays through the buffer protocol directly: nanobind asks for a DLPack capsule first,
// which for numpy 1.x costs a Python call and, for writable arrays, a caught TypeError (numpy
// < 2 has no max_version), several microseconds per operand of a tiny product.
bool is_numpy_array(nb::handle obj);

bool try_numpy_buffer(nb::handle obj, Array* out, bool writable) {
  if (!is_numpy_array(obj)) return false;
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_RECORDS_RO | (writable ? PyBUF_WRITABLE : 0)) !=
      0) {
    PyErr_Clear();  // bfloat16 (no buffer format) or read-only: the general path explains
    return false;
  }
  Kind kind;
  bool ok = view.format != nullptr && view.format[0] != '\0' && view.format[1] == '\0';
  if (ok) {
    switch (view.format[0]) {
      case 'f': kind = Kind::kF32; break;
      case 'd': kind = Kind::kF64; break;
      case 'e': kind = Kind::kF16; break;
      case 'b': kind = Kind::kS8; break;
      case 'B': kind = Kind::kU8; break;
      case 'i': kind = Kind::kS32; break;
      default: ok = false;
    }
  }
  ok = ok && static_cast<std::size_t>(view.itemsize) == element_size(kind);
  if (ok) {
    out->shape.resize(view.ndim);
    out->strides.resize(view.ndim);
    for (int i = 0; i < view.ndim; ++i) {
      out->shape[i] = view.shape[i];
      if (view.strides[i] % view.itemsize != 0) ok = false;
      out->strides[i] = view.strides[i] / view.itemsize;
    }
  }
  if (ok) {
    out->kind = kind;
    out->data = view.buf;
    out->owner = nb::borrow(obj);  // the array keeps its memory; the view is not needed after
  }
  PyBuffer_Release(&view);
  return ok;
}

bool is_numpy_array(nb::handle obj) {
  // numpy.ndarray, recognised by name the first time and by its type object after.
  static PyTypeObject* numpy_type = nullptr;
  PyTypeObject* type = Py_TYPE(obj.ptr());
  if (type == numpy_type) return true;
  if (numpy_type != nullptr || std::strcmp(type->tp_name, "numpy.ndarray") != 0) return false;
  numpy_type = type;
  return true;
}

}  // namespace

namespace {

// numpy's C API (its function table), loaded on the first plain numpy array seen, when numpy is
// surely imported. Built against numpy 2's headers, which serve numpy 1.x and 2.x alike.
bool numpy_api_ready() {
  static int state = 0;  // 0: not tried, 1: loaded, -1: unavailable
  if (state == 0) {
    if (_import_array() < 0) {
      PyErr_Clear();
      state = -1;
    } else {
      state = 1;
    }
  }
  return state == 1;
}

}  // namespace

namespace {

// A plain numpy array of ndim (1 or 2) dimensions as a Matrix (a 1-D array as one row).
bool plain_array(nb::handle obj, int ndim, bool writable, Matrix* m) {
  if (!is_numpy_array(obj) || !numpy_api_ready()) return false;
  auto* arr = reinterpret_cast<PyArrayObject*>(obj.ptr());
  if (PyArray_NDIM(arr) != ndim) return false;
  const PyArray_Descr* descr = PyArray_DESCR(arr);
  int64_t es;
  if (descr->type_num == NPY_FLOAT) {
    m->kind = Kind::kF32;
    es = 4;
  } else if (descr->type_num == NPY_DOUBLE) {
    m->kind = Kind::kF64;
    es = 8;
  } else {
    return false;
  }
  // numpy's internal flag of arrays whose writes warn (numpy 1.x broadcast_arrays): left to the
  // buffer protocol of the general path, which warns.
  constexpr int kWarnOnWrite = static_cast<int>(0x80000000u);
  const int flags = PyArray_FLAGS(arr);
  if (!PyArray_ISNBO(descr->byteorder) || (flags & NPY_ARRAY_ALIGNED) == 0 ||
      (writable && ((flags & NPY_ARRAY_WRITEABLE) == 0 || (flags & kWarnOnWrite) != 0)))
    return false;
  const npy_intp* dims = PyArray_DIMS(arr);
  const npy_intp* strides = PyArray_STRIDES(arr);
  for (int d = 0; d < ndim; ++d)
    if (strides[d] % es != 0) return false;
  m->data = PyArray_DATA(arr);
  if (ndim == 2) {
    m->rows = dims[0];
    m->cols = dims[1];
    m->rs = strides[0] / es;
    m->cs = strides[1] / es;
  } else {
    m->rows = 1;
    m->cols = dims[0];
    m->rs = dims[0];
    m->cs = strides[0] / es;
  }
  return true;
}

}  // namespace

bool plain_matrix(nb::handle obj, bool writable, Matrix* m) {
  return plain_array(obj, 2, writable, m);
}

bool plain_vector(nb::handle obj, Matrix* m) { return plain_array(obj, 1, false, m); }

bool overlap(const Matrix& x, const Matrix& y) {
  auto range = [](const Matrix& a) -> std::pair<const char*, const char*> {
    const char* base = static_cast<const char*>(a.data);
    if (a.rows == 0 || a.cols == 0) return {base, base};
    int64_t lo = 0, hi = 0;
    ((a.rows - 1) * a.rs < 0 ? lo : hi) += (a.rows - 1) * a.rs;
    ((a.cols - 1) * a.cs < 0 ? lo : hi) += (a.cols - 1) * a.cs;
    const auto es = static_cast<int64_t>(element_size(a.kind));
    return {base + lo * es, base + (hi + 1) * es};
  };
  const auto [x0, x1] = range(x);
  const auto [y0, y1] = range(y);
  return x0 < y1 && y0 < x1;
}

Array import_array(nb::handle obj, const char* name, bool writable) {
  Array r;
  if (try_numpy_buffer(obj, &r, writable)) return r;
  r.torch = from_torch(obj);
  using Ro = nb::ndarray<nb::ro, nb::device::cpu>;
  using Rw = nb::ndarray<nb::device::cpu>;
  if (writable ? try_import<Rw>(obj, &r, false) : try_import<Ro>(obj, &r, false)) return r;
  if (!r.torch && numpy_dtype_name(obj) == "bfloat16") {
    nb::object view = obj.attr("view")("uint16");
    if (writable ? try_import<Rw>(view, &r, true) : try_import<Ro>(view, &r, true)) return r;
  }
  if (writable && nb::hasattr(obj, "flags")) {
    Ro probe;
    if (nb::try_cast(obj, probe, false))
      throw nb::value_error((std::string("invar: ") + name + " is read-only").c_str());
  }
  throw nb::type_error((std::string("invar: ") + name +
                        " must be a CPU array (numpy, PyTorch CPU tensor, DLPack or buffer) of "
                        "float32, float64, bfloat16, float16, int8 or uint8")
                           .c_str());
}

Layout layout_of(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  Layout l;
  if (rows <= 0 || cols <= 0) {  // nothing is read: any description will do
    l.ok = true;
    l.ld = std::max<int64_t>(cols, 1);
    return l;
  }
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= cols)) {
    l.ok = true;
    l.trans = INVAR_NO_TRANS;
    l.ld = rows == 1 ? cols : rs;
    return l;
  }
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= rows)) {
    l.ok = true;
    l.trans = INVAR_TRANS;
    l.ld = cols == 1 ? rows : cs;
    return l;
  }
  return l;
}

namespace {

void* allocate(std::size_t bytes) {
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

// numpy.empty and the dtype objects, looked up once (kept for the life of the process).
nb::handle numpy_empty() {
  static nb::object* f = new nb::object(nb::module_::import_("numpy").attr("empty"));
  return *f;
}
nb::handle numpy_dtype(Kind kind) {
  static nb::object* dtypes[7] = {};
  nb::object*& d = dtypes[static_cast<int>(kind)];
  if (d == nullptr)
    d = new nb::object(nb::module_::import_("numpy").attr("dtype")(kind_name(kind)));
  return *d;
}

nb::object new_numpy_matrix(Kind kind, int64_t rows, int64_t cols, void** data) {
  // Only called after plain_matrix has accepted an operand, so the C API is loaded.
  npy_intp dims[2] = {static_cast<npy_intp>(rows), static_cast<npy_intp>(cols)};
  PyObject* arr = PyArray_SimpleNew(2, dims, kind == Kind::kF32 ? NPY_FLOAT : NPY_DOUBLE);
  if (arr == nullptr) throw nb::python_error();
  *data = PyArray_DATA(reinterpret_cast<PyArrayObject*>(arr));
  return nb::steal(arr);
}

Array new_array(Kind kind, const std::vector<int64_t>& shape, bool torch) {
  Array r;
  r.kind = kind;
  r.shape = shape;
  r.torch = torch;
  r.strides.assign(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    r.strides[i] = r.strides[i + 1] * std::max<int64_t>(shape[i + 1], 1);
  std::vector<std::size_t> dims(shape.begin(), shape.end());
  if (!torch && kind != Kind::kBF16) {
    // numpy's own allocation: cheaper than a DLPack round trip for the tiny products.
    nb::tuple dims_tuple = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(shape.size())));
    for (std::size_t i = 0; i < shape.size(); ++i)
      PyTuple_SET_ITEM(dims_tuple.ptr(), i, PyLong_FromLongLong(shape[i]));
    nb::object arr = numpy_empty()(dims_tuple, numpy_dtype(kind));
    Array made;
    if (!try_numpy_buffer(arr, &made, /*writable=*/true))
      throw std::runtime_error("invar: numpy.empty returned an unusable array");
    r.data = made.data;
    r.owner = std::move(arr);
    return r;
  }
  const std::size_t bytes = static_cast<std::size_t>(r.size()) * element_size(kind);
  r.data = allocate(bytes);
  nb::capsule owner(r.data, [](void* p) noexcept { std::free(p); });
  if (torch) {
    r.owner =
        nb::ndarray<nb::pytorch>(r.data, dims.size(), dims.data(), owner, nullptr, dtype_of(kind))
            .cast();
  } else {
    nb::object bits = nb::ndarray<nb::numpy>(r.data, dims.size(), dims.data(), owner, nullptr,
                                             nb::dtype<uint16_t>())
                          .cast();
    r.owner = bits.attr("view")(nb::module_::import_("ml_dtypes").attr("bfloat16"));
  }
  return r;
}

nb::object to_python(const Array& a) { return a.owner; }

Array contiguous_copy(const Array& a) {
  Array r = new_array(a.kind, a.shape, a.torch);
  const int64_t count = a.size();
  if (count == 0) return r;
  const std::size_t es = element_size(a.kind);
  const int nd = a.ndim();
  std::vector<int64_t> index(nd, 0);
  const char* src = static_cast<const char*>(a.data);
  char* dst = static_cast<char*>(r.data);
  // Innermost dimension as a run; the outer ones by an odometer.
  const int64_t inner = nd ? a.shape[nd - 1] : 1;
  const int64_t inner_stride = nd ? a.strides[nd - 1] : 1;
  for (int64_t done = 0; done < count; done += inner) {
    int64_t offset = 0;
    for (int d = 0; d + 1 < nd; ++d) offset += index[d] * a.strides[d];
    if (inner_stride == 1) {
      std::memcpy(dst, src + offset * static_cast<int64_t>(es), inner * es);
      dst += inner * es;
    } else {
      for (int64_t j = 0; j < inner; ++j, dst += es)
        std::memcpy(dst, src + (offset + j * inner_stride) * static_cast<int64_t>(es), es);
    }
    for (int d = nd - 2; d >= 0; --d) {
      if (++index[d] < a.shape[d]) break;
      index[d] = 0;
    }
  }
  return r;
}

void raise_status(invar_status status) {
  const std::string message = invar_last_error();
  switch (status) {
    case INVAR_ENOMEM:
      PyErr_SetString(PyExc_MemoryError, message.c_str());
      throw nb::python_error();
    case INVAR_EUNSUPPORTED: throw std::runtime_error(message);
    default: throw nb::value_error(message.c_str());
  }
}

}  // namespace invar::python
