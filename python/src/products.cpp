#include "python/src/products.h"

#include <cmath>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "src/numeric/half.h"
#include "src/runtime/fp_mode.h"

namespace invar::python {

namespace {

// A Python float (a double) as the scalar type S of a product's alpha and beta. For float32 it is
// rounded to nearest even with subnormals kept, as the library computes, whatever mode the calling
// thread is in: a thread with FTZ set (torch.set_flush_denormal(True), audio code) would otherwise
// flush a subnormal alpha to zero here, before the library's own mode is in force. The volatile
// accesses keep the conversion between the guard's two writes of the control register.
template <class S>
S scalar_as(double v) {
  if constexpr (std::is_same_v<S, float>) {
    volatile double in = v;
    volatile float out;
    {
      const runtime::FpModeGuard contract_mode;
      out = static_cast<float>(in);
    }
    return out;
  } else {
    return static_cast<S>(v);
  }
}

// One product or a batch of products of one shape, ready for the C API.
struct Call {
  invar_trans ta = INVAR_NO_TRANS, tb = INVAR_NO_TRANS;
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;
  int64_t lda = 1, ldb = 1, ldc = 1;
  std::vector<const void*> a, b;
  std::vector<void*> c;
};

template <class T>
const T* const* as_array(const std::vector<const void*>& v) {
  return reinterpret_cast<const T* const*>(v.data());
}
template <class T>
T* const* as_array(const std::vector<void*>& v) {
  return reinterpret_cast<T* const*>(v.data());
}

// The GIL is released around a product of at least this many multiply-adds (32^3), and held
// around smaller ones. Releasing and taking it back costs a few hundred nanoseconds even with no
// other thread, and when another Python thread is running, taking it back can wait for that
// thread's switch interval (5 ms by default): a product of a few microseconds gives the other
// threads too little time to use and would make the call itself up to a thousand times slower.
// At 32^3 the product takes several microseconds on one core (a few GFLOP/s at this size),
// about ten times the cost of the release.
constexpr int64_t kReleaseGilMacs = int64_t{1} << 15;

bool releases_gil(int64_t m, int64_t n, int64_t k, int64_t count) {
  // Each factor is below 2^63 and their product is only compared: saturate instead of overflow.
  double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
                static_cast<double>(count);
  return macs >= static_cast<double>(kReleaseGilMacs);
}

// Releases the GIL for its lifetime when asked to (the C products never raise).
class Unlocked {
 public:
  explicit Unlocked(bool release) : state_(release ? PyEval_SaveThread() : nullptr) {}
  ~Unlocked() {
    if (state_ != nullptr) PyEval_RestoreThread(state_);
  }
  Unlocked(const Unlocked&) = delete;
  Unlocked& operator=(const Unlocked&) = delete;

 private:
  PyThreadState* state_;
};

// The C entry points of one (A, B, C) element-type triple, single and batched.
template <class TA, class TB, class TC, class S>
struct Entry {
  invar_status (*one)(invar_trans, invar_trans, int64_t, int64_t, int64_t, S, const TA*, int64_t,
                      const TB*, int64_t, S, TC*, int64_t);
  invar_status (*many)(invar_trans, invar_trans, int64_t, int64_t, int64_t, S, const TA* const*,
                       int64_t, const TB* const*, int64_t, S, TC* const*, int64_t, int64_t);

