/*===- executor_runtime.h - The executor runtime C ABI ------------*- C -*-===*\
|*                                                                            *|
|* The functions that code lowered by convert-executor-to-llvm calls. Names   *|
|* and signatures are those of Catalyst's executor C API, except              *|
|* __executor__launch_at_site, this project's own; docs/runtime-abi.md says   *|
|* what each argument holds and the layouts Catalyst leaves open.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef EXECUTOR_RUNTIME_H
#define EXECUTOR_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens (or returns the already open) session with the executor at `addr`;
 * returns a non-zero session handle. */
int64_t __catalyst__executor__open(const char *addr);

/* Loads the file at `path` into the session, once per path. `format`: 0 (object
 * file: relocatable, JIT-linked), 1 (asset: stored under its base name, not
 * loaded) or 2 (shared library: opened with dlopen). Returns 0 on success. */
int64_t __catalyst__executor__send_binary(int64_t session, const char *path,
                                          uint32_t format);

/* Runs `entry_symbol` of the loaded `object` and waits for it. `input_descs`
 * and `output_descs` point at `num_inputs`/`num_outputs` pointers to strided
 * memref descriptors; `*_ranks` and `*_elem_sizes` give each one's rank and
 * element size in bytes. The output descriptors are filled by the runtime with
 * buffers the caller releases with free(). */
void __catalyst__executor__launch(int64_t session, const char *entry_symbol,
                                  const char *object, size_t num_inputs,
                                  void *const *input_descs,
                                  const size_t *input_ranks,
                                  const size_t *input_elem_sizes,
                                  size_t num_outputs, void *const *output_descs,
                                  const size_t *output_ranks,
                                  const size_t *output_elem_sizes);

/* A launch site: what the launches of one kernel, object and argument
 * signature pass unchanged, after an 8-byte aligned 40-byte block of the
 * runtime's own cache, zero-initialized, which only the runtime reads and
 * writes. The fields are those of __catalyst__executor__launch. */
struct executor_launch_site {
  uint64_t cache[5];
  const char *entry_symbol;
  const char *object;
  size_t num_inputs;
  const size_t *input_ranks;
  const size_t *input_elem_sizes;
  size_t num_outputs;
  const size_t *output_ranks;
  const size_t *output_elem_sizes;
  /* The results' static sizes, output_ranks[i] of them for output i, -1 where
   * dynamic (null when the results have no dimensions): results a server sends
   * are held to them. */
  const int64_t *output_sizes;
};

/* __catalyst__executor__launch with the arguments `site` fixes. The first
 * launch of a site resolves the entry and caches it; the next ones on the same
 * session call the entry directly while the session stays open. */
void __executor__launch_at_site(struct executor_launch_site *site,
                                int64_t session, void *const *input_descs,
                                void *const *output_descs);

/* Starts the `void(void)` function `entry_symbol` of `object` on a background
 * thread of the executor; returns a token for __catalyst__executor__await. */
int64_t __catalyst__executor__launch_async(int64_t session,
                                           const char *entry_symbol,
                                           const char *object);

/* Blocks until the launch behind `token` has finished. Each token is awaited
 * exactly once. */
void __catalyst__executor__await(int64_t token);

/* Calls `symbol` of a loaded shared library with the packed inputs in
 * `args_buf` (`args_size` bytes); stores a runtime-owned buffer of packed
 * results in `*out_buf` (`*out_size` bytes), to be released with
 * __catalyst__executor__free_result. Returns 0 on success. */
int32_t __catalyst__executor__call_wrapper(int64_t session, const char *symbol,
                                           const char *args_buf,
                                           size_t args_size, void **out_buf,
                                           size_t *out_size);

/* Releases a result buffer of __catalyst__executor__call_wrapper. */
void __catalyst__executor__free_result(void *buf);

/* Waits for the session's outstanding async launches, then releases it and
 * everything it loaded. Returns 0 on success. */
int64_t __catalyst__executor__close(int64_t session);

#ifdef __cplusplus
}
#endif

#endif /* EXECUTOR_RUNTIME_H */
