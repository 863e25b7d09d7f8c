#ifndef CPREFETCH_H
#define CPREFETCH_H

/// Asks the CPU to bring the cache line holding `p` towards the core, for a
/// read, without waiting for it (GCC/Clang `__builtin_prefetch`). A hint
/// only: it never faults, and any address may be passed.
static inline __attribute__((always_inline)) void cpf_prefetch(const void *p) {
    __builtin_prefetch(p, 0, 3);
}

#endif
