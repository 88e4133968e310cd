#include "api/packed.h"

#include <limits>
#include <new>
#include <string>

#include "api/context_impl.h"
#include "driver/gemm_driver.h"

namespace invar {

PackedB::PackedB(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PackedB::PackedB(PackedB&&) noexcept = default;
PackedB& PackedB::operator=(PackedB&&) noexcept = default;
PackedB::~PackedB() = default;

int64_t PackedB::k() const { return impl_->k; }
int64_t PackedB::n() const { return impl_->n; }
std::size_t PackedB::bytes() const { return impl_->bytes; }
bool PackedB::is_f64() const { return impl_->elem_bytes == 8; }

namespace api {

template <class T>
std::unique_ptr<PackedB::Impl> pack_b(Context::Impl& context, const char* function, int trans_b,
                                      int64_t k, int64_t n, const T* b, int64_t ldb) {
  auto fail = [&](const std::string& text) {
    throw InvalidArgument(std::string(function) + ": " + text);
  };
  if (trans_b != 0 && trans_b != 1)
    fail("tb = " + std::to_string(trans_b) + " is neither INVAR_NO_TRANS nor INVAR_TRANS");
  if (k < 0) fail("k = " + std::to_string(k) + " is negative");
  if (n < 0) fail("n = " + std::to_string(n) + " is negative");
  const kernels::GemmKernel& kernel = kernels::kernel_for<T>(*context.kernels);
  auto packed = std::make_unique<PackedB::Impl>();
  packed->elem_bytes = sizeof(T);
  packed->kernel = &kernel;
  packed->k = k;
  packed->n = n;
  if (k == 0 || n == 0) return packed;

  const int64_t cols = trans_b ? k : n;  // B is stored k x n, or n x k when transposed
  if (ldb < cols)
    fail("ldb = " + std::to_string(ldb) + " is smaller than " + (trans_b ? "k = " : "n = ") +
         std::to_string(cols) + (trans_b ? " (B is transposed, stored n x k)" : ""));
  if (b == nullptr) fail("b is NULL");
  // The panels hold ceil(n / NR) * NR * k elements; refuse sizes that overflow size_t.
  const int64_t panels = n / kernel.nr + 1;
  if (panels > std::numeric_limits<int64_t>::max() / kernel.nr / k / 8)
    throw OutOfMemory(std::string(function) + ": a " + std::to_string(k) + " x " +
                      std::to_string(n) + " operand is too large to pack");
  packed->bytes = driver::packed_b_bytes(kernel, k, n);
  packed->data.reset(std::aligned_alloc(runtime::kBufferAlignment, packed->bytes));
  if (packed->data == nullptr)
    throw OutOfMemory(std::string(function) + ": out of memory for " +
                      std::to_string(packed->bytes) + " bytes of packed panels");
  driver::pack_b_whole(kernel, k, n, b, trans_b ? 1 : ldb, trans_b ? ldb : 1, packed->data.get());
  return packed;
}

template std::unique_ptr<PackedB::Impl> pack_b<float>(Context::Impl&, const char*, int, int64_t,
                                                      int64_t, const float*, int64_t);
template std::unique_ptr<PackedB::Impl> pack_b<double>(Context::Impl&, const char*, int, int64_t,
                                                       int64_t, const double*, int64_t);

}  // namespace api
}  // namespace invar
