#!/usr/bin/env python3
"""A real SMTP server (aiosmtpd) on a free loopback port that stores every message it accepts.

Each message goes to OUTDIR/NNN.eml (the DATA bytes exactly as received) with OUTDIR/NNN.json holding
the envelope (MAIL FROM and RCPT TO). The first line on stdout is `listening on 127.0.0.1:PORT`.
It runs until stdin is closed (the test that started it ends) or it is terminated, and in any case
for at most LIMIT seconds (default 300), so it can never outlive a test run.
Usage: smtp_sink.py OUTDIR [LIMIT]
"""
import json
import os
import socket
import sys
import threading
import time

from aiosmtpd.controller import Controller


class StoringHandler:
    def __init__(self, outdir):
        self.outdir = outdir
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.count += 1
            stem = os.path.join(self.outdir, "%03d" % self.count)
        with open(stem + ".json.tmp", "w") as handle:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos}, handle)
        with open(stem + ".eml.tmp", "wb") as handle:
            handle.write(envelope.original_content or envelope.content)
        os.rename(stem + ".json.tmp", stem + ".json")
        os.rename(stem + ".eml.tmp", stem + ".eml")
        return "250 Message accepted for delivery"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main(outdir, limit):
    port = free_port()
    controller = Controller(StoringHandler(outdir), hostname="127.0.0.1", port=port)
    controller.start()
    print("listening on 127.0.0.1:%d" % port, flush=True)
    done = threading.Event()

    def watch_stdin():
        sys.stdin.read()
        done.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    done.wait(timeout=limit)
    controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 300.0))
