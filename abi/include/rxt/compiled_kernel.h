/* compiled_kernel.h: the contract between code a backend compiles from a kernel (JIT in memory,
 * or ahead of time into a shared library) and whoever calls it (C99).
 *
 * A compiled kernel does no argument checking: the caller binds a call's DLPack tensors to the
 * kernel's parameters first (rxt/plugin_support/kernel_binding.h does it, with the checks and messages of the
 * reference backend) and passes what binding produced:
 *
 *   buffers   one data pointer per buffer of the kernel (plugin_support::kernel_format::Kernel::buffers, by
 *             index; byte_offset already applied). Entries of allocated buffers are unused.
 *   int_vars  one value per variable of the kernel (Kernel::vars, by index): symbolic dims,
 *             declared strides and integer scalar parameters are filled in; loop variables and
 *             block iterators are not read.
 *   float_vars  likewise, for float scalar parameters.
 *   runtime   the caller's services: a thread pool for parallel loops.
 *
 * It returns RXT_KERNEL_OK, RXT_KERNEL_DIVISION_BY_ZERO for an integer division by zero, or
 * RXT_KERNEL_OUT_OF_MEMORY when a local allocation fails.
 *
 * A library built ahead of time exports, for each kernel, one function of type
 * rxt_compiled_kernel_fn under the symbol named in the executable's kernel record, and
 * RXT_AOT_LIBRARY_INFO_SYMBOL (an rxt_aot_library_info_t). It links nothing of rxt and needs no
 * LLVM at run time.
 */
#ifndef RXT_COMPILED_KERNEL_H_
#define RXT_COMPILED_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RXT_KERNEL_OK 0
#define RXT_KERNEL_DIVISION_BY_ZERO 1
#define RXT_KERNEL_OUT_OF_MEMORY 2

/* What a kernel's return code means, for error messages. */
static inline const char* rxt_kernel_code_message(int32_t code) {
  switch (code) {
    case RXT_KERNEL_OK: return "ok";
    case RXT_KERNEL_DIVISION_BY_ZERO: return "integer division by zero";
    case RXT_KERNEL_OUT_OF_MEMORY: return "out of memory for a local allocation";
    default: return "failed with an unknown code";
  }
}

/* The body of a parallel loop: runs iterations [begin, end) with |closure|; returns
 * RXT_KERNEL_OK or an error code. */
typedef int32_t (*rxt_parallel_body_fn)(void* closure, int64_t begin, int64_t end);

typedef struct rxt_kernel_runtime_s {
  size_t struct_size; /* sizeof(rxt_kernel_runtime_t) */
  void* pool;         /* handed back to parallel_for */
  /* Runs |body| over [0, extent), split into contiguous chunks over the pool's threads (the
   * caller's thread takes part). Returns the first non-OK code of any chunk. A body may call
   * parallel_for again: the nested loop then runs serially on the calling thread. */
  int32_t (*parallel_for)(void* pool, int64_t extent, rxt_parallel_body_fn body, void* closure);
  int32_t num_threads; /* how many threads parallel_for may use, >= 1 */
  /* Appended (check struct_size): how many threads parallel_for(pool, ...) uses now. The table
   * the plugin host hands to plugins runs each loop on the calling thread's pool (a context's,
   * see rxt_context_t), so this can differ from num_threads from call to call. */
  int32_t (*current_num_threads)(void* pool);
} rxt_kernel_runtime_t;

typedef int32_t (*rxt_compiled_kernel_fn)(void* const* buffers, const int64_t* int_vars,
                                          const double* float_vars,
                                          const rxt_kernel_runtime_t* runtime);

#define RXT_AOT_LIBRARY_INFO_SYMBOL "rxt_aot_library_info"
#define RXT_AOT_LIBRARY_VERSION 1

/* What an ahead-of-time library says about itself. */
typedef struct rxt_aot_library_info_s {
  uint32_t version;         /* RXT_AOT_LIBRARY_VERSION */
  uint32_t kernel_format;   /* the portable kernel format version its kernels were built from */
  const char* target_triple;
  const char* target_cpu;   /* e.g. "sapphirerapids": the library may need its instructions */
  /* The CPU features it was compiled for, as LLVM names them: "+avx2,+avx512f,-amx-tile,...";
   * a loader checks the ones it knows against the machine it runs on. */
  const char* target_features;
} rxt_aot_library_info_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RXT_COMPILED_KERNEL_H_ */
