#!/usr/bin/env python3
"""bench/wire-storm.py - the scheduler's own submission capacity, without
qsub's process start-up, and how well group commit shares fsyncs.

    wire-storm.py SOCKET JOBS CONNECTIONS

Opens CONNECTIONS Unix-socket connections to the scheduler; each submits
its share of JOBS held jobs (nothing runs), one request at a time, waiting
for each acknowledgement (which comes only after the job is durable).
Prints jobs/s.  Run it with CONNECTIONS=1 and, say, 32 side by side:
the ratio is what group commit buys when many clients submit at once.
Standard library only.

STORM_SCRIPT and STORM_HOLD=0 in the environment change the jobs' script
and submit them not held (bench/swarm.sh: jobs that run).
"""
import json
import os
import socket
import struct
import sys
import threading
import time


def spec(i):
    return {
        "name": "storm%d" % i, "queue": None,
        "script": os.environ.get("STORM_SCRIPT", "true\n"),
        "workdir": os.getcwd(), "submit_host": "bench", "output_path": None,
        "error_path": None, "join": "n", "env": [],
        "hold": os.environ.get("STORM_HOLD", "1") != "0", "priority": 0,
        "depend": None, "account": None, "mail_points": None, "mail_users": None,
        "submit_args": None, "rerunnable": True,
        "resources": {"walltime": -1, "place": "",
                      "chunks": [{"count": 1, "ncpus": 1, "mem": 0, "ngpus": 0,
                                  "mpiprocs": 1}]},
    }


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("server closed the connection")
        buf += chunk
    return buf


def rpc(sock, msgid, mtype, body):
    data = json.dumps({"v": 1, "type": mtype, "id": msgid, "cred": None,
                       "body": body}).encode()
    sock.sendall(struct.pack(">I", len(data)) + data)
    (length,) = struct.unpack(">I", recv_exact(sock, 4))
    reply = json.loads(recv_exact(sock, length))
    if reply.get("errnum"):
        raise RuntimeError(reply.get("error"))
    return reply["body"]


def submitter(path, first, count, errors):
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        for i in range(first, first + count):
            rpc(sock, i + 1, "job.submit", {"spec": spec(i)})
        sock.close()
    except Exception as e:  # reported by the main thread
        errors.append(str(e))


def main():
    path, jobs, conns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if path.startswith("unix:"):
        path = path[5:]
    errors = []
    share = jobs // conns
    threads = [threading.Thread(target=submitter, args=(path, k * share, share, errors))
               for k in range(conns)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    dt = time.monotonic() - t0
    if errors:
        print("errors: %s" % errors[0], file=sys.stderr)
        return 1
    print("%d connections: %d jobs in %.2f s = %.0f jobs/s"
          % (conns, share * conns, dt, share * conns / dt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