  invar_status operator()(const Call& q) const {
    const S alpha = scalar_as<S>(q.alpha), beta = scalar_as<S>(q.beta);
    const auto count = static_cast<int64_t>(q.c.size());
    Unlocked unlocked(releases_gil(q.m, q.n, q.k, count));
    if (count == 1) {
      return one(q.ta, q.tb, q.m, q.n, q.k, alpha, static_cast<const TA*>(q.a[0]), q.lda,
                 static_cast<const TB*>(q.b[0]), q.ldb, beta, static_cast<TC*>(q.c[0]), q.ldc);
    }
    return many(q.ta, q.tb, q.m, q.n, q.k, alpha, as_array<TA>(q.a), q.lda, as_array<TB>(q.b),
                q.ldb, beta, as_array<TC>(q.c), q.ldc, count);
  }
};
template <class TA, class TB, class TC, class S>
Entry(invar_status (*)(invar_trans, invar_trans, int64_t, int64_t, int64_t, S, const TA*, int64_t,
                       const TB*, int64_t, S, TC*, int64_t),
      invar_status (*)(invar_trans, invar_trans, int64_t, int64_t, int64_t, S, const TA* const*,
                       int64_t, const TB* const*, int64_t, S, TC* const*, int64_t, int64_t))
    -> Entry<TA, TB, TC, S>;

bool is_integer(Kind k) { return k == Kind::kS8 || k == Kind::kU8 || k == Kind::kS32; }

// The result type numpy users expect: the inputs' type, int32 for 8-bit integers.
bool default_output(Kind ka, Kind kb, Kind* kc) {
  if ((ka == Kind::kS8 || ka == Kind::kU8) && kb == Kind::kS8) {
    *kc = Kind::kS32;
    return true;
  }
  if (ka != kb || is_integer(ka)) return false;
  *kc = ka;
  return true;
}

[[noreturn]] void unsupported(Kind ka, Kind kb, Kind kc) {
  throw nb::type_error((std::string("invar: no product of ") + kind_name(ka) + " x " +
                        kind_name(kb) + " -> " + kind_name(kc) +
                        "; invar offers float32, float64, bfloat16 and float16 (result of the "
                        "same type, or float32 for the 16-bit types) and int8/uint8 x int8 -> "
                        "int32")
                           .c_str());
}

void check_route(Kind ka, Kind kb, Kind kc) {
  const bool ok =
      (ka == kb && (ka == Kind::kF32 || ka == Kind::kF64) && kc == ka) ||
      (ka == kb && (ka == Kind::kBF16 || ka == Kind::kF16) && (kc == ka || kc == Kind::kF32)) ||
      ((ka == Kind::kS8 || ka == Kind::kU8) && kb == Kind::kS8 && kc == Kind::kS32);
  if (!ok) unsupported(ka, kb, kc);
}

invar_status run(Kind ka, Kind kc, const Call& q) {
  switch (ka) {
    case Kind::kF32: return Entry{invar_sgemm, invar_sgemm_batch}(q);
    case Kind::kF64: return Entry{invar_dgemm, invar_dgemm_batch}(q);
    case Kind::kBF16:
      if (kc == Kind::kF32) return Entry{invar_gemm_bf16bf16f32, invar_gemm_bf16bf16f32_batch}(q);
      return Entry{invar_gemm_bf16bf16bf16, invar_gemm_bf16bf16bf16_batch}(q);
    case Kind::kF16:
      if (kc == Kind::kF32) return Entry{invar_gemm_f16f16f32, invar_gemm_f16f16f32_batch}(q);
      return Entry{invar_gemm_f16f16f16, invar_gemm_f16f16f16_batch}(q);
    case Kind::kS8: return Entry{invar_gemm_s8s8s32, invar_gemm_s8s8s32_batch}(q);
    case Kind::kU8: return Entry{invar_gemm_u8s8s32, invar_gemm_u8s8s32_batch}(q);
    case Kind::kS32: break;
  }
  return INVAR_EUNSUPPORTED;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// The last two dimensions of `a` as the library reads them; copies `a` once if no leading
// dimension and transpose describe them.
Layout operand_layout(Array& a) {
  const int nd = a.ndim();
  Layout l = layout_of(a.shape[nd - 2], a.shape[nd - 1], a.strides[nd - 2], a.strides[nd - 1]);
  if (l.ok) return l;
  a = contiguous_copy(a);
  return layout_of(a.shape[nd - 2], a.shape[nd - 1], a.strides[nd - 2], a.strides[nd - 1]);
}

// C must be rows with a leading dimension: the library writes row-major C only.
int64_t output_ld(const Array& c, const char* name) {
  const int nd = c.ndim();
  const int64_t rows = c.shape[nd - 2], cols = c.shape[nd - 1];
  const int64_t rs = c.strides[nd - 2], cs = c.strides[nd - 1];
  if (rows == 0 || cols == 0) return std::max<int64_t>(cols, 1);
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= cols)) return rows == 1 ? cols : rs;
  throw nb::value_error((std::string("invar: ") + name +
                         " must have contiguous rows (unit column stride and a row stride of at "
                         "least its width); pass a C-order array")
                            .c_str());
}

void check_no_overlap(const Array& c, const Array& x, const char* name) {
  const auto [c0, c1] = c.byte_range();
  const auto [x0, x1] = x.byte_range();
  if (c0 < x1 && x0 < c1)
    throw nb::value_error(
        (std::string("invar: the output overlaps ") + name + "; pass a separate array").c_str());
}

void check_output_shape(const Array& c, const std::vector<int64_t>& expected, const char* name) {
  if (c.shape != expected)
    throw nb::value_error((std::string("invar: ") + name + " has shape " + shape_text(c.shape) +
                           ", the result has shape " + shape_text(expected))
                              .c_str());
}

// The byte offset of each entry of a batch in an array whose leading dimensions broadcast to
// `batch` (numpy's rule: aligned on the right, size 1 repeated).
void entry_pointers(const Array& a, const std::vector<int64_t>& batch, int64_t count,
                    std::vector<const void*>* out) {
  const int nb_a = a.ndim() - 2, nb_all = static_cast<int>(batch.size());
  const auto es = static_cast<int64_t>(element_size(a.kind));
  out->resize(count);
  std::vector<int64_t> index(nb_all, 0);
  for (int64_t e = 0; e < count; ++e) {
    int64_t offset = 0;
    for (int d = 0; d < nb_a; ++d) {
      const int g = d + nb_all - nb_a;
      if (a.shape[d] != 1) offset += index[g] * a.strides[d];
    }
    (*out)[e] = static_cast<const char*>(a.data) + offset * es;
    for (int d = nb_all - 1; d >= 0; --d) {
      if (++index[d] < batch[d]) break;
      index[d] = 0;
    }
  }
}

int32_t integer_scalar(double v, const char* name) {
  if (!(v == std::floor(v)) || v < -2147483648.0 || v > 2147483647.0)
    throw nb::value_error(
        (std::string("invar: ") + name + " must be an int32 value for integer products").c_str());
  return static_cast<int32_t>(v);
}

std::vector<int64_t> reversed_dims(const std::vector<int64_t>& v) { return {v[1], v[0]}; }

}  // namespace

