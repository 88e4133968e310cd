#include "runtime/workspace.h"

#include <cstdlib>
#include <new>

namespace invar::runtime {
namespace {
constexpr std::size_t kPage = 4096;
}

Workspace::~Workspace() { std::free(data_); }

void* Workspace::reserve(std::size_t bytes) {
  if (bytes <= capacity_) return data_;
  // Grow by at least half again, so a sequence of slowly growing problems reallocates rarely.
  std::size_t want = bytes > capacity_ + capacity_ / 2 ? bytes : capacity_ + capacity_ / 2;
  want = (want + kPage - 1) / kPage * kPage;
  void* fresh = std::aligned_alloc(kPage, want);
  if (fresh == nullptr) throw std::bad_alloc();
  std::free(data_);
  data_ = fresh;
  capacity_ = want;
  return data_;
}

WorkspacePool::Lease WorkspacePool::lease() {
  std::unique_ptr<Workspace> ws;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      ws = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (!ws) ws = std::make_unique<Workspace>();
  return Lease(this, std::move(ws));
}

void WorkspacePool::give_back(std::unique_ptr<Workspace> ws) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(std::move(ws));
}

}  // namespace invar::runtime
