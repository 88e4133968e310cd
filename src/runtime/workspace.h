// Packing workspaces.
//
// A GEMM call needs a packed A block, a packed B block and a scratch tile. Allocating them per
// call costs page faults on every call of a small product, so a Context keeps a pool of
// Workspaces: a call leases one, grows it if the problem needs more, and returns it. Concurrent
// calls on one context lease different workspaces, so they never share a buffer.
#ifndef INVAR_RUNTIME_WORKSPACE_H_
#define INVAR_RUNTIME_WORKSPACE_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace invar::runtime {

// Buffers handed out are aligned to this many bytes (a cache line on every supported CPU, and
// enough for aligned 512-bit loads).
inline constexpr std::size_t kBufferAlignment = 64;

class Workspace {
 public:
  Workspace() = default;
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // A buffer of at least `bytes`, aligned to 4 KiB; contents unspecified. Invalidates the
  // previous one. Throws std::bad_alloc.
  void* reserve(std::size_t bytes);
  std::size_t capacity() const { return capacity_; }

 private:
  void* data_ = nullptr;
  std::size_t capacity_ = 0;
};

class WorkspacePool {
 public:
  class Lease {
   public:
    Lease(WorkspacePool* pool, std::unique_ptr<Workspace> ws) : pool_(pool), ws_(std::move(ws)) {}
    ~Lease() { pool_->give_back(std::move(ws_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Workspace& operator*() { return *ws_; }
    Workspace* operator->() { return ws_.get(); }

   private:
    WorkspacePool* pool_;
    std::unique_ptr<Workspace> ws_;
  };

  Lease lease();

 private:
  void give_back(std::unique_ptr<Workspace> ws);
  std::mutex mu_;
  std::vector<std::unique_ptr<Workspace>> free_;
};

}  // namespace invar::runtime

#endif  // INVAR_RUNTIME_WORKSPACE_H_
