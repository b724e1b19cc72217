#include "rxt/runtime/allocator.h"

#include <cstdlib>
#include <cstring>

#include "rxt/support/error.h"

namespace rxt {
namespace {

void* HeapAllocate(void*, size_t size, size_t alignment) { return std::aligned_alloc(alignment, size); }
void HeapDeallocate(void*, void* pointer, size_t, size_t) { std::free(pointer); }

const Allocator kHeap{.allocate = HeapAllocate, .deallocate = HeapDeallocate, .user_data = nullptr};

thread_local const Allocator* current = nullptr;

}  // namespace

const Allocator& Allocator::Current() { return current != nullptr ? *current : kHeap; }

Allocator::Scope::Scope(const Allocator* allocator) : saved_(current), set_(allocator != nullptr) {
  if (set_) current = allocator;
}

Allocator::Scope::~Scope() {
  if (set_) current = saved_;
}

std::shared_ptr<std::byte> AllocateZeroed(size_t nbytes, size_t alignment, const char* what) {
  size_t rounded = (nbytes + alignment - 1) / alignment * alignment;
  if (rounded == 0) rounded = alignment;
  // A copy: the storage may outlive the scope that installed the allocator.
  Allocator allocator = Allocator::Current();
  void* p = allocator.allocate(allocator.user_data, rounded, alignment);
  if (p == nullptr) Throw(ErrorCode::kInternal, "out of memory allocating ", what, " of ", nbytes, " bytes");
  if (reinterpret_cast<uintptr_t>(p) % alignment != 0) {
    allocator.deallocate(allocator.user_data, p, rounded, alignment);
    Throw(ErrorCode::kInternal, "the context's allocator returned memory not aligned to ", alignment, " bytes");
  }
  std::memset(p, 0, rounded);
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [allocator, rounded, alignment](std::byte* q) {
    allocator.deallocate(allocator.user_data, q, rounded, alignment);
  });
}

}  // namespace rxt
