#define _GNU_SOURCE
#include "CBatchUDP.h"
#include <malloc.h>

#include <errno.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>

#define MAX_BATCH 1024

int cbu_send_to_batch(int fd, const uint8_t *bytes, const uint32_t *offsets,
                      const uint32_t *lengths, const uint8_t *addrs,
                      const uint32_t *addrlens, int count) {
    struct mmsghdr msgs[MAX_BATCH];
    struct iovec iov[MAX_BATCH];
    if (count > MAX_BATCH) count = MAX_BATCH;
    memset(msgs, 0, sizeof(struct mmsghdr) * (size_t)count);
    for (int i = 0; i < count; i++) {
        iov[i].iov_base = (void *)(bytes + offsets[i]);
        iov[i].iov_len = lengths[i];
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        if (addrs) {
            msgs[i].msg_hdr.msg_name = (void *)(addrs + (size_t)i * CBU_ADDR_SLOT);
            msgs[i].msg_hdr.msg_namelen = addrlens[i];
        }
    }
    return sendmmsg(fd, msgs, (unsigned)count, 0);
}

int cbu_send_batch(int fd, const uint8_t *bytes, const uint32_t *offsets,
                   const uint32_t *lengths, int count) {
    return cbu_send_to_batch(fd, bytes, offsets, lengths, NULL, NULL, count);
}

int cbu_recv_from_batch(int fd, uint8_t *bytes, uint32_t slot, uint32_t *lengths,
                        uint8_t *addrs, uint32_t *addrlens, int count) {
    struct mmsghdr msgs[MAX_BATCH];
    struct iovec iov[MAX_BATCH];
    if (count > MAX_BATCH) count = MAX_BATCH;
    memset(msgs, 0, sizeof(struct mmsghdr) * (size_t)count);
    for (int i = 0; i < count; i++) {
        iov[i].iov_base = bytes + (size_t)i * slot;
        iov[i].iov_len = slot;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        if (addrs) {
            msgs[i].msg_hdr.msg_name = addrs + (size_t)i * CBU_ADDR_SLOT;
            msgs[i].msg_hdr.msg_namelen = CBU_ADDR_SLOT;
        }
    }
    int n = recvmmsg(fd, msgs, (unsigned)count, MSG_DONTWAIT, NULL);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    for (int i = 0; i < n; i++) {
        lengths[i] = msgs[i].msg_len;
        if (addrs) addrlens[i] = msgs[i].msg_hdr.msg_namelen;
    }
    return n;
}

int cbu_recv_batch(int fd, uint8_t *bytes, uint32_t slot, uint32_t *lengths, int count) {
    return cbu_recv_from_batch(fd, bytes, slot, lengths, NULL, NULL, count);
}

int cbu_wait_readable(int fd, int64_t nanoseconds) {
    struct pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
    struct timespec ts = {.tv_sec = nanoseconds / 1000000000, .tv_nsec = nanoseconds % 1000000000};
    return ppoll(&p, 1, &ts, NULL);
}

int cbu_malloc_trim(unsigned long pad) { return malloc_trim(pad); }

int cbu_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int cbu_set_max_fast(int bytes) { return mallopt(M_MXFAST, bytes); }
