// invar — reproducible matrix multiplication, C++ API.
//
// The same engine as the C API (invar.h), with three small additions: a row-major matrix view
// that carries its shape, a Context that owns the threads and workspaces a call uses, and
// exceptions instead of status codes. Every result obeys the numeric contract stated in invar.h:
// one fma chain per output element in increasing k, so the bits never depend on batch size,
// threads, blocking, instruction set or machine.
//
//   std::vector<float> x(m * k), w(n * k), y(m * n);
//   invar::gemm(1.0f, invar::Op::kNoTrans, invar::MatrixView<const float>(x.data(), m, k),
//               invar::Op::kTrans, invar::MatrixView<const float>(w.data(), n, k),
//               0.0f, invar::MatrixView<float>(y.data(), m, n));        // y = x * w^T
#ifndef INVAR_INVAR_HPP_
#define INVAR_INVAR_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "invar/export.h"
#include "invar/invar.h"
#include "invar/types.h"  // bf16, f16, Isa, isa_name

namespace invar {

// ---- errors ----------------------------------------------------------------------------------

enum class Status { kOk = 0, kInvalidArgument = 1, kOutOfMemory = 2, kUnsupported = 3 };

class INVAR_API Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& what) : std::runtime_error(what), status_(status) {}
  Status status() const noexcept { return status_; }

 private:
  Status status_;
};

// A malformed argument: a shape mismatch, a short leading dimension, a null operand.
class INVAR_API InvalidArgument : public Error {
 public:
  explicit InvalidArgument(const std::string& what) : Error(Status::kInvalidArgument, what) {}
};

// Workspace or threads could not be allocated.
class INVAR_API OutOfMemory : public Error {
 public:
  explicit OutOfMemory(const std::string& what) : Error(Status::kOutOfMemory, what) {}
};

// The request cannot be met on this CPU or build (e.g. an instruction set it lacks).
class INVAR_API Unsupported : public Error {
 public:
  explicit Unsupported(const std::string& what) : Error(Status::kUnsupported, what) {}
};

// ---- matrix views ----------------------------------------------------------------------------

enum class Op { kNoTrans = 0, kTrans = 1 };

// A row-major rows x cols window into memory owned by the caller; ld is the distance in elements
// between consecutive rows (ld >= cols). A view never owns or allocates.
template <class T>
class MatrixView {
 public:
  MatrixView(T* data, int64_t rows, int64_t cols, int64_t ld)
      : data_(data), rows_(rows), cols_(cols), ld_(ld) {
    if (rows < 0 || cols < 0) throw InvalidArgument("invar::MatrixView: negative dimension");
    if (ld < cols) throw InvalidArgument("invar::MatrixView: ld < cols");
  }
  MatrixView(T* data, int64_t rows, int64_t cols) : MatrixView(data, rows, cols, cols) {}

  // A view of const elements converts implicitly from a view of mutable ones.
  template <class U, class = std::enable_if_t<std::is_same_v<T, const U>>>
  MatrixView(const MatrixView<U>& other)  // NOLINT(google-explicit-constructor)
      : data_(other.data()), rows_(other.rows()), cols_(other.cols()), ld_(other.ld()) {}

