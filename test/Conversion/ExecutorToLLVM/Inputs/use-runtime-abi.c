/* Takes the address of every function of the runtime ABI, so that clang emits
 * a declaration for each, typed from include/executor_runtime.h. */
#include "executor_runtime.h"

void *const runtime_abi[] = {
    (void *)__catalyst__executor__open,
    (void *)__catalyst__executor__send_binary,
    (void *)__catalyst__executor__launch,
    (void *)__executor__launch_at_site,
    (void *)__catalyst__executor__launch_async,
    (void *)__catalyst__executor__await,
    (void *)__catalyst__executor__call_wrapper,
    (void *)__catalyst__executor__free_result,
    (void *)__catalyst__executor__close,
};
