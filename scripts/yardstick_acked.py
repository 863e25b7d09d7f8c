#!/usr/bin/env python3
"""The C yardstick, made to acknowledge like fleetd: a like-for-like baseline.

`../shared/bench/cref/e2e_bench.c` (recvmmsg -> parse -> 500 m grid -> SQLite)
sends no replies; fleetd acknowledges every datagram after its commit. This
writes a copy of the yardstick's source with exactly that added, so `make bench`
can show how much of the gap the acknowledgements are:

- each ring record keeps its sender's address;
- after each COMMIT the database thread sends one 7-byte reply per stored
  datagram to its sender (sendmmsg, 64 at a time), as fleetd's writer does;
- the load generator gets a 16 MiB receive buffer, drains the replies after
  every send, and at the end until none came for 0.5 s;
- a fix counts as persisted only when it was also acknowledged.

Everything else (pacing, pinning, batch sizes, the TSV row) is the yardstick's.
Each edit names the text it expects; if the yardstick's source changed, this
says which edit no longer applies and exits 1.

usage: yardstick_acked.py SOURCE.c OUTPUT.c
"""

import sys

EDITS = [
    (
        "the sender's address in each ring record",
        "typedef struct { int64_t dev, ts; double lat, lon, speed, course, alt; int nmatch; } Rec;",
        "typedef struct { int64_t dev, ts; double lat, lon, speed, course, alt; int nmatch;"
        " struct sockaddr_in from; } Rec;",
    ),
    (
        "the receiver keeps it",
        "                r->nmatch = m;\n",
        "                r->nmatch = m;\n                r->from = src[i];\n",
    ),
    (
        "replies after each commit",
        '        ex(db, "COMMIT");\n',
        """        ex(db, "COMMIT");
        {   // acknowledge after the commit: one 7-byte reply per stored datagram
            static struct mmsghdr am[BATCH];
            static struct iovec aiov[BATCH];
            static char reply[7] = {0, 5, 0, 1, 1, 1, 1};
            uint64_t k = 0;
            while (k < n) {
                int c = 0;
                for (; c < BATCH && k + c < n; c++) {
                    Rec *r = &ring[(t + k + c) & (RING - 1)];
                    aiov[c].iov_base = reply; aiov[c].iov_len = sizeof reply;
                    memset(&am[c], 0, sizeof am[c]);
                    am[c].msg_hdr.msg_iov = &aiov[c]; am[c].msg_hdr.msg_iovlen = 1;
                    am[c].msg_hdr.msg_name = &r->from; am[c].msg_hdr.msg_namelen = sizeof r->from;
                }
                int s = sendmmsg(rfd, am, (unsigned)c, 0);
                k += s > 0 ? (uint64_t)s : 1;
            }
        }
""",
    ),
    (
        "the generator's reply buffers",
        "        if (connect(sfd, (struct sockaddr *)&a, sizeof a) != 0) _exit(1);\n",
        """        if (connect(sfd, (struct sockaddr *)&a, sizeof a) != 0) _exit(1);
        int rb = 16 << 20;
        setsockopt(sfd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof rb);
        static char abuf[BATCH][16];
        struct iovec aiov[BATCH];
        struct mmsghdr am[BATCH];
        memset(am, 0, sizeof am);
        for (int i = 0; i < BATCH; i++) {
            aiov[i].iov_base = abuf[i]; aiov[i].iov_len = sizeof abuf[i];
            am[i].msg_hdr.msg_iov = &aiov[i]; am[i].msg_hdr.msg_iovlen = 1;
        }
        uint64_t acked = 0;
""",
    ),
    (
        "the generator drains replies after each send",
        "            int n = sendmmsg(sfd, mm, BATCH, 0);\n            if (n > 0) sent += n;\n",
        """            int n = sendmmsg(sfd, mm, BATCH, 0);
            if (n > 0) sent += n;
            int g;
            while ((g = recvmmsg(sfd, am, BATCH, MSG_DONTWAIT, NULL)) > 0) acked += (uint64_t)g;
""",
    ),
    (
        "and after the last, then reports them",
        """        char msg[96];
        int l = snprintf(msg, sizeof msg, "%llu %.9f %.9f\\n", (unsigned long long)sent, t1 - t0, t1);""",
        """        double quiet = now();  // drain the replies: until none came for 0.5 s
        while (acked < sent && now() - quiet < 0.5) {
            int g = recvmmsg(sfd, am, BATCH, MSG_DONTWAIT, NULL);
            if (g > 0) { acked += (uint64_t)g; quiet = now(); } else usleep(1000);
        }
        char msg[128];
        int l = snprintf(msg, sizeof msg, "%llu %.9f %.9f %llu\\n", (unsigned long long)sent, t1 - t0, t1,
                         (unsigned long long)acked);""",
    ),
    (
        "the parent reads the count",
        "    char msg[96] = {0};",
        "    char msg[128] = {0};",
    ),
    (
        "a fix counts once stored and acknowledged",
        """    unsigned long long sent; double sdur, send_end;
    sscanf(msg, "%llu %lf %lf", &sent, &sdur, &send_end);""",
        """    unsigned long long sent, acked = 0; double sdur, send_end;
    sscanf(msg, "%llu %lf %lf %llu", &sent, &sdur, &send_end, &acked);
    if (acked < persisted) persisted = acked;""",
    ),
]


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: yardstick_acked.py SOURCE.c OUTPUT.c", file=sys.stderr)
        return 2
    source, output = sys.argv[1], sys.argv[2]
    try:
        with open(source, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"yardstick_acked: cannot read {source}: {e.strerror}", file=sys.stderr)
        return 1
    for what, old, new in EDITS:
        found = text.count(old)
        if found != 1:
            print(
                f"yardstick_acked: {source}: edit '{what}' expects its text once, found it {found} times",
                file=sys.stderr,
            )
            return 1
        text = text.replace(old, new)
    with open(output, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