  T* data() const { return data_; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t ld() const { return ld_; }

  // The rows x cols sub-view whose top-left element is (row, col).
  MatrixView block(int64_t row, int64_t col, int64_t rows, int64_t cols) const {
    if (row < 0 || col < 0 || rows < 0 || cols < 0 || row + rows > rows_ || col + cols > cols_)
      throw InvalidArgument("invar::MatrixView::block: window outside the view");
    return MatrixView(data_ + row * ld_ + col, rows, cols, ld_);
  }

 private:
  T* data_;
  int64_t rows_, cols_, ld_;
};

// ---- contexts --------------------------------------------------------------------------------

struct ContextOptions {
  int num_threads = 0;   // 0: INVAR_NUM_THREADS, else OMP_NUM_THREADS, else the physical cores
  Isa isa = Isa::kAuto;  // kAuto: INVAR_ISA if set, else the best available path
  // Cache-block overrides in elements; 0 means "the model's choice" (or INVAR_MC/KC/NC if set).
  // They cannot change a result's bits, only its speed.
  int64_t mc = 0, kc = 0, nc = 0;
};

// A Context owns the threads and packing workspaces of the calls made through it; workspaces are
// allocated on first use and reused. Calls on one context from several threads are safe.
class INVAR_API Context {
 public:
  Context();  // default options, environment honoured
  explicit Context(const ContextOptions& options);
  ~Context();
  // Not movable: calls in flight and the default context hold references to it.
  Context(Context&&) = delete;
  Context& operator=(Context&&) = delete;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Isa isa() const;
  int num_threads() const;
  void set_num_threads(int n);  // 0 restores the default
  // The threads the context's products run on (invar_set_team_runner, invar_use_openmp_threads
  // in invar.h): a runner's, or (run == nullptr) the context's own.
  void set_team_runner(invar_team_runner run, void* user);
  // Runs products on the OpenMP runtime loaded in the process; throws Unsupported if there is
  // none. Returns the runtime's soname. use_own_threads() undoes either.
  std::string use_openmp_threads();
  void use_own_threads() { set_team_runner(nullptr, nullptr); }
  // "" on the context's own threads, else the runner's name ("OpenMP (libgomp.so.1)").
  std::string team_runner() const;

  // The context used by the C API and by gemm() without a context argument.
  static Context& default_context();

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// ---- GEMM ------------------------------------------------------------------------------------
//
// Views are taken by const reference. Passed by value, a view (32 bytes) goes through the stack,
// and the copies made of it read the caller's stores of its fields back in wider loads than
// they were written with, which the store buffer cannot forward: a 4 x 4 x 4 product through
// this header took 35-40 ns against 20-25 ns by reference (the Zen 3 of block_sizes.h, one
// thread), the C API's invar_sgemm 20.

// C <- alpha * op(A) * op(B) + beta * C. op(A) must be M x K, op(B) K x N and C M x N.
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const float>& a, Op op_b,
                    const MatrixView<const float>& b, float beta, const MatrixView<float>& c,
                    Context& context);

inline void gemm(float alpha, Op op_a, const MatrixView<const float>& a, Op op_b,
                 const MatrixView<const float>& b, float beta, const MatrixView<float>& c) {
  gemm(alpha, op_a, a, op_b, b, beta, c, Context::default_context());
}

// C <- A * B.
inline void gemm(const MatrixView<const float>& a, const MatrixView<const float>& b,
                 const MatrixView<float>& c) {
  gemm(1.0f, Op::kNoTrans, a, Op::kNoTrans, b, 0.0f, c);
}

// The same in double precision: the same chain over doubles.
INVAR_API void gemm(double alpha, Op op_a, const MatrixView<const double>& a, Op op_b,
                    const MatrixView<const double>& b, double beta, const MatrixView<double>& c,
                    Context& context);

inline void gemm(double alpha, Op op_a, const MatrixView<const double>& a, Op op_b,
                 const MatrixView<const double>& b, double beta, const MatrixView<double>& c) {
  gemm(alpha, op_a, a, op_b, b, beta, c, Context::default_context());
}

inline void gemm(const MatrixView<const double>& a, const MatrixView<const double>& b,
                 const MatrixView<double>& c) {
  gemm(1.0, Op::kNoTrans, a, Op::kNoTrans, b, 0.0, c);
}

// ---- one triangle ------------------------------------------------------------------------------

// Which triangle of a square C a product computes (gemmt): i <= j or i >= j, diagonal included.
enum class Uplo { kUpper, kLower };

// The uplo triangle of C <- alpha * op(A) * op(B) + beta * C, C square (op(A) N x K, op(B)
// K x N): each of its elements has the bits gemm gives it; the other triangle is neither read nor
// written (invar_sgemmt). With op(B) = op(A)^T it is syrk.
INVAR_API void gemmt(Uplo uplo, float alpha, Op op_a, const MatrixView<const float>& a, Op op_b,
                     const MatrixView<const float>& b, float beta, const MatrixView<float>& c,
                     Context& context = Context::default_context());
INVAR_API void gemmt(Uplo uplo, double alpha, Op op_a, const MatrixView<const double>& a, Op op_b,
                     const MatrixView<const double>& b, double beta, const MatrixView<double>& c,
                     Context& context = Context::default_context());

// ---- fused epilogues --------------------------------------------------------------------------

// Applied to each element once its chain has ended: C[i][j] = act(acc + bias), bias per row
// (bias_values[i]), per column (bias_values[j]) or none; the activations are invar's own fixed
// IEEE sequences (see invar_sgemm_epilogue in invar.h), the same bits on every machine. A fused
// call equals the plain call followed by the epilogue, bit for bit.
enum class Bias { kNone = 0, kPerRow = 1, kPerColumn = 2 };
enum class Activation { kNone = 0, kRelu = 1, kGeluTanh = 2, kSilu = 3 };

template <class T>
struct Epilogue {
  Bias bias = Bias::kNone;
  const T* bias_values = nullptr;  // m values per row, n per column
  Activation activation = Activation::kNone;
};

INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const float>& a, Op op_b,
                    const MatrixView<const float>& b, float beta, const MatrixView<float>& c,
                    const Epilogue<float>& epilogue, Context& context);
