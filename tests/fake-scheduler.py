#!/usr/bin/env python3
"""fake-scheduler.py - an impostor on the scheduler's port, for the tests.

    fake-scheduler.py [--sign] --workdir DIR [--seconds S] [--links N] HOST:PORT|unix:PATH

What a hostile user who binds the port after the real scheduler stopped
would do: accept workers, answer every request with success (link.open
with a nonce of its own), and after its first answer on a connection send
a job.launch for uid 0 whose script writes "id -u" into DIR/pwned.  With
--sign each message it sends carries a real MUNGE credential of the user
running it, bound to the link (tests/wire-sign, path in $WIRE_SIGN): a
well-equipped impostor, refused only for who it is.  Prints what it
receives ("got TYPE", "closed") until N links were closed by the worker
(default 2) or S seconds passed (default 10), then exits 0.
Only the standard library.
"""
import argparse
import json
import os
import secrets
import select
import socket
import struct
import subprocess
import sys
import time


def frame(msg, binding, signed):
    text = json.dumps(msg).encode()
    if signed:
        text = subprocess.run([os.environ["WIRE_SIGN"], "--to", "worker", "--binding",
                               binding], input=text, stdout=subprocess.PIPE,
                              check=True).stdout.strip()
    return struct.pack(">I", len(text)) + text


def launch_body(workdir):
    script = "#!/bin/sh\nid -u > %s/pwned\n" % workdir
    spec = {"name": "pwn", "script": script, "workdir": workdir,
            "resources": {"chunks": [{"count": 1, "ncpus": 1}]}}
    return {"seq": 9999, "attempt": 1, "jobid": "9999.fake",
            "uuid": "00000000-0000-4000-8000-000000000000", "owner": "root",
            "uid": 0, "queue": "workq", "server": "fake", "spec": spec,
            "ncpus": 1, "mem": 0, "gpus": [], "nodefile": ["localhost"],
            "walltime": -1}


class Link:
    def __init__(self, sock):
        self.sock, self.buf, self.binding, self.launched = sock, b"", "", False

    def messages(self):
        while len(self.buf) >= 4:
            (n,) = struct.unpack(">I", self.buf[:4])
            if len(self.buf) < 4 + n:
                return
            yield json.loads(self.buf[4:4 + n])
            self.buf = self.buf[4 + n:]


def listener(address):
    if address.startswith("unix:"):
        lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        lsock.bind(address[5:])
        return lsock
    host, _, port = address.rpartition(":")
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind((host, int(port)))
    return lsock


def serve(args):
    lsock = listener(args.address)
    lsock.listen(16)
    print("listening", flush=True)
    links = {}
    closed = 0
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline and closed < args.links:
        ready, _, _ = select.select([lsock] + list(links), [], [],
                                    max(0, deadline - time.monotonic()))
        for s in ready:
            if s is lsock:
                c, _ = lsock.accept()
                links[c] = Link(c)
                continue
            link = links[s]
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                print("closed", flush=True)
                closed += 1
                del links[s]
                s.close()
                continue
            link.buf += data
            for msg in link.messages():
                print("got %s%s" % (msg.get("type"), " reply" if msg.get("reply") else ""),
                      flush=True)
                if msg.get("reply"):
                    continue
                body = {}
                if msg.get("type") == "link.open":
                    mine = secrets.token_hex(16)
                    body = {"nonce": mine, "server": "fake"}
                    link.binding = msg["body"]["nonce"] + ":" + mine
                reply = {"v": 1, "type": msg["type"], "id": msg["id"], "cred": None,
                         "reply": True, "errnum": 0, "body": body}
                try:
                    s.sendall(frame(reply, link.binding, args.sign))
                    if not link.launched:
                        link.launched = True
                        launch = {"v": 1, "type": "job.launch", "id": 9999, "cred": None,
                                  "body": launch_body(args.workdir)}
                        s.sendall(frame(launch, link.binding, args.sign))
                        print("sent job.launch", flush=True)
                except OSError:
                    pass
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sign", action="store_true")
    p.add_argument("--workdir", required=True)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--links", type=int, default=2)
    p.add_argument("address")
    return serve(p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