namespace {

// C = alpha * op(A) op(B) + beta * C for float32 or float64 matrices of one kind, m, n, k > 0,
// C rows contiguous (the general path checked or made them so).
invar_status run_plain(Kind kind, invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                       double alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                       double beta, void* c, int64_t ldc) {
  Unlocked unlocked(releases_gil(m, n, k, 1));
  if (kind == Kind::kF32)
    return invar_sgemm(ta, tb, m, n, k, scalar_as<float>(alpha), static_cast<const float*>(a), lda,
                       static_cast<const float*>(b), ldb, scalar_as<float>(beta),
                       static_cast<float*>(c), ldc);
  return invar_dgemm(ta, tb, m, n, k, alpha, static_cast<const double*>(a), lda,
                     static_cast<const double*>(b), ldb, beta, static_cast<double*>(c), ldc);
}

// The leading dimension of a writable C, or 0 where the library cannot write it in place.
int64_t plain_output_ld(const Matrix& c) {
  if ((c.cols == 1 || c.cs == 1) && (c.rows == 1 || c.rs >= c.cols))
    return c.rows == 1 ? c.cols : c.rs;
  return 0;
}

// The lean path of a product of two plain numpy matrices of one float kind (and a plain numpy
// out of that kind and the result's shape, not overlapping them), every dimension nonzero and
// each operand readable in place. Returns a null object, having done nothing, for anything else:
// the general path then handles it, with its copies, its broadcasting and its errors.
nb::object plain_product(nb::handle a_obj, nb::handle b_obj, nb::handle c_obj, bool trans_a,
                         bool trans_b, double alpha, double beta) {
  Matrix a, b;
  if (!plain_matrix(a_obj, false, &a) || !plain_matrix(b_obj, false, &b) || a.kind != b.kind)
    return {};
  if (trans_a) {
    std::swap(a.rows, a.cols);
    std::swap(a.rs, a.cs);
  }
  if (trans_b) {
    std::swap(b.rows, b.cols);
    std::swap(b.rs, b.cs);
  }
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (b.rows != k || m == 0 || n == 0 || k == 0) return {};
  const Layout la = layout_of(m, k, a.rs, a.cs), lb = layout_of(k, n, b.rs, b.cs);
  if (!la.ok || !lb.ok) return {};
  nb::object result;
  void* c_data;
  int64_t ldc;
  if (c_obj.is_none()) {
    if (beta != 0) return {};
    result = new_numpy_matrix(a.kind, m, n, &c_data);
    ldc = n;
  } else {
    Matrix c;
    if (!plain_matrix(c_obj, true, &c) || c.kind != a.kind || c.rows != m || c.cols != n ||
        overlap(c, a) || overlap(c, b))
      return {};
    ldc = plain_output_ld(c);
    if (ldc == 0) return {};
    c_data = c.data;
    result = nb::borrow(c_obj);
  }
  const invar_status status = run_plain(a.kind, la.trans, lb.trans, m, n, k, alpha, a.data, la.ld,
                                        b.data, lb.ld, beta, c_data, ldc);
  if (status != INVAR_OK) raise_status(status);
  return result;
}

}  // namespace

