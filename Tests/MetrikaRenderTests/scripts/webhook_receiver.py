#!/usr/bin/env python3
"""A real HTTP webhook receiver (Python's http.server) on a free loopback port, for metrika alert.

Every request is stored as OUTDIR/NNN.json: method, path, headers, body (text). What it answers depends
on the path's first segment:
  /ok/...        200 "ok"
  /fail/...      500 "internal error"
  /redirect/...  302 to /ok/... on the same server (a client must not follow it)
  /hang/...      reads the request, then says nothing for LIMIT seconds
The first line on stdout is `listening on 127.0.0.1:PORT`. It runs until stdin is closed or LIMIT
seconds (default 300) have passed, so it can never outlive a test run.
Usage: webhook_receiver.py OUTDIR [LIMIT]
"""
import http.server
import json
import os
import sys
import threading
import time

OUTDIR = sys.argv[1]
LIMIT = float(sys.argv[2]) if len(sys.argv) > 2 else 300
LOCK = threading.Lock()
COUNT = [0]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def store(self, body):
        with LOCK:
            COUNT[0] += 1
            stem = os.path.join(OUTDIR, "%03d" % COUNT[0])
        record = {"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                  "body": body.decode("utf-8", "replace")}
        with open(stem + ".tmp", "w") as handle:
            json.dump(record, handle)
        os.rename(stem + ".tmp", stem + ".json")

    def answer(self, status, text, extra=None):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.store(body)
        first = self.path.split("/")[1] if self.path.count("/") >= 1 else ""
        if first == "ok":
            self.answer(200, "ok")
        elif first == "fail":
            self.answer(500, "internal error")
        elif first == "redirect":
            self.answer(302, "moved", {"Location": "/ok/" + self.path.split("/", 2)[-1]})
        elif first == "hang":
            time.sleep(LIMIT)
        else:
            self.answer(404, "no such hook")

    do_GET = do_POST


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    deadline = time.time() + LIMIT
    stdin_closed = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stdin_closed.set()), daemon=True).start()
    while time.time() < deadline and not stdin_closed.is_set():
        time.sleep(0.1)
    os._exit(0)


if __name__ == "__main__":
    main()