INVAR_API void gemm(double alpha, Op op_a, const MatrixView<const double>& a, Op op_b,
                    const MatrixView<const double>& b, double beta, const MatrixView<double>& c,
                    const Epilogue<double>& epilogue, Context& context);

// ---- prepacked operands ----------------------------------------------------------------------

namespace detail {
struct PackedOperand;  // the panels and what they were packed for (opaque)
}  // namespace detail

// op(B) packed once, ahead of time, into the micro-kernel's panel layout: weights reused by many
// products (M = 1 decode steps to M = 4096 prefills) skip packing on every call, and the bits
// equal those of the unpacked call. A PackedB belongs to the kernel of the context that packed it
// (the same instruction-set path); using it with a context on another path is an
// InvalidArgument. Immutable once made: any number of threads may read it at once.
class INVAR_API PackedB {
 public:
  PackedB(PackedB&&) noexcept;
  PackedB& operator=(PackedB&&) noexcept;
  ~PackedB();

  int64_t k() const;          // rows of op(B)
  int64_t n() const;          // columns of op(B)
  std::size_t bytes() const;  // size of the packed panels
  bool is_f64() const;

  using Impl = detail::PackedOperand;
  const Impl& impl() const;  // throws InvalidArgument when moved from
  explicit PackedB(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

INVAR_API PackedB pack_b(Op op_b, const MatrixView<const float>& b, Context& context);
INVAR_API PackedB pack_b(Op op_b, const MatrixView<const double>& b, Context& context);
inline PackedB pack_b(Op op_b, const MatrixView<const float>& b) {
  return pack_b(op_b, b, Context::default_context());
}
inline PackedB pack_b(Op op_b, const MatrixView<const double>& b) {
  return pack_b(op_b, b, Context::default_context());
}

// C <- alpha * op(A) * B + beta * C with B prepacked: the same bits as the unpacked call.
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const float>& a, const PackedB& b,
                    float beta, const MatrixView<float>& c, Context& context);
INVAR_API void gemm(double alpha, Op op_a, const MatrixView<const double>& a, const PackedB& b,
                    double beta, const MatrixView<double>& c, Context& context);
inline void gemm(float alpha, Op op_a, const MatrixView<const float>& a, const PackedB& b,
                 float beta, const MatrixView<float>& c) {
  gemm(alpha, op_a, a, b, beta, c, Context::default_context());
}
inline void gemm(double alpha, Op op_a, const MatrixView<const double>& a, const PackedB& b,
                 double beta, const MatrixView<double>& c) {
  gemm(alpha, op_a, a, b, beta, c, Context::default_context());
}
// With an epilogue: x * W^T + bias, activated, over prepacked weights.
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const float>& a, const PackedB& b,
                    float beta, const MatrixView<float>& c, const Epilogue<float>& epilogue,
                    Context& context);
