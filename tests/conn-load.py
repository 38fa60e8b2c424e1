#!/usr/bin/env python3
"""conn-load.py - clients that misbehave on purpose, for the tests of the
scheduler's limits (t6052, t6053, t6054).

    conn-load.py pipeline SOCKET N HOLD [BODY]
        Send N job.stat requests (BODY: the request body as JSON, default a
        table of every job with subjobs) on one connection without reading
        any answer, then hold the connection HOLD seconds.  Prints
        "sent K" (how many went before the server stopped taking them) and
        "closed after S s" if the server closed the connection, else "open".
    conn-load.py flood SOCKET N HOLD
        The same with N server.stat requests (small answers, many of them).
    conn-load.py idle ADDRESS N HOLD [SOURCE]
        Open N connections (ADDRESS: a Unix socket path, or HOST:PORT for
        TCP, from address SOURCE if given) that send nothing, hold them
        HOLD seconds; print how many
        connected, how many the server refused at once (and the first
        refusal's text) and how many it closed while held.  A connect that
        does not complete in 2 s (a full backlog) counts as refused, and
        after three of them the rest are not tried.
    conn-load.py slowloris HOST:PORT N INTERVAL HOLD SOURCE[,SOURCE...]
        Open N HTTP connections, from the source addresses in turn, each
        sending a request line and then one header line every INTERVAL
        seconds, never the blank line that ends them; after HOLD seconds
        print how many connected and how many the server closed.
    conn-load.py churn ADDRESS N SECONDS
        For SECONDS, open connections that send nothing as fast as they
        go, keeping the newest N open (each new one closes the oldest);
        print how many were opened.
    conn-load.py latency SOCKET JOBID SECONDS
        Ask for one job (job.stat with its id) over and over for SECONDS,
        each on a new connection as qstat does; print the count, p50, p99
        and max in milliseconds.

Standard library only.
"""
import json
import select
import socket
import struct
import sys
import time


def frame(mtype, msgid, body):
    data = json.dumps({"v": 1, "type": mtype, "id": msgid, "cred": None,
                       "body": body}).encode()
    return struct.pack(">I", len(data)) + data


def connect(addr, source=None, timeout=None):
    if addr.startswith("unix:"):
        addr = addr[5:]
    if addr.startswith("/"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(addr)
        except OSError:
            s.close()
            raise
    else:
        host, port = addr.rsplit(":", 1)
        s = socket.create_connection((host, int(port)), timeout,
                                     (source, 0) if source else None)
    s.settimeout(None)
    return s


def closed_by_peer(s, timeout):
    """Wait up to timeout s for EOF (unread data is skipped, not read:
    a client that does not read)."""
    r, _, _ = select.select([s], [], [], timeout)
    if not r:
        return False
    try:
        return s.recv(1, socket.MSG_PEEK) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True


def pipeline(addr, n, hold, mtype, body):
    s = connect(addr)
    s.setblocking(False)
    sent = 0
    t0 = time.monotonic()
    pending = b""
    deadline = t0 + hold
    while time.monotonic() < deadline:
        if not pending and sent < n:
            pending = frame(mtype, sent + 1, body)
            sent += 1
        if pending:
            _, w, _ = select.select([], [s], [], 0.05)
            if w:
                try:
                    k = s.send(pending)
                    pending = pending[k:]
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError):
                    print("sent %d" % (sent - 1))
                    print("closed after %.1f s" % (time.monotonic() - t0))
                    return
            continue
        # Everything sent: hold, watching for the server to close.
        r, _, _ = select.select([s], [], [], 0.1)
        if r:
            try:
                if s.recv(1, socket.MSG_PEEK) == b"":
                    print("sent %d" % sent)
                    print("closed after %.1f s" % (time.monotonic() - t0))
                    return
            except (ConnectionResetError, BrokenPipeError):
                print("sent %d" % sent)
                print("closed after %.1f s" % (time.monotonic() - t0))
                return
            time.sleep(0.1)     # data waits unread: that is the point
    print("sent %d" % (sent - (1 if pending else 0)))
    print("open")


def read_reply(s, timeout):
    s.settimeout(timeout)
    hdr = b""
    while len(hdr) < 4:
        chunk = s.recv(4 - len(hdr))
        if not chunk:
            raise EOFError
        hdr += chunk
    (length,) = struct.unpack(">I", hdr)
    body = b""
    while len(body) < length:
        chunk = s.recv(min(65536, length - len(body)))
        if not chunk:
            raise EOFError
        body += chunk
    return json.loads(body)