nb::object matmul(nb::handle a_obj, nb::handle b_obj, nb::handle out_obj) {
  if (nb::object r = plain_product(a_obj, b_obj, out_obj, false, false, 1.0, 0.0); r.is_valid())
    return r;
  Packed* packed = nullptr;
  if (nb::try_cast(b_obj, packed, false) && packed != nullptr) {
    if (!out_obj.is_none())
      throw nb::value_error("invar.matmul: out= is not offered with packed weights");
    return linear(a_obj, b_obj, nb::none(), std::nullopt);
  }
  Array a = import_array(a_obj, "a", false);
  Array b = import_array(b_obj, "b", false);
  if (a.ndim() == 0 || b.ndim() == 0)
    throw nb::value_error("invar.matmul: operands must have at least one dimension");
  // numpy's rule for vectors: a 1-D a is one row, a 1-D b one column; the added dimension is
  // removed from the result.
  const bool a_vector = a.ndim() == 1, b_vector = b.ndim() == 1;
  if (a_vector) {
    a.shape.insert(a.shape.begin(), 1);
    a.strides.insert(a.strides.begin(), a.shape[1]);
  }
  if (b_vector) {
    b.shape.push_back(1);
    b.strides.push_back(1);
  }
  const int na = a.ndim(), nbd = b.ndim();
  const int64_t m = a.shape[na - 2], k = a.shape[na - 1], n = b.shape[nbd - 1];
  if (b.shape[nbd - 2] != k)
    throw nb::value_error(("invar.matmul: a has " + std::to_string(k) + " columns, b has " +
                           std::to_string(b.shape[nbd - 2]) + " rows")
                              .c_str());
  // Broadcast the leading (batch) dimensions.
  const int nb_all = std::max(na, nbd) - 2;
  std::vector<int64_t> batch(nb_all, 1);
  for (int d = 0; d < nb_all; ++d) {
    const int da = d - (nb_all - (na - 2)), db = d - (nb_all - (nbd - 2));
    const int64_t sa = da >= 0 ? a.shape[da] : 1, sb = db >= 0 ? b.shape[db] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      throw nb::value_error(("invar.matmul: batch dimensions " + shape_text(a.shape) + " and " +
                             shape_text(b.shape) + " do not broadcast")
                                .c_str());
    batch[d] = sa == 1 ? sb : sa;
  }
  std::vector<int64_t> result_shape = batch;
  if (!a_vector) result_shape.push_back(m);
  if (!b_vector) result_shape.push_back(n);

  Array c;
  Kind kc;
  const bool have_out = !out_obj.is_none();
  if (have_out) {
    c = import_array(out_obj, "out", true);
    check_output_shape(c, result_shape, "out");
    kc = c.kind;
  } else if (!default_output(a.kind, b.kind, &kc)) {
    unsupported(a.kind, b.kind, a.kind);
  }
  check_route(a.kind, b.kind, kc);
  if (have_out) {
    check_no_overlap(c, a, "a");
    check_no_overlap(c, b, "b");
    // Back to (batch..., m, n) for the library.
    if (a_vector) {
      c.shape.insert(c.shape.end() - (b_vector ? 0 : 1), 1);
      c.strides.insert(c.strides.end() - (b_vector ? 0 : 1), n);
    }
    if (b_vector) {
      c.shape.push_back(1);
      c.strides.push_back(1);
    }
    for (int d = 0; d < nb_all; ++d)
      if (c.strides[d] == 0 && c.shape[d] > 1)
        throw nb::value_error("invar.matmul: out repeats memory across its batch (stride 0)");
  } else {
    std::vector<int64_t> full = batch;
    full.push_back(m);
    full.push_back(n);
    c = new_array(kc, full, a.torch || b.torch);
  }
  nb::object result = have_out ? nb::borrow(out_obj) : c.owner;
  if (!have_out && (a_vector || b_vector)) {
    // The fresh array was made (batch..., m, n); return it with numpy's shape.
    nb::list dims;
    for (int64_t d : result_shape) dims.append(d);
    result = c.owner.attr("reshape")(nb::tuple(dims));
  }

  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  if (count == 0 || m == 0 || n == 0) return result;

  Call q;
  q.m = m;
  q.n = n;
  q.k = k;
  const Layout la = operand_layout(a), lb = operand_layout(b);
  q.ta = la.trans;
  q.lda = la.ld;
  q.tb = lb.trans;
  q.ldb = lb.ld;
  q.ldc = output_ld(c, "out");
  if (count == 1) {
    q.a = {a.data};
    q.b = {b.data};
    q.c = {c.data};
    // Leading dimensions of size 1 only: nothing to offset.
  } else {
    entry_pointers(a, batch, count, &q.a);
    entry_pointers(b, batch, count, &q.b);
    std::vector<const void*> cs;
    entry_pointers(c, batch, count, &cs);
    q.c.assign(cs.size(), nullptr);
    for (std::size_t i = 0; i < cs.size(); ++i) q.c[i] = const_cast<void*>(cs[i]);
  }
  const invar_status status = run(a.kind, kc, q);
  if (status != INVAR_OK) raise_status(status);
  return result;
}