INVAR_API void gemm(double alpha, Op op_a, const MatrixView<const double>& a, const PackedB& b,
                    double beta, const MatrixView<double>& c, const Epilogue<double>& epilogue,
                    Context& context);

// alpha * op(A) packed once into the micro-kernel's panel layout, alpha included (it is applied
// while packing, as every call does): a constant left operand (W * X) reused with any N. The
// same rules as PackedB: the bits equal the unpacked call's, the handle belongs to one kernel,
// and it is immutable.
class INVAR_API PackedA {
 public:
  PackedA(PackedA&&) noexcept;
  PackedA& operator=(PackedA&&) noexcept;
  ~PackedA();

  int64_t m() const;          // rows of op(A)
  int64_t k() const;          // columns of op(A)
  std::size_t bytes() const;  // size of the packed panels
  bool is_f64() const;

  using Impl = detail::PackedOperand;
  const Impl& impl() const;  // throws InvalidArgument when moved from
  explicit PackedA(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

INVAR_API PackedA pack_a(float alpha, Op op_a, const MatrixView<const float>& a, Context& context);
INVAR_API PackedA pack_a(double alpha, Op op_a, const MatrixView<const double>& a,
                         Context& context);
inline PackedA pack_a(float alpha, Op op_a, const MatrixView<const float>& a) {
  return pack_a(alpha, op_a, a, Context::default_context());
}
inline PackedA pack_a(double alpha, Op op_a, const MatrixView<const double>& a) {
  return pack_a(alpha, op_a, a, Context::default_context());
}

// C <- alpha * op(A) * op(B) + beta * C with alpha * op(A) prepacked (alpha is the one given to
// pack_a), and with both operands prepacked: the same bits as the unpacked call.
INVAR_API void gemm(const PackedA& a, Op op_b, const MatrixView<const float>& b, float beta,
                    const MatrixView<float>& c, Context& context);
INVAR_API void gemm(const PackedA& a, Op op_b, const MatrixView<const double>& b, double beta,
                    const MatrixView<double>& c, Context& context);
INVAR_API void gemm(const PackedA& a, const PackedB& b, float beta, const MatrixView<float>& c,
                    Context& context);
INVAR_API void gemm(const PackedA& a, const PackedB& b, double beta, const MatrixView<double>& c,
                    Context& context);
inline void gemm(const PackedA& a, Op op_b, const MatrixView<const float>& b, float beta,
                 const MatrixView<float>& c) {
  gemm(a, op_b, b, beta, c, Context::default_context());
}
inline void gemm(const PackedA& a, Op op_b, const MatrixView<const double>& b, double beta,
                 const MatrixView<double>& c) {
  gemm(a, op_b, b, beta, c, Context::default_context());
}
inline void gemm(const PackedA& a, const PackedB& b, float beta, const MatrixView<float>& c) {
  gemm(a, b, beta, c, Context::default_context());
}
inline void gemm(const PackedA& a, const PackedB& b, double beta, const MatrixView<double>& c) {
  gemm(a, b, beta, c, Context::default_context());
}

// ---- batches ---------------------------------------------------------------------------------

// c[i] <- alpha * op(a[i]) * op(b[i]) + beta * c[i] for i < batch, every product of one shape
// (leading dimensions may differ), each with exactly the bits of the single call: small products
// in parallel across the batch, large ones one after another on all threads. Every entry is
// checked before any is computed. The c[i] must not overlap each other or any a[i], b[i].
INVAR_API void gemm_batch(float alpha, Op op_a, const MatrixView<const float>* a, Op op_b,
                          const MatrixView<const float>* b, float beta, const MatrixView<float>* c,
                          std::size_t batch, Context& context);
INVAR_API void gemm_batch(double alpha, Op op_a, const MatrixView<const double>* a, Op op_b,
                          const MatrixView<const double>* b, double beta,
                          const MatrixView<double>* c, std::size_t batch, Context& context);

// ---- 16-bit inputs --------------------------------------------------------------------------

// bf16 or f16 operands, each element widened exactly to f32, then the f32 chain: C in f32 equals
// the f32 gemm on the widened operands bit for bit. With C in the 16-bit type, beta * C starts
// from C widened, the chains run in f32 to the end, and each result is rounded once (to nearest
// even) into C.
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const bf16>& a, Op op_b,
                    const MatrixView<const bf16>& b, float beta, const MatrixView<float>& c,
                    Context& context);
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const bf16>& a, Op op_b,
                    const MatrixView<const bf16>& b, float beta, const MatrixView<bf16>& c,
                    Context& context);
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const f16>& a, Op op_b,
                    const MatrixView<const f16>& b, float beta, const MatrixView<float>& c,
                    Context& context);
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const f16>& a, Op op_b,
                    const MatrixView<const f16>& b, float beta, const MatrixView<f16>& c,
                    Context& context);

