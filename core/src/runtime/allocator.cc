#include "rxt/runtime/allocator.h"

#include <cstdlib>
#include <cstring>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#define RXT_MAPS_LARGE_STORAGE 1
#endif

#include "rxt/support/error.h"

namespace rxt {
namespace {

// Large blocks (parameters, gradients, the VM's arenas) are mapped from the OS instead of taken
// from malloc: their pages come zeroed (no memset, and a zero tensor nobody writes costs no
// memory), and they go back to the OS the moment the storage dies. From malloc they would not:
// glibc raises its mmap threshold after the first large free, so later blocks land on its heap
// and a freed copy of a model's weights stays resident as holes.
constexpr size_t kMapThreshold = size_t{1} << 20;

bool Maps(size_t size, size_t alignment) {
#ifdef RXT_MAPS_LARGE_STORAGE
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size >= kMapThreshold && alignment <= page;
#else
  (void)size, (void)alignment;
  return false;
#endif
}

void* HeapAllocate(void*, size_t size, size_t alignment) {
#ifdef RXT_MAPS_LARGE_STORAGE
  if (Maps(size, alignment)) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
#endif
  return std::aligned_alloc(alignment, size);
}

void HeapDeallocate(void*, void* pointer, size_t size, size_t alignment) {
#ifdef RXT_MAPS_LARGE_STORAGE
  if (Maps(size, alignment)) {
    munmap(pointer, size);
    return;
  }
#endif
  std::free(pointer);
}

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
  // Mapped pages come zeroed from the OS; writing zeros would make them resident.
  bool zeroed = allocator.allocate == HeapAllocate && Maps(rounded, alignment);
  if (!zeroed) std::memset(p, 0, rounded);
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [allocator, rounded, alignment](std::byte* q) {
    allocator.deallocate(allocator.user_data, q, rounded, alignment);
  });
}

}  // namespace rxt