nb::object gemm(nb::handle a_obj, nb::handle b_obj, nb::handle c_obj, double alpha, double beta,
                bool trans_a, bool trans_b) {
  if (nb::object r = plain_product(a_obj, b_obj, c_obj, trans_a, trans_b, alpha, beta);
      r.is_valid())
    return r;
  Array a = import_array(a_obj, "a", false);
  Array b = import_array(b_obj, "b", false);
  if (a.ndim() != 2 || b.ndim() != 2)
    throw nb::value_error("invar.gemm: a and b must be 2-D (use invar.matmul for stacks)");
  if (trans_a) {
    a.shape = reversed_dims(a.shape);
    a.strides = reversed_dims(a.strides);
  }
  if (trans_b) {
    b.shape = reversed_dims(b.shape);
    b.strides = reversed_dims(b.strides);
  }
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (b.shape[0] != k)
    throw nb::value_error(("invar.gemm: op(a) has " + std::to_string(k) + " columns, op(b) has " +
                           std::to_string(b.shape[0]) + " rows")
                              .c_str());
  Array c;
  Kind kc;
  const bool have_c = !c_obj.is_none();
  if (have_c) {
    c = import_array(c_obj, "c", true);
    check_output_shape(c, {m, n}, "c");
    kc = c.kind;
  } else {
    if (beta != 0) throw nb::value_error("invar.gemm: beta != 0 needs a c to scale");
    if (!default_output(a.kind, b.kind, &kc)) unsupported(a.kind, b.kind, a.kind);
  }
  check_route(a.kind, b.kind, kc);
  Call q;
  if (is_integer(kc)) {
    q.alpha = integer_scalar(alpha, "alpha");
    q.beta = integer_scalar(beta, "beta");
  } else {
    q.alpha = alpha;
    q.beta = beta;
  }
  if (have_c) {
    check_no_overlap(c, a, "a");
    check_no_overlap(c, b, "b");
    q.ldc = output_ld(c, "c");
  } else {
    c = new_array(kc, {m, n}, a.torch);
    q.ldc = std::max<int64_t>(n, 1);
  }
  nb::object result = have_c ? nb::borrow(c_obj) : c.owner;
  if (m == 0 || n == 0) return result;
  const Layout la = operand_layout(a), lb = operand_layout(b);
  q.ta = la.trans;
  q.tb = lb.trans;
  q.lda = la.ld;
  q.ldb = lb.ld;
  q.m = m;
  q.n = n;
  q.k = k;
  q.a = {a.data};
  q.b = {b.data};
  q.c = {c.data};
  const invar_status status = run(a.kind, kc, q);
  if (status != INVAR_OK) raise_status(status);
  return result;
}

