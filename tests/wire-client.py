#!/usr/bin/env python3
"""wire-client.py - speak (or mangle) hpcq's wire format, for the tests.

    wire-client.py [--shutdown] [--wait-close] [--timeout S] SOCKET FRAME...

Connects to the scheduler's Unix socket and sends each FRAME in order:
    json:TEXT   TEXT framed as a message (4-byte big-endian length + TEXT);
                one reply is then read and printed as "reply <json>"
    send:TEXT   TEXT framed as a message; no reply is awaited
    raw:TEXT    the bytes of TEXT as they are (Python escapes like \\x00 work)
    hdr:N       a bare 4-byte length header saying N (decimal or 0x...)
    bytes:N:B   N copies of the byte B (decimal or 0x...)
--shutdown     after the frames, shut down the sending half (the peer sees EOF)
--wait-close   then wait up to --timeout seconds (default 5) for the server
               to close the connection; print "closed" if it did, "open" if it
               did not, or "data <repr>" if it sent something instead.
Exits 0 unless the socket could not be used; the caller judges the output.
Only the standard library, so it runs wherever the tests do.
"""
import json
import socket
import struct
import sys
import time


def recv_exact(sock, n, deadline):
    buf = b""
    while len(buf) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out after %d of %d bytes" % (len(buf), n))
        sock.settimeout(left)
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def read_reply(sock, timeout):
    deadline = time.monotonic() + timeout
    (length,) = struct.unpack(">I", recv_exact(sock, 4, deadline))
    body = recv_exact(sock, length, deadline)
    return json.loads(body.decode())


def number(s):
    return int(s, 0)


def main(argv):
    shutdown = wait_close = False
    timeout = 5.0
    args = argv[1:]
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--shutdown":
            shutdown = True
        elif opt == "--wait-close":
            wait_close = True
        elif opt == "--timeout":
            timeout = float(args.pop(0))
        else:
            print("wire-client: unknown option %s" % opt, file=sys.stderr)
            return 2
    if len(args) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = args.pop(0)
    if path.startswith("unix:"):
        path = path[5:]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    for frame in args:
        kind, _, text = frame.partition(":")
        if kind in ("json", "send"):
            data = text.encode()
            sock.sendall(struct.pack(">I", len(data)) + data)
            if kind == "json":
                try:
                    print("reply " + json.dumps(read_reply(sock, timeout),
                                                sort_keys=True))
                except (EOFError, TimeoutError, ValueError) as e:
                    print("noreply %s" % e)
        elif kind == "raw":
            sock.sendall(text.encode("latin-1").decode("unicode_escape")
                         .encode("latin-1"))
        elif kind == "hdr":
            sock.sendall(struct.pack(">I", number(text)))
        elif kind == "bytes":
            n, _, b = text.partition(":")
            sock.sendall(bytes([number(b)]) * number(n))
        else:
            print("wire-client: unknown frame kind '%s'" % kind, file=sys.stderr)
            return 2
        sys.stdout.flush()
    if shutdown:
        sock.shutdown(socket.SHUT_WR)
    if wait_close:
        sock.settimeout(timeout)
        try:
            data = sock.recv(4096)
            print("closed" if data == b"" else "data %r" % data)
        except socket.timeout:
            print("open")
        except ConnectionResetError:
            print("closed")
    sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
