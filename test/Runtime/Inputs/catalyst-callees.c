// Callees in the forms Catalyst's executor uses: ORC wrapper functions for
// executor.call (the inputs' raw bytes in, the outputs' raw bytes out) and a
// `_catalyst_pyface_` entry for executor.launch_async.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// LLVM's CWrapperFunctionResult: bytes inline when they fit in a pointer,
// else in a malloc'ed buffer; size 0 with a pointer is an error message.
typedef struct {
  union {
    char *pointer;
    char bytes[sizeof(char *)];
  } data;
  size_t size;
} wrapper_buffer;

static wrapper_buffer on_heap(size_t size) {
  wrapper_buffer result;
  result.data.pointer = malloc(size);
  result.size = size;
  return result;
}

// float[4] -> float[4], each doubled: 16 bytes, returned on the heap.
wrapper_buffer double_floats(const char *args, size_t size) {
  wrapper_buffer result = on_heap(size);
  const float *in = (const float *)args;
  float *out = (float *)result.data.pointer;
  for (size_t i = 0; i < size / sizeof(float); ++i)
    out[i] = 2 * in[i];
  return result;
}

// float[2] -> float[2], negated: 8 bytes, returned inline.
wrapper_buffer negate_pair(const char *args, size_t size) {
  wrapper_buffer result;
  float pair[2];
  memcpy(pair, args, sizeof pair);
  pair[0] = -pair[0];
  pair[1] = -pair[1];
  memcpy(result.data.bytes, pair, sizeof pair);
  result.size = size;
  return result;
}

// () -> char[8]: the first 8 bytes of the asset greeting.txt, which a kernel
// opens by its base name in its working directory; returned inline.
wrapper_buffer read_greeting(const char *args, size_t size) {
  (void)args;
  (void)size;
  wrapper_buffer result;
  result.size = 8;
  FILE *file = fopen("greeting.txt", "rb");
  if (!file || fread(result.data.bytes, 1, 8, file) != 8)
    memcpy(result.data.bytes, "missing!", 8);
  if (file)
    fclose(file);
  return result;
}

// Fails with a message, as a wrapper function reports errors.
wrapper_buffer refuse(const char *args, size_t size) {
  (void)args;
  (void)size;
  wrapper_buffer result;
  result.data.pointer = strdup("refused: no input is acceptable");
  result.size = 0;
  return result;
}

// launch_async runs Catalyst's entries with two null pointers.
void _catalyst_pyface_warm_up(void *results, void *args) {
  if (results || args)
    abort();
  puts("warmed up");
  fflush(stdout);
}
