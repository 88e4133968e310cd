// A buffer against an inaccessible page, so reading or writing even one element outside it
// faults at once instead of passing silently (the habit of ruy's test.h). By default the buffer
// ends right before the page (an overrun faults); GuardAt::kStart puts the page right before its
// first element instead (an underrun, say a negative offset or a tile loaded from before the
// start, faults).
#ifndef INVAR_TESTS_SUPPORT_GUARDED_BUFFER_H_
#define INVAR_TESTS_SUPPORT_GUARDED_BUFFER_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace invar::test {

enum class GuardAt { kEnd, kStart };

template <class T>
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t count, GuardAt at = GuardAt::kEnd) : count_(count) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t bytes = count * sizeof(T);
    const std::size_t data_pages = (bytes + page - 1) / page;
    total_ = (data_pages + 1) * page;
    void* p = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    base_ = static_cast<char*>(p);
    char* guard = at == GuardAt::kEnd ? base_ + data_pages * page : base_;
    if (mprotect(guard, page, PROT_NONE) != 0) throw std::runtime_error("mprotect failed");
    data_ = at == GuardAt::kEnd ? reinterpret_cast<T*>(base_ + data_pages * page - bytes)
                                : reinterpret_cast<T*>(base_ + page);
  }
  ~GuardedBuffer() { munmap(base_, total_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  T* data() { return data_; }
  std::size_t size() const { return count_; }

 private:
  std::size_t count_;
  std::size_t total_ = 0;
  char* base_ = nullptr;
  T* data_ = nullptr;
};

}  // namespace invar::test

#endif  // INVAR_TESTS_SUPPORT_GUARDED_BUFFER_H_
