#!/usr/bin/env python3
"""capture.py - record the wire messages of a real cluster, as fuzz seeds.

    capture.py OUTDIR unix:LISTEN_PATH=TARGET_PATH [tcp:PORT=ADDRESS_FILE]...

A proxy between hpcq's programs and the scheduler: every frame that passes,
either way, is written to OUTDIR/wire/ (header and body, as read off the
socket), its body to OUTDIR/envelope/, and each job request in it (the
"spec" of job.submit and job.launch) to OUTDIR/jobspec/.  Files are named by
message type and direction; one file per distinct content.
  unix:L=T   listen on the Unix socket L, forward to the Unix socket T
  tcp:P=F    listen on 127.0.0.1:P, forward to the scheduler's TCP address
             read from F ("tcp=HOST:PORT", the scheduler.address file
             hpcq-local writes) when each connection arrives
Runs until killed.  How the committed seeds were made: tests/fuzz/RESULTS.md.
"""
import hashlib
import json
import os
import socket
import struct
import sys
import threading


def save(outdir, kind, name, data):
    digest = hashlib.sha1(data).hexdigest()[:10]
    path = os.path.join(outdir, kind, "real-%s-%s" % (name, digest))
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)


def record(outdir, direction, frame):
    body = frame[4:]
    try:
        msg = json.loads(body)
        mtype = str(msg.get("type", "none")).replace("/", "_")
    except ValueError:
        msg, mtype = None, "garbage"
    name = "%s-%s" % (mtype, direction)
    save(outdir, "wire", name, frame)
    save(outdir, "envelope", name, body)
    spec = isinstance(msg, dict) and isinstance(msg.get("body"), dict) \
        and msg["body"].get("spec")
    if isinstance(spec, dict):
        save(outdir, "jobspec", mtype, json.dumps(spec, separators=(",", ":")).encode())


def pump(src, dst, outdir, direction):
    buf = b""
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
            buf += data
            while len(buf) >= 4:
                (n,) = struct.unpack(">I", buf[:4])
                if len(buf) < 4 + n:
                    break
                record(outdir, direction, buf[:4 + n])
                buf = buf[4 + n:]
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(listener, connect, outdir):
    while True:
        client, _ = listener.accept()
        try:
            server = connect()
        except OSError:
            client.close()
            continue
        threading.Thread(target=pump, args=(client, server, outdir, "in"), daemon=True).start()
        threading.Thread(target=pump, args=(server, client, outdir, "out"), daemon=True).start()


def unix_proxy(spec, outdir):
    listen, target = spec.split("=", 1)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(listen)
    sock.listen(64)

    def connect():
        s = socket.socket(socket.AF_UNIX)
        s.connect(target)
        return s
    return sock, connect


def tcp_proxy(spec, outdir):
    port, address_file = spec.split("=", 1)
    sock = socket.socket(socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(port)))
    sock.listen(64)

    def connect():
        with open(address_file) as f:
            for line in f:
                if line.startswith("tcp="):
                    host, p = line.strip()[4:].rsplit(":", 1)
                    return socket.create_connection((host, int(p)))
        raise OSError("no tcp= line in " + address_file)
    return sock, connect


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    outdir = argv[1]
    for kind in ("wire", "envelope", "jobspec"):
        os.makedirs(os.path.join(outdir, kind), exist_ok=True)
    threads = []
    for spec in argv[2:]:
        kind, rest = spec.split(":", 1)
        listener, connect = (unix_proxy if kind == "unix" else tcp_proxy)(rest, outdir)
        t = threading.Thread(target=serve, args=(listener, connect, outdir), daemon=True)
        t.start()
        threads.append(t)
    print("capturing", flush=True)
    for t in threads:
        t.join()


if __name__ == "__main__":
    main(sys.argv)