namespace {

invar_activation activation_of(const std::optional<std::string>& name) {
  if (!name || *name == "none") return INVAR_ACT_NONE;
  if (*name == "relu") return INVAR_ACT_RELU;
  if (*name == "gelu_tanh") return INVAR_ACT_GELU_TANH;
  if (*name == "silu") return INVAR_ACT_SILU;
  throw nb::value_error(("invar.linear: activation must be None, 'relu', 'gelu_tanh' or 'silu', "
                         "not '" +
                         *name + "'")
                            .c_str());
}

// A 16-bit x * w^T with bias or activation: the f32 chains (invar's 16-bit product with an f32 C),
// the epilogue on them in f32 (bias widened exactly), each element rounded once into q.c, which
// holds bfloat16 or float16 as x does. The same bits as the float32 linear on the widened operands,
// rounded.
invar_status half_linear_fused(Kind kind, const Call& q, const Array& bias, invar_bias bias_kind,
                               invar_activation act) {
  const int64_t count = q.m * q.n;
  std::unique_ptr<float[]> acc(new (std::nothrow) float[static_cast<size_t>(count)]);
  std::unique_ptr<float[]> bias32(
      bias_kind == INVAR_BIAS_NONE ? nullptr : new (std::nothrow) float[static_cast<size_t>(q.n)]);
  if (!acc || (bias_kind != INVAR_BIAS_NONE && !bias32)) throw std::bad_alloc();
  Call f32 = q;
  f32.c = {acc.get()};
  invar_status status = run(kind, Kind::kF32, f32);
  if (status != INVAR_OK) return status;
  nb::gil_scoped_release release;
  for (int64_t j = 0; bias32 && j < q.n; ++j)
    bias32[j] = kind == Kind::kBF16 ? numeric::widen(static_cast<const bf16*>(bias.data)[j])
                                    : numeric::widen(static_cast<const f16*>(bias.data)[j]);
  // K == 0 and beta == 1: each element's chain is its own value, then the epilogue.
  status = invar_sgemm_epilogue(INVAR_NO_TRANS, INVAR_NO_TRANS, q.m, q.n, 0, 1.0f, acc.get(), 1,
                                acc.get(), q.n, 1.0f, acc.get(), q.n, bias_kind, bias32.get(), act);
  if (status != INVAR_OK) return status;
  if (kind == Kind::kBF16) {
    auto* y = static_cast<bf16*>(q.c[0]);
    for (int64_t i = 0; i < count; ++i) y[i] = numeric::round_to_bf16(acc[i]);
  } else {
    auto* y = static_cast<f16*>(q.c[0]);
    for (int64_t i = 0; i < count; ++i) y[i] = numeric::round_to_f16(acc[i]);
  }
  return INVAR_OK;
}

// The lean path of linear: plain numpy x (2-D) and w of one float kind, a plain contiguous bias
// of that kind or none, every dimension nonzero and x and w readable in place. A null object,
// having done nothing, for anything else.
nb::object plain_linear(nb::handle x_obj, nb::handle w_obj, nb::handle bias_obj,
                        invar_activation act) {
  Matrix x, w, bias;
  if (!plain_matrix(x_obj, false, &x) || !plain_matrix(w_obj, false, &w) || w.kind != x.kind)
    return {};
  const int64_t rows = x.rows, in = x.cols, out = w.rows;
  if (w.cols != in || rows == 0 || in == 0 || out == 0) return {};
  const bool has_bias = !bias_obj.is_none();
  if (has_bias && (!plain_vector(bias_obj, &bias) || bias.kind != x.kind || bias.cols != out ||
                   (out > 1 && bias.cs != 1)))
    return {};
  const Layout lx = layout_of(rows, in, x.rs, x.cs), lw = layout_of(out, in, w.rs, w.cs);
  if (!lx.ok || !lw.ok) return {};
  // op(B) = w^T: w as stored is (out x in), which the library reads as B transposed.
  const invar_trans tb = lw.trans == INVAR_NO_TRANS ? INVAR_TRANS : INVAR_NO_TRANS;
  const invar_bias bias_kind = has_bias ? INVAR_BIAS_COLUMN : INVAR_BIAS_NONE;
  void* y_data;
  nb::object y = new_numpy_matrix(x.kind, rows, out, &y_data);
  invar_status status;
  {
    Unlocked unlocked(releases_gil(rows, out, in, 1));
    if (x.kind == Kind::kF32)
      status = invar_sgemm_epilogue(
          lx.trans, tb, rows, out, in, 1.0f, static_cast<const float*>(x.data), lx.ld,
          static_cast<const float*>(w.data), lw.ld, 0.0f, static_cast<float*>(y_data), out,
          bias_kind, static_cast<const float*>(bias.data), act);
    else
      status = invar_dgemm_epilogue(
          lx.trans, tb, rows, out, in, 1.0, static_cast<const double*>(x.data), lx.ld,
          static_cast<const double*>(w.data), lw.ld, 0.0, static_cast<double*>(y_data), out,
          bias_kind, static_cast<const double*>(bias.data), act);
  }
  if (status != INVAR_OK) raise_status(status);
  return y;
}

}  // namespace