template <class In, class Out,
          class = std::enable_if_t<(std::is_same_v<In, bf16> || std::is_same_v<In, f16>)>>
void gemm(float alpha, Op op_a, const MatrixView<const In>& a, Op op_b,
          const MatrixView<const In>& b, float beta, const MatrixView<Out>& c) {
  gemm(alpha, op_a, a, op_b, b, beta, c, Context::default_context());
}

// ---- 8-bit integers -------------------------------------------------------------------------

// s8 x s8 and u8 x s8 -> s32: C <- alpha * (op(A) . op(B)) + beta * C, exact modulo 2^32 (see
// invar_gemm_s8s8s32 in invar.h); every path and thread count gives the same bits.
INVAR_API void gemm(int32_t alpha, Op op_a, const MatrixView<const int8_t>& a, Op op_b,
                    const MatrixView<const int8_t>& b, int32_t beta, const MatrixView<int32_t>& c,
                    Context& context);
INVAR_API void gemm(int32_t alpha, Op op_a, const MatrixView<const uint8_t>& a, Op op_b,
                    const MatrixView<const int8_t>& b, int32_t beta, const MatrixView<int32_t>& c,
                    Context& context);
inline void gemm(int32_t alpha, Op op_a, const MatrixView<const int8_t>& a, Op op_b,
                 const MatrixView<const int8_t>& b, int32_t beta, const MatrixView<int32_t>& c) {
  gemm(alpha, op_a, a, op_b, b, beta, c, Context::default_context());
}
inline void gemm(int32_t alpha, Op op_a, const MatrixView<const uint8_t>& a, Op op_b,
                 const MatrixView<const int8_t>& b, int32_t beta, const MatrixView<int32_t>& c) {
  gemm(alpha, op_a, a, op_b, b, beta, c, Context::default_context());
}

// Prepacked int8 B (see invar_gemm_s8s8s32_pack_b in invar.h): packed for the products of an
// int8 A (pack_b_s8s8s32) or of a uint8 A (pack_b_u8s8s32), whose kernels differ; the products
// over it have the bits of the unpacked call. The rules of PackedB apply; a handle packed for
// the other A type, or for a floating-point call, throws InvalidArgument.
INVAR_API PackedB pack_b_s8s8s32(Op op_b, const MatrixView<const int8_t>& b, Context& context);
INVAR_API PackedB pack_b_u8s8s32(Op op_b, const MatrixView<const int8_t>& b, Context& context);
inline PackedB pack_b_s8s8s32(Op op_b, const MatrixView<const int8_t>& b) {
  return pack_b_s8s8s32(op_b, b, Context::default_context());
}
inline PackedB pack_b_u8s8s32(Op op_b, const MatrixView<const int8_t>& b) {
  return pack_b_u8s8s32(op_b, b, Context::default_context());
}
INVAR_API void gemm(int32_t alpha, Op op_a, const MatrixView<const int8_t>& a, const PackedB& b,
                    int32_t beta, const MatrixView<int32_t>& c, Context& context);
INVAR_API void gemm(int32_t alpha, Op op_a, const MatrixView<const uint8_t>& a, const PackedB& b,
                    int32_t beta, const MatrixView<int32_t>& c, Context& context);
