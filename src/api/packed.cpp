#include "api/packed.h"

#include <cstdint>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "api/context_impl.h"
#include "api/validation.h"
#include "driver/gemm_driver.h"
#include "runtime/fp_mode.h"

namespace invar {

namespace {

// A moved-from PackedA or PackedB holds nothing; every use of it is refused.
template <class Impl>
const Impl& held(const std::unique_ptr<Impl>& impl, const char* what) {
  if (impl == nullptr)
    throw InvalidArgument(std::string("invar: this ") + what +
                          " was moved from and holds no panels");
  return *impl;
}

}  // namespace

PackedB::PackedB(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PackedB::PackedB(PackedB&&) noexcept = default;
PackedB& PackedB::operator=(PackedB&&) noexcept = default;
PackedB::~PackedB() = default;

const PackedB::Impl& PackedB::impl() const { return held(impl_, "PackedB"); }
int64_t PackedB::k() const { return impl().k; }
int64_t PackedB::n() const { return impl().n; }
std::size_t PackedB::bytes() const { return impl().bytes; }
bool PackedB::is_f64() const { return impl().elem_bytes == 8; }

PackedA::PackedA(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PackedA::PackedA(PackedA&&) noexcept = default;
PackedA& PackedA::operator=(PackedA&&) noexcept = default;
PackedA::~PackedA() = default;

const PackedA::Impl& PackedA::impl() const { return held(impl_, "PackedA"); }
int64_t PackedA::m() const { return impl().m; }
int64_t PackedA::k() const { return impl().k; }
std::size_t PackedA::bytes() const { return impl().bytes; }
bool PackedA::is_f64() const { return impl().elem_bytes == 8; }

namespace api {
namespace {

// Retired handles, kept for reuse (see invar_packed).
struct RetiredHandles {
  std::mutex mutex;
  std::vector<invar_packed*> handles;
};
RetiredHandles& retired() {
  static RetiredHandles* r = new RetiredHandles;  // never destroyed: handles outlive statics
  return *r;
}

[[noreturn]] void fail(const std::string& message) { throw InvalidArgument(message); }
[[noreturn]] void fail(const char* function, const std::string& text) {
  fail(std::string(function) + ": " + text);
}

// Checks the arguments of either operand and makes its handle, with the panels allocated (not yet
// filled) when there are any. A is m x k, B is k x n; the other dimension is unused.
template <class T, class AIn>
std::unique_ptr<detail::PackedOperand> new_operand(Context::Impl& context, const char* function,
                                                   detail::PackedOperand::Side side, int trans,
                                                   int64_t m, int64_t k, int64_t n, const T* src,
                                                   int64_t ld) {
  const bool is_a = side == detail::PackedOperand::Side::kA;
  const char* t_name = is_a ? "ta" : "tb";
  if (!valid_trans(trans)) fail(invalid_trans_message(function, t_name, trans));
  if (is_a && m < 0) fail(negative_extent_message(function, "m", m));
  if (k < 0) fail(negative_extent_message(function, "k", k));
  if (!is_a && n < 0) fail(negative_extent_message(function, "n", n));
  const kernels::GemmKernel& kernel = kernels::kernel_for<AIn>(*context.kernels);
  auto packed = std::make_unique<detail::PackedOperand>();
  packed->side = side;
  packed->elem_bytes = sizeof(T);
  packed->elem_type = detail::elem_type_of<T>();
  packed->kernel = &kernel;
  packed->m = m;
  packed->k = k;
  packed->n = n;
  const int64_t outer = is_a ? m : n;  // the dimension cut into panels
  if (k == 0 || outer == 0) return packed;

  // A is stored m x k (k x m when transposed); B is stored k x n (n x k when transposed).
  const bool rows_of_k = is_a != (trans == 1);
  const int64_t stored_cols = rows_of_k ? k : outer;
  if (ld < stored_cols)
    fail(short_ld_message(function, is_a ? Operand::kA : Operand::kB, ld, trans == 1, stored_cols));
  if (src == nullptr) fail(function, is_a ? "a is NULL" : "b is NULL");
  const int64_t stored_rows = rows_of_k ? outer : k;
  const std::string unaddressable = check_span(function, is_a ? "a" : "b", is_a ? "lda" : "ldb",
                                               src, stored_rows, stored_cols, ld, sizeof(T));
  if (!unaddressable.empty()) fail(unaddressable);
  // The panels hold about outer * k elements; refuse sizes that overflow size_t.
  const int64_t tile = is_a ? kernel.mr : kernel.nr;
  const int64_t panels = outer / tile + 1;
  if (panels > std::numeric_limits<int64_t>::max() / tile / k / 8)
    throw OutOfMemory(std::string(function) + ": a " + std::to_string(is_a ? m : k) + " x " +
                      std::to_string(is_a ? k : n) + " operand is too large to pack");
  // A bf16 or f16 B stays 16-bit (narrow_panels): the decode step widens it in registers.
  packed->narrow_panels = !is_a && sizeof(T) == 2;
  packed->bytes = is_a                    ? driver::packed_a_bytes(kernel, m, k)
                  : packed->narrow_panels ? narrow_b_bytes(kernel, k, n)
                                          : driver::packed_b_bytes(kernel, k, n);
  packed->data.reset(std::aligned_alloc(runtime::kBufferAlignment, packed->bytes));
  if (packed->data == nullptr)
    throw OutOfMemory(std::string(function) + ": out of memory for " +
                      std::to_string(packed->bytes) + " bytes of packed panels");
  return packed;
}

}  // namespace

invar_packed* new_handle(std::unique_ptr<detail::PackedOperand> impl) {
  invar_packed* handle = nullptr;
  {
    RetiredHandles& r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.handles.empty()) {
      handle = r.handles.back();
      r.handles.pop_back();
    }
  }
  if (handle == nullptr) handle = new invar_packed;
  handle->impl = std::move(impl);
  handle->magic = invar_packed::kLive;
  return handle;
}

bool free_handle(invar_packed* handle) noexcept {
  if (handle == nullptr || reinterpret_cast<std::uintptr_t>(handle) % alignof(invar_packed) != 0)
    return false;
  RetiredHandles& r = retired();
  std::lock_guard<std::mutex> lock(r.mutex);  // two frees of one handle: one of them wins
  if (handle->magic != invar_packed::kLive) return false;
  handle->magic = 0;
  handle->impl.reset();
  try {
    r.handles.push_back(handle);
  } catch (const std::bad_alloc&) {
    delete handle;  // no room to keep it: this one handle is returned after all
  }
  return true;
}

const detail::PackedOperand& operand_of(const invar_packed* handle, const char* function,
                                        const char* name) {
  if (handle == nullptr) fail(function, std::string(name) + " is NULL");
  if (reinterpret_cast<std::uintptr_t>(handle) % alignof(invar_packed) != 0 ||
      handle->magic != invar_packed::kLive || handle->impl == nullptr)
    fail(function, std::string(name) +
                       " is not a live packed operand (freed already, or not made by a pack "
                       "function)");
  return *handle->impl;
}

template <class T, class AIn>
std::unique_ptr<detail::PackedOperand> pack_b(Context::Impl& context, const char* function,
                                              int trans_b, int64_t k, int64_t n, const T* b,
                                              int64_t ldb) {
  auto packed = new_operand<T, AIn>(context, function, detail::PackedOperand::Side::kB, trans_b, 0,
                                    k, n, b, ldb);
  if (packed->data != nullptr && packed->narrow_panels) {
    pack_narrow_b(*packed->kernel, k, n, reinterpret_cast<const uint16_t*>(b), trans_b ? 1 : ldb,
                  trans_b ? ldb : 1, static_cast<uint16_t*>(packed->data.get()));
  } else if (packed->data != nullptr) {
    driver::pack_b_whole(*packed->kernel, k, n, b, trans_b ? 1 : ldb, trans_b ? ldb : 1,
                         packed->data.get());
  }
  return packed;
}

template <class T>
std::unique_ptr<detail::PackedOperand> pack_a(Context::Impl& context, const char* function,
                                              int trans_a, int64_t m, int64_t k, T alpha,
                                              const T* a, int64_t lda) {
  auto packed = new_operand<T, T>(context, function, detail::PackedOperand::Side::kA, trans_a, m, k,
                                  0, a, lda);
  packed->alpha = alpha;
  if (packed->data != nullptr) {
    runtime::FpModeGuard fp_mode;  // alpha * a is rounded as in every call
    driver::pack_a_whole(*packed->kernel, m, k, a, trans_a ? 1 : lda, trans_a ? lda : 1, &alpha,
                         packed->data.get());
  }
  return packed;
}

#define INVAR_PACK_B(T, AIn)                                      \
  template std::unique_ptr<detail::PackedOperand> pack_b<T, AIn>( \
      Context::Impl&, const char*, int, int64_t, int64_t, const T*, int64_t);
INVAR_PACK_B(float, float)
INVAR_PACK_B(double, double)
INVAR_PACK_B(int8_t, int8_t)
INVAR_PACK_B(int8_t, uint8_t)
INVAR_PACK_B(bf16, bf16)
INVAR_PACK_B(f16, f16)
#undef INVAR_PACK_B

#define INVAR_PACK_A(T)                                      \
  template std::unique_ptr<detail::PackedOperand> pack_a<T>( \
      Context::Impl&, const char*, int, int64_t, int64_t, T, const T*, int64_t);
INVAR_PACK_A(float)
INVAR_PACK_A(double)
#undef INVAR_PACK_A

}  // namespace api
}  // namespace invar