nb::object linear(nb::handle x_obj, nb::handle w_obj, nb::handle bias_obj,
                  const std::optional<std::string>& activation_name) {
  const invar_activation act = activation_of(activation_name);
  if (nb::object r = plain_linear(x_obj, w_obj, bias_obj, act); r.is_valid()) return r;
  Array x = import_array(x_obj, "x", false);
  if (x.ndim() == 0) throw nb::value_error("invar.linear: x must have at least one dimension");
  Packed* packed = nullptr;
  Array w;
  int64_t in, out;
  if (nb::try_cast(w_obj, packed, false) && packed != nullptr) {
    in = packed->k;
    out = packed->n;
    if (packed->a_kind != x.kind)
      throw nb::type_error((std::string("invar.linear: x is ") + kind_name(x.kind) +
                            ", the packed weights take " + kind_name(packed->a_kind))
                               .c_str());
  } else {
    w = import_array(w_obj, "w", false);
    if (w.ndim() != 2)
      throw nb::value_error("invar.linear: w must be 2-D (out_features, in_features)");
    out = w.shape[0];
    in = w.shape[1];
    if (w.kind != x.kind && !(x.kind == Kind::kU8 && w.kind == Kind::kS8))
      throw nb::type_error(
          (std::string("invar.linear: x is ") + kind_name(x.kind) + ", w is " + kind_name(w.kind))
              .c_str());
  }
  const int nd = x.ndim();
  if (x.shape[nd - 1] != in)
    throw nb::value_error(("invar.linear: x has " + std::to_string(x.shape[nd - 1]) +
                           " features, the weights take " + std::to_string(in))
                              .c_str());
  const bool fused = act != INVAR_ACT_NONE || !bias_obj.is_none();
  const bool wide = x.kind == Kind::kF32 || x.kind == Kind::kF64;
  const bool half = x.kind == Kind::kBF16 || x.kind == Kind::kF16;
  if (!wide && !half && fused)
    throw nb::type_error((std::string("invar.linear: bias and activations take float32, float64, "
                                      "bfloat16 or float16, not ") +
                          kind_name(x.kind))
                             .c_str());
  // x as rows: the leading dimensions must collapse into one row stride, else one copy.
  int64_t rows = 1;
  for (int d = 0; d + 1 < nd; ++d) rows *= x.shape[d];
  auto collapsible = [&] {
    for (int d = 0; d + 2 < nd; ++d)
      if (x.shape[d] != 1 && x.strides[d] != x.strides[d + 1] * x.shape[d + 1]) return false;
    return true;
  };
  if (!collapsible()) x = contiguous_copy(x);
  const int64_t row_stride = nd >= 2 ? x.strides[nd - 2] : in;
  Layout lx = layout_of(rows, in, row_stride, x.strides[nd - 1]);
  if (!lx.ok) {
    x = contiguous_copy(x);
    lx = layout_of(rows, in, nd >= 2 ? x.strides[nd - 2] : in, 1);
  }
  Array bias;
  if (!bias_obj.is_none()) {
    bias = import_array(bias_obj, "bias", false);
    if (bias.ndim() != 1 || bias.shape[0] != out)
      throw nb::value_error(
          ("invar.linear: bias must have shape (" + std::to_string(out) + ",)").c_str());
    if (bias.kind != x.kind) throw nb::type_error("invar.linear: bias must have x's dtype");
    if (out > 1 && bias.strides[0] != 1) bias = contiguous_copy(bias);
  }
  std::vector<int64_t> shape(x.shape.begin(), x.shape.end() - 1);
  shape.push_back(out);
  Array y = new_array(is_integer(x.kind) ? Kind::kS32 : x.kind, shape, x.torch);
  if (rows == 0 || out == 0) return y.owner;
  const invar_bias bias_kind = bias_obj.is_none() ? INVAR_BIAS_NONE : INVAR_BIAS_COLUMN;
  invar_status status;
  if (packed != nullptr) {
    nb::gil_scoped_release release;
    if (x.kind == Kind::kS8)
      status =
          invar_gemm_s8s8s32_packed(lx.trans, rows, 1, static_cast<const int8_t*>(x.data), lx.ld,
                                    packed->handle, 0, static_cast<int32_t*>(y.data), out);
    else if (x.kind == Kind::kU8)
      status =
          invar_gemm_u8s8s32_packed(lx.trans, rows, 1, static_cast<const uint8_t*>(x.data), lx.ld,
                                    packed->handle, 0, static_cast<int32_t*>(y.data), out);
    else if (x.kind == Kind::kF32)
      status = invar_sgemm_packed_epilogue(
          lx.trans, rows, 1.0f, static_cast<const float*>(x.data), lx.ld, packed->handle, 0.0f,
          static_cast<float*>(y.data), out, bias_kind, static_cast<const float*>(bias.data), act);
    else
      status = invar_dgemm_packed_epilogue(
          lx.trans, rows, 1.0, static_cast<const double*>(x.data), lx.ld, packed->handle, 0.0,
          static_cast<double*>(y.data), out, bias_kind, static_cast<const double*>(bias.data), act);
  } else {
    // op(B) = w^T: w as stored is (out x in), which the library reads as B transposed.
    Layout lw = layout_of(out, in, w.strides[0], w.strides[1]);
    if (!lw.ok) {
      w = contiguous_copy(w);
      lw = layout_of(out, in, w.strides[0], w.strides[1]);
    }
    const invar_trans tb = lw.trans == INVAR_NO_TRANS ? INVAR_TRANS : INVAR_NO_TRANS;
    if (wide) {
      nb::gil_scoped_release release;
      if (x.kind == Kind::kF32)
        status = invar_sgemm_epilogue(
            lx.trans, tb, rows, out, in, 1.0f, static_cast<const float*>(x.data), lx.ld,
            static_cast<const float*>(w.data), lw.ld, 0.0f, static_cast<float*>(y.data), out,
            bias_kind, static_cast<const float*>(bias.data), act);
      else
        status = invar_dgemm_epilogue(
            lx.trans, tb, rows, out, in, 1.0, static_cast<const double*>(x.data), lx.ld,
            static_cast<const double*>(w.data), lw.ld, 0.0, static_cast<double*>(y.data), out,
            bias_kind, static_cast<const double*>(bias.data), act);
    } else {
      Call q;
      q.ta = lx.trans;
      q.tb = tb;
      q.m = rows;
      q.n = out;
      q.k = in;
      q.lda = lx.ld;
      q.ldb = lw.ld;
      q.ldc = out;
      q.a = {x.data};
      q.b = {w.data};
      q.c = {y.data};
      status = fused ? half_linear_fused(x.kind, q, bias, bias_kind, act) : run(x.kind, x.kind, q);
    }
  }
  if (status != INVAR_OK) raise_status(status);
  return y.owner;
}

