#!/usr/bin/env python3
"""wire-client.py - speak (or mangle) hpcq's wire format, for the tests.

    wire-client.py [--shutdown] [--wait-close] [--timeout S] ADDRESS FRAME...

Connects to the scheduler at ADDRESS (a Unix socket path, unix:PATH, or
tcp:HOST:PORT) and sends each FRAME in order:
    json:TEXT   TEXT framed as a message (4-byte big-endian length + TEXT);
                one reply is then read and printed as "reply <json>"
    send:TEXT   TEXT framed as a message; no reply is awaited
    raw:TEXT    the bytes of TEXT as they are (Python escapes like \\x00 work)
    hdr:N       a bare 4-byte length header saying N (decimal or 0x...)
    bytes:N:B   N copies of the byte B (decimal or 0x...)
    open:       link.open as a worker sends it (common/link.h), with a MUNGE
                credential of the user running this ($WIRE_SIGN open); the
                reply is printed, and if it carries a good credential the
                link's session keys are kept ($WIRE_SIGN keys): from then on
                every reply is read as a sealed frame (common/session.h)
    bare-open:  link.open with a nonce and no credential
    seal:TEXT   TEXT sealed with the session (next sequence number, HMAC),
                sent; one reply is read and printed
    sealsend:TEXT  the same, no reply awaited
    hold:TEXT   TEXT sealed (it takes the next sequence number) but not sent
    release:    the held frame, sent now; one reply read
    truncate:TEXT  TEXT sealed, then its last byte cut off (the length header
                says so); one reply read
    forge:TEXT  TEXT sealed, then one byte of its JSON changed; one reply read
    sjson:TEXT  TEXT signed by $WIRE_SIGN (tests/wire-sign: a MUNGE
                credential of the user running this, as a one-shot request
                carries), framed, sent; one reply is read and printed
    ssend:TEXT  the same, no reply awaited
    again:      the last framed message again, byte for byte; one reply read
    recv:S      print each message that arrives in S seconds ("msg <json>"),
                then "closed" if the peer closed the connection
--shutdown     after the frames, shut down the sending half (the peer sees EOF)
--wait-close   then wait up to --timeout seconds (default 5) for the server
               to close the connection; print "closed" if it did, "open" if it
               did not, or "data <repr>" if it sent something instead.
Exits 0 unless the socket could not be used; the caller judges the output.
Only the standard library, so it runs wherever the tests do.
"""
import hashlib
import hmac
import json
import os
import secrets
import socket
import struct
import subprocess
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


class Session:
    """The keys of an open link and the next sequence number each way."""

    def __init__(self, send, recv):
        self.send, self.recv = bytes.fromhex(send), bytes.fromhex(recv)
        self.send_seq = self.recv_seq = 0

    def seal(self, data):
        seq = struct.pack(">Q", self.send_seq)
        self.send_seq += 1
        return data + seq + hmac.new(self.send, seq + data, hashlib.sha256).digest()

    def open(self, body):
        data, seq, mac = body[:-40], body[-40:-32], body[-32:]
        want = hmac.new(self.recv, seq + data, hashlib.sha256).digest()
        if len(body) <= 40 or not hmac.compare_digest(mac, want):
            raise ValueError("a frame that is not sealed with the session")
        if struct.unpack(">Q", seq)[0] != self.recv_seq:
            raise ValueError("a frame out of sequence")
        self.recv_seq += 1
        return data


session = None


def read_reply(sock, timeout):
    deadline = time.monotonic() + timeout
    (length,) = struct.unpack(">I", recv_exact(sock, 4, deadline))
    body = recv_exact(sock, length, deadline)
    if session:
        body = session.open(body)
    return json.loads(body.decode())


def framed(data):
    return struct.pack(">I", len(data)) + data


def number(s):
    return int(s, 0)


def connect(address, timeout):
    if address.startswith("tcp:"):
        host, _, port = address[4:].rpartition(":")
        sock = socket.create_connection((host, int(port)), timeout)
    else:
        if address.startswith("unix:"):
            address = address[5:]
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        sock.connect(address)
    sock.settimeout(timeout)
    return sock


def sign(text, binding):
    """TEXT with a credential from tests/wire-sign (path in $WIRE_SIGN)."""
    out = subprocess.run([os.environ["WIRE_SIGN"], "--binding", binding],
                         input=text.encode(), stdout=subprocess.PIPE, check=True)
    return out.stdout.strip()


def print_reply(sock, timeout):
    try:
        reply = read_reply(sock, timeout)
        print("reply " + json.dumps(reply, sort_keys=True))
        return reply
    except (EOFError, TimeoutError, ValueError, OSError) as e:
        print("noreply %s" % e)
        return None


def receive(sock, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            msg = read_reply(sock, deadline - time.monotonic())
        except TimeoutError:
            return
        except (EOFError, OSError):
            print("closed")
            return
        except socket.timeout:
            return
        print("msg " + json.dumps(msg, sort_keys=True))
        sys.stdout.flush()


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
    global session
    sock = connect(args.pop(0), timeout)
    binding = ""
    last = held = b""
    for frame in args:
        kind, _, text = frame.partition(":")
        if kind in ("json", "send", "sjson", "ssend"):
            data = sign(text, binding) if kind in ("sjson", "ssend") else text.encode()
            last = struct.pack(">I", len(data)) + data
            sock.sendall(last)
            if kind in ("json", "sjson"):
                print_reply(sock, timeout)
        elif kind == "open":
            out = subprocess.run([os.environ["WIRE_SIGN"], "open"], stdout=subprocess.PIPE,
                                 check=True).stdout.decode().splitlines()
            data, secret = out[0].encode(), out[1].split()[1]
            nonce = json.loads(data)["body"]["nonce"]
            last = framed(data)
            sock.sendall(last)
            try:
                (length,) = struct.unpack(">I", recv_exact(sock, 4, time.monotonic() + timeout))
                answer = recv_exact(sock, length, time.monotonic() + timeout)
            except (EOFError, TimeoutError, OSError) as e:
                print("noreply %s" % e)
                continue
            print("reply " + json.dumps(json.loads(answer), sort_keys=True))
            keys = subprocess.run([os.environ["WIRE_SIGN"], "keys", "--nonce", nonce,
                                   "--secret", secret], input=answer,
                                  stdout=subprocess.PIPE)
            k = dict(line.split() for line in keys.stdout.decode().splitlines())
            if keys.returncode == 0:
                session = Session(k["send"], k["recv"])
        elif kind == "bare-open":
            data = json.dumps({"v": 1, "type": "link.open", "id": 1, "cred": None,
                               "body": {"nonce": secrets.token_hex(16)}}).encode()
            last = framed(data)
            sock.sendall(last)
            print_reply(sock, timeout)
        elif kind in ("seal", "sealsend"):
            last = framed(session.seal(text.encode()))
            sock.sendall(last)
            if kind == "seal":
                print_reply(sock, timeout)
        elif kind == "hold":
            held = framed(session.seal(text.encode()))
        elif kind == "release":
            last = held
            sock.sendall(last)
            print_reply(sock, timeout)
        elif kind == "truncate":
            body = session.seal(text.encode())[:-1]
            last = framed(body)
            sock.sendall(last)
            print_reply(sock, timeout)
        elif kind == "forge":
            body = bytearray(session.seal(text.encode()))
            body[len(body) // 4] ^= 0x01
            last = framed(bytes(body))
            sock.sendall(last)
            print_reply(sock, timeout)
        elif kind == "again":
            sock.sendall(last)
            print_reply(sock, timeout)
        elif kind == "recv":
            receive(sock, float(text))
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