inline void gemm(int32_t alpha, Op op_a, const MatrixView<const int8_t>& a, const PackedB& b,
                 int32_t beta, const MatrixView<int32_t>& c) {
  gemm(alpha, op_a, a, b, beta, c, Context::default_context());
}
inline void gemm(int32_t alpha, Op op_a, const MatrixView<const uint8_t>& a, const PackedB& b,
                 int32_t beta, const MatrixView<int32_t>& c) {
  gemm(alpha, op_a, a, b, beta, c, Context::default_context());
}

// Prepacked bf16 and f16 B (see invar_gemm_bf16bf16f32_pack_b in invar.h): kept in 16 bits, half
// the bytes of f32 panels, widened in registers by the decode step; the products over it, with
// an f32 or a 16-bit C, have the bits of the unpacked call. The rules of PackedB apply.
INVAR_API PackedB pack_b(Op op_b, const MatrixView<const bf16>& b, Context& context);
INVAR_API PackedB pack_b(Op op_b, const MatrixView<const f16>& b, Context& context);
inline PackedB pack_b(Op op_b, const MatrixView<const bf16>& b) {
  return pack_b(op_b, b, Context::default_context());
}
inline PackedB pack_b(Op op_b, const MatrixView<const f16>& b) {
  return pack_b(op_b, b, Context::default_context());
}
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const bf16>& a, const PackedB& b,
                    float beta, const MatrixView<float>& c, Context& context);
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const bf16>& a, const PackedB& b,
                    float beta, const MatrixView<bf16>& c, Context& context);
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const f16>& a, const PackedB& b,
                    float beta, const MatrixView<float>& c, Context& context);
INVAR_API void gemm(float alpha, Op op_a, const MatrixView<const f16>& a, const PackedB& b,
                    float beta, const MatrixView<f16>& c, Context& context);
template <class In, class Out,
          class = std::enable_if_t<(std::is_same_v<In, bf16> || std::is_same_v<In, f16>)>>
inline void gemm(float alpha, Op op_a, const MatrixView<const In>& a, const PackedB& b, float beta,
                 const MatrixView<Out>& c) {
  gemm(alpha, op_a, a, b, beta, c, Context::default_context());
}

// ---- batches of 16-bit and 8-bit products ----------------------------------------------------

// gemm_batch over the types of the 16-bit and 8-bit gemm overloads above, with their scalars: the
// same rules as the f32 gemm_batch, every entry with exactly the bits of its single call. A bf16
// or f16 C is computed on an f32 copy, as by the single call: m x n floats per product computed
// at once (one per thread when the batch runs in parallel), allocated before any product runs.
INVAR_API void gemm_batch(float alpha, Op op_a, const MatrixView<const bf16>* a, Op op_b,
                          const MatrixView<const bf16>* b, float beta, const MatrixView<float>* c,
                          std::size_t batch, Context& context);
INVAR_API void gemm_batch(float alpha, Op op_a, const MatrixView<const bf16>* a, Op op_b,
                          const MatrixView<const bf16>* b, float beta, const MatrixView<bf16>* c,
                          std::size_t batch, Context& context);
INVAR_API void gemm_batch(float alpha, Op op_a, const MatrixView<const f16>* a, Op op_b,
                          const MatrixView<const f16>* b, float beta, const MatrixView<float>* c,
                          std::size_t batch, Context& context);
INVAR_API void gemm_batch(float alpha, Op op_a, const MatrixView<const f16>* a, Op op_b,
                          const MatrixView<const f16>* b, float beta, const MatrixView<f16>* c,
                          std::size_t batch, Context& context);
INVAR_API void gemm_batch(int32_t alpha, Op op_a, const MatrixView<const int8_t>* a, Op op_b,
                          const MatrixView<const int8_t>* b, int32_t beta,
                          const MatrixView<int32_t>* c, std::size_t batch, Context& context);
INVAR_API void gemm_batch(int32_t alpha, Op op_a, const MatrixView<const uint8_t>* a, Op op_b,
                          const MatrixView<const int8_t>* b, int32_t beta,
                          const MatrixView<int32_t>* c, std::size_t batch, Context& context);

INVAR_API const char* version();

}  // namespace invar

#endif  // INVAR_INVAR_HPP_
