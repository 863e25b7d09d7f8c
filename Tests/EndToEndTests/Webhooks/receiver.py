#!/usr/bin/env python3
"""A webhook receiver for fleetd's end-to-end tests and benchmark.

Verifies every request's signature with the Standard Webhooks reference
library (PyPI's standardwebhooks), not with code of fleetd's, and appends
one JSON line per request to the log: its webhook-id, the alert ids, the
status answered and whether the signature verified (and if not, why). A
request whose body ends before its Content-Length (the sender killed
mid-request) is logged as truncated and not answered.

Behaviour is read from the control file (JSON) at each request:
  {"status": 200}            answer this status (default 200)
  {"delay_s": 3}             wait this long before answering
  {"refuse_alert": 17}       answer 400 to any batch holding alert 17
  {"retry_after": "1"}       add this Retry-After header
  {"quiet": true}            do not log (benchmark)
  {"verify": false}          count without verifying (benchmark: fleetd's
                             rate, not this script's HMAC)

Usage: receiver.py SECRET LOG CONTROL [PORT [CERT KEY]]. Prints the port
it listens on as its first line. With CERT and KEY (PEM files) it speaks
HTTPS.
"""
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook

secret, log_path, control_path = sys.argv[1], sys.argv[2], sys.argv[3]
port = int(sys.argv[4]) if len(sys.argv) > 4 else 0
verifier = Webhook(secret)
lock = threading.Lock()
counter = {"alerts": 0, "requests": 0}


def control():
    try:
        with open(control_path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if len(body) < length:
            # The sender went away mid-request (fleetd is SIGKILLed during
            # delivery in the tests): nothing to verify, nothing answered.
            with open(log_path, "a") as f:
                f.write(json.dumps({"id": self.headers.get("webhook-id"), "truncated": True,
                                    "status": 0, "verified": False}) + "\n")
            self.close_connection = True
            return
        c = control()
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            if c.get("verify", True):
                payload = verifier.verify(body, headers)
            else:
                payload = json.loads(body)
            verified = True
        except Exception as e:  # any verification failure
            payload, verified, error = None, False, str(e)
        else:
            error = None
        ids = [a["id"] for a in payload.get("alerts", [])] if payload else []
        status = int(c.get("status", 200))
        if not verified:
            status = 401
        elif c.get("refuse_alert") in ids:
            status = 400
        delay = float(c.get("delay_s", 0))
        if delay:
            time.sleep(delay)
        with lock:
            counter["requests"] += 1
            if status < 300:
                counter["alerts"] += len(ids)
            if not c.get("quiet"):
                with open(log_path, "a") as f:
                    f.write(json.dumps({
                        "id": headers.get("webhook-id"), "alerts": ids, "status": status,
                        "verified": verified, "webhook": payload.get("webhook") if payload else None,
                        "test": bool(payload.get("test")) if payload else False,
                        "error": error,
                        "time": time.time(),
                    }) + "\n")
        self.send_response(status)
        if "retry_after" in c:
            self.send_header("Retry-After", str(c["retry_after"]))
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):  # counters, for the benchmark
        with lock:
            text = json.dumps(counter).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
if len(sys.argv) > 6:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[5], sys.argv[6])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
