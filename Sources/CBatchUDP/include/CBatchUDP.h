#ifndef CBATCHUDP_H
#define CBATCHUDP_H
// Batched UDP calls (sendmmsg(2), recvmmsg(2)): Linux declares them only under
// _GNU_SOURCE, which Swift's Glibc module does not see.
#include <stdint.h>

/// Sends `count` datagrams on the connected socket `fd`; datagram i is the
/// `lengths[i]` bytes at `bytes + offsets[i]`. Returns how many were sent
/// (one sendmmsg call, at most 1024), or -1 with errno set.
int cbu_send_batch(int fd, const uint8_t *bytes, const uint32_t *offsets,
                   const uint32_t *lengths, int count);

/// Receives, without waiting, up to `count` datagrams (at most 1024), datagram i
/// into the `slot` bytes at `bytes + i * slot`, its size into `lengths[i]`.
/// Returns how many arrived: 0 when none was waiting, -1 on another error.
int cbu_recv_batch(int fd, uint8_t *bytes, uint32_t slot, uint32_t *lengths, int count);

/// Bytes set aside per peer address in the `_from`/`_to` calls (a
/// `struct sockaddr_storage`).
#define CBU_ADDR_SLOT 128

/// As `cbu_recv_batch`, on an unconnected socket: also the sender of
/// datagram i, `addrlens[i]` bytes at `addrs + i * CBU_ADDR_SLOT` (none
/// when `addrs` is NULL).
int cbu_recv_from_batch(int fd, uint8_t *bytes, uint32_t slot, uint32_t *lengths,
                        uint8_t *addrs, uint32_t *addrlens, int count);

/// As `cbu_send_batch`, on an unconnected socket: datagram i goes to the
/// `addrlens[i]`-byte address at `addrs + i * CBU_ADDR_SLOT` (to the
/// connected peer when `addrs` is NULL).
int cbu_send_to_batch(int fd, const uint8_t *bytes, const uint32_t *offsets,
                      const uint32_t *lengths, const uint8_t *addrs,
                      const uint32_t *addrlens, int count);

/// Waits until `fd` is readable or `nanoseconds` pass (ppoll(2)). Returns 1
/// when readable, 0 on timeout, -1 on error.
int cbu_wait_readable(int fd, int64_t nanoseconds);

/// Returns free heap memory to the system (glibc's malloc_trim(3), which
/// Swift's Glibc module does not declare: it lives in <malloc.h>). `pad`:
/// bytes to keep at the top of the heap. Returns 1 when memory was released.
int cbu_malloc_trim(unsigned long pad);

/// Fixes the size from which glibc gives a block a mapping of its own
/// (mallopt(3), M_MMAP_THRESHOLD: otherwise it rises with the largest
/// mapped block freed). Returns 1 on success.
int cbu_set_mmap_threshold(int bytes);

/// Sets the largest request glibc serves from its "fastbins" (mallopt(3),
/// M_MXFAST; 0 turns them off). Returns 1 on success.
int cbu_set_max_fast(int bytes);

#endif
