#!/usr/bin/env python3
"""The consumers `scripts/ack-sinks.sh` opens beside fleetd while the shared
harness's load runs: a webhook receiver (HTTP/1.1 on loopback, answers every
POST with 204 and counts the alerts in it) and N live streams
(`GET /api/v1/events?positions=compact&alerts=compact`, the console's way,
or as STREAM_POSITIONS and STREAM_ALERTS say, read and counted
as bytes and events; a stream fleetd ends is opened again 2 s later, as a
browser's EventSource does after its retry time). Runs until SIGTERM, then prints one line of
key=value: webhook_posts, webhook_alerts, streams_open, streams_opened, stream_events,
stream_alerts (of those events: `alert` events, or `alerts_compact` batches), stream_mb. With STREAM_SERIES=FILE, each
second's stream bytes and alert events go to FILE as well. Standard library only; loopback only.

usage: ack_sinks_clients.py WEBHOOK_PORT HTTP_PORT TOKEN STREAMS
"""
import asyncio
import os
import signal
import sys

posts = 0
alerts = 0
events = 0
stream_alerts = 0
stream_bytes = 0
open_streams = 0
opened = 0
positions = os.environ.get("STREAM_POSITIONS", "compact")
alert_form = os.environ.get("STREAM_ALERTS", "compact")


async def webhook(reader, writer):
    global posts, alerts
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            body = await reader.readexactly(length) if length else b""
            posts += 1
            alerts += max(1, body.count(b'"type"'))
            writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


class StreamReader(asyncio.BufferedProtocol):
    """One stream, read straight into a buffer of its own (the kernel's
    copy and a count, nothing more: these clients stand in for browsers on
    other machines, so they take as little of fleetd's two cores as they
    can)."""

    def __init__(self, request, done):
        self.request = request
        self.done = done
        self.buf = bytearray(1 << 20)
        self.view = memoryview(self.buf)
        self.status = None
        self.head = b""
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        transport.write(self.request)

    def get_buffer(self, sizehint):
        return self.view

    def buffer_updated(self, n):
        global events, stream_alerts, stream_bytes
        if self.status is None:
            self.head += bytes(self.view[:n])
            if b"\r\n" not in self.head:
                return
            self.status = b" 200 " in self.head.split(b"\r\n", 1)[0]
            if not self.status:
                self.transport.close()
                return
            self.opened()
        stream_bytes += n
        events += self.buf.count(b"\nevent:", 0, n)
        stream_alerts += self.buf.count(b"\nevent: alert", 0, n)

    def opened(self):
        global open_streams, opened
        open_streams += 1
        opened += 1

    def connection_lost(self, exc):
        global open_streams
        if self.status:
            open_streams -= 1
        if not self.done.done():
            self.done.set_result(bool(self.status))


async def stream(port, token):
    loop = asyncio.get_running_loop()
    request = (f"GET /api/v1/events?positions={positions}&alerts={alert_form} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n"
               f"Connection: close\r\n\r\n").encode()
    while True:
        try:
            done = loop.create_future()
            await loop.create_connection(lambda: StreamReader(request, done), "127.0.0.1", port)
            ok = await done
            await asyncio.sleep(2 if ok else 1)  # the stream's `retry: 2000`
        except OSError:
            await asyncio.sleep(0.5)


async def series(path):
    """Each second: seconds since start, stream MB and alert events in it."""
    last_bytes, last_alerts, t = 0, 0, 0
    with open(path, "w") as f:
        while True:
            await asyncio.sleep(1)
            t += 1
            f.write(f"{t} {(stream_bytes - last_bytes) / 1e6:.1f} {stream_alerts - last_alerts}\n")
            f.flush()
            last_bytes, last_alerts = stream_bytes, stream_alerts


async def main():
    hook_port, http_port, token, n = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    server = await asyncio.start_server(webhook, "127.0.0.1", hook_port, limit=1 << 24)
    tasks = [asyncio.create_task(stream(http_port, token)) for _ in range(n)]
    if os.environ.get("STREAM_SERIES"):
        asyncio.create_task(series(os.environ["STREAM_SERIES"]))
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    print(f"webhook_posts={posts} webhook_alerts={alerts} streams_open={open_streams} streams_opened={opened} "
          f"stream_events={events} stream_alerts={stream_alerts} stream_mb={stream_bytes / 1e6:.1f}", flush=True)
    os._exit(0)  # the streams and the server go with the process


asyncio.run(main())