def drop(live, s):
    """The server closed s: forget it; 1, to count it."""
    live.remove(s)
    s.close()
    return 1


def finish(closed, live):
    print("closed by server %d" % closed)
    for s in live:
        s.close()


def idle(addr, n, hold, source=None):
    conns, refused, first, stuck = [], 0, None, 0
    for k in range(n):
        if stuck == 3:      # the backlog is full: the rest would wait too
            refused += n - k
            break
        try:
            conns.append(connect(addr, source, 2))
            stuck = 0
        except OSError as e:
            refused += 1
            stuck = stuck + 1 if isinstance(e, socket.timeout) else 0
            first = first or str(e)
    # A refusal arrives at once as an error reply to no request (id 0).
    time.sleep(0.5)
    live = []
    for s in conns:
        r, _, _ = select.select([s], [], [], 0)
        if r:
            try:
                rep = read_reply(s, 1)
                refused += 1
                first = first or rep.get("error")
                continue
            except (EOFError, OSError, ValueError):
                refused += 1
                continue
        live.append(s)
    print("connected %d" % len(live))
    print("refused %d" % refused)
    if first:
        print("first refusal: %s" % first)
    t0 = time.monotonic()
    closed = 0
    while time.monotonic() - t0 < hold and live:
        r, _, _ = select.select(live, [], [], 0.2)
        for s in r:
            if closed_by_peer(s, 0):
                closed += drop(live, s)
    finish(closed, live)


def slowloris(addr, n, interval, hold, sources):
    host, port = addr.rsplit(":", 1)
    conns, refused = [], 0
    for k in range(n):
        try:
            s = socket.create_connection((host, int(port)), 2, (sources[k % len(sources)], 0))
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            conns.append(s)
        except OSError:
            refused += 1
    print("connected %d" % len(conns))
    t0 = time.monotonic()
    closed, k, live = 0, 0, list(conns)
    next_line = t0 + interval
    while time.monotonic() - t0 < hold and live:
        r, _, _ = select.select(live, [], [], 0.2)
        for s in r:     # an answer to an unfinished request, or its end:
            closed += drop(live, s)     # either way the server gave up on it
        if time.monotonic() >= next_line:
            next_line += interval
            k += 1
            for s in list(live):
                try:
                    s.sendall(b"X-Slow-%d: 1\r\n" % k)
                except OSError:
                    closed += drop(live, s)
    finish(closed, live)


def churn(addr, n, seconds):
    live, opened = [], 0
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        try:
            live.append(connect(addr, None, 1))
            opened += 1
        except OSError:
            time.sleep(0.01)
        if len(live) > n:
            live.pop(0).close()
    print("opened %d" % opened)
    for s in live:
        s.close()


def latency(addr, jobid, seconds):
    times = []
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        s = connect(addr)
        s.sendall(frame("job.stat", 1, {"ids": [jobid], "table": True}))
        try:
            rep = read_reply(s, 60)
        except (TimeoutError, socket.timeout):
            rep = {}    # no answer in 60 s: counted as 60 s
        s.close()
        if rep.get("errnum"):
            print("error %s" % rep.get("error"))
            sys.exit(1)
        times.append((time.monotonic() - t0) * 1000)
        time.sleep(0.01)
    times.sort()
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
    print("count %d p50 %.1f p99 %.1f max %.1f" % (len(times), pick(0.5), pick(0.99),
                                                   times[-1]))


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, addr = argv[1], argv[2]
    if cmd == "pipeline":
        body = json.loads(argv[5]) if len(argv) > 5 else {"table": True, "subjobs": True}
        pipeline(addr, int(argv[3]), float(argv[4]), "job.stat", body)
    elif cmd == "flood":
        pipeline(addr, int(argv[3]), float(argv[4]), "server.stat", {})
    elif cmd == "idle":
        idle(addr, int(argv[3]), float(argv[4]), argv[5] if len(argv) > 5 else None)
    elif cmd == "slowloris":
        slowloris(addr, int(argv[3]), float(argv[4]), float(argv[5]), argv[6].split(","))
    elif cmd == "churn":
        churn(addr, int(argv[3]), float(argv[4]))
    elif cmd == "latency":
        latency(addr, argv[3], float(argv[4]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
