#!/usr/bin/env python3
"""Runs a command with its standard output and error connected to the
systemd journal as systemd connects a service's: a stream to
/run/systemd/journal/stdout, the stream's header sent, and JOURNAL_STREAM
set to the stream's device and inode (systemd.exec(5); the header's fields:
https://github.com/systemd/systemd/blob/main/src/journal/journald-stream.c).
`scripts/ack-sinks.sh` uses it to run fleetd beside a journald of its own,
so fleetd writes its alerts to the journal as under systemd.

usage: journal_stream.py IDENTIFIER COMMAND [ARGS...]
"""
import os
import socket
import sys

ident, argv = sys.argv[1], sys.argv[2:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("/run/systemd/journal/stdout")
# identifier, unit id, priority, level prefix, forward to syslog, kmsg, console
s.sendall(f"{ident}\n\n6\n0\n0\n0\n0\n".encode())
fd = s.detach()
os.dup2(fd, 1)
os.dup2(fd, 2)
os.close(fd)
st = os.fstat(2)
os.environ["JOURNAL_STREAM"] = f"{st.st_dev}:{st.st_ino}"
os.execv(argv[0], argv)