Packed* pack_b(nb::handle w_obj, bool trans, const std::optional<std::string>& a_dtype) {
  Array w = import_array(w_obj, "w", false);
  if (w.ndim() != 2) throw nb::value_error("invar.pack_b: w must be 2-D");
  if (w.kind != Kind::kF32 && w.kind != Kind::kF64 && w.kind != Kind::kS8)
    throw nb::type_error(
        (std::string("invar.pack_b: packs float32, float64 or int8, not ") + kind_name(w.kind))
            .c_str());
  // The integer kernels differ with A's signedness, so int8 weights are packed for one A type.
  Kind a_kind = w.kind;
  if (a_dtype) {
    if (w.kind != Kind::kS8 || (*a_dtype != "int8" && *a_dtype != "uint8"))
      throw nb::type_error(
          ("invar.pack_b: a_dtype is for int8 weights, and is int8 or uint8, not " + *a_dtype)
              .c_str());
    a_kind = *a_dtype == "uint8" ? Kind::kU8 : Kind::kS8;
  }
  if (trans) {
    w.shape = reversed_dims(w.shape);
    w.strides = reversed_dims(w.strides);
  }
  const int64_t k = w.shape[0], n = w.shape[1];
  Layout l = layout_of(k, n, w.strides[0], w.strides[1]);
  if (!l.ok) {
    w = contiguous_copy(w);
    l = layout_of(k, n, w.strides[0], w.strides[1]);
  }
  auto p = std::make_unique<Packed>();
  p->kind = w.kind;
  p->a_kind = a_kind;
  p->k = k;
  p->n = n;
  invar_status status;
  {
    nb::gil_scoped_release release;
    switch (a_kind) {
      case Kind::kF32:
        status =
            invar_sgemm_pack_b(l.trans, k, n, static_cast<const float*>(w.data), l.ld, &p->handle);
        break;
      case Kind::kF64:
        status =
            invar_dgemm_pack_b(l.trans, k, n, static_cast<const double*>(w.data), l.ld, &p->handle);
        break;
      case Kind::kU8:
        status = invar_gemm_u8s8s32_pack_b(l.trans, k, n, static_cast<const int8_t*>(w.data), l.ld,
                                           &p->handle);
        break;
      default:
        status = invar_gemm_s8s8s32_pack_b(l.trans, k, n, static_cast<const int8_t*>(w.data), l.ld,
                                           &p->handle);
        break;
    }
  }
  if (status != INVAR_OK) raise_status(status);
  return p.release();
}

}  // namespace invar::python
