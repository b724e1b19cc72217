// Where tensor storage and VM arenas come from: the heap (std::aligned_alloc; blocks of 1 MiB
// and more are mapped from the OS, so they leave memory when freed), or the allocator that the
// running call's context installed on this thread (rxt_context_options_t's allocator hooks).
// Storage remembers the allocator that gave it, so it goes back there wherever it is freed.
//
//   Allocator counting{.allocate = MyAlloc, .deallocate = MyFree, .user_data = &stats};
//   Allocator::Scope use(&counting);                     // this thread, while |use| lives
//   std::shared_ptr<std::byte> block = AllocateZeroed(1000, 64);
#pragma once

#include <cstddef>
#include <memory>

namespace rxt {

struct Allocator {
  /// |size| bytes aligned to |alignment| (a power of two), or null when out of memory.
  void* (*allocate)(void* user_data, size_t size, size_t alignment) = nullptr;
  /// Gives back what |allocate| returned, with the same size and alignment.
  void (*deallocate)(void* user_data, void* pointer, size_t size, size_t alignment) = nullptr;
  void* user_data = nullptr;

  /// The allocator this thread's allocations use: the innermost Scope's, else the heap's.
  static const Allocator& Current();

  /// Makes |allocator| this thread's while it lives (null: leaves the current one).
  class Scope {
   public:
    explicit Scope(const Allocator* allocator);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const Allocator* saved_;
    bool set_;
  };
};

/// Zero-filled storage of at least one |alignment| unit (|nbytes| rounded up to a multiple of
/// it) from Allocator::Current(), freed into the same allocator. kInternal "out of memory
/// allocating <what>" when the allocator has none.
std::shared_ptr<std::byte> AllocateZeroed(size_t nbytes, size_t alignment, const char* what);

}  // namespace rxt
