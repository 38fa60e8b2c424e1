#!/usr/bin/env python3
"""pty-drive.py: run a command on a new pty, as a person at a terminal would,
for the tests of qsub -I (tests/t3006, t3007).

  pty-drive.py [--log FILE] [--pidfile FILE] [--rows R --cols C] STEP... -- CMD...

STEPs, in order:
  --expect REGEX   wait (60 s at most) until the output so far matches REGEX
  --send TEXT      type TEXT (\\n is typed as Enter, i.e. \\r)
  --wait-file F    wait (60 s at most) until file F exists
  --winch R,C      resize the terminal to R rows, C columns (SIGWINCH)
Then it waits (120 s at most) for CMD to end (everything CMD prints goes
to --log as it comes), and exits with CMD's exit code (128 + N if signal N killed it);
99 if a step timed out, 98 if CMD did not end.
"""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

args = sys.argv[1:]
if "--" not in args:
    sys.exit(__doc__)
cut = args.index("--")
opts, cmd = args[:cut], args[cut + 1:]
log = pidfile = None
steps = []
rows, cols = 24, 80
i = 0
while i < len(opts):
    o, v = opts[i], opts[i + 1]
    if o == "--log":
        log = v
    elif o == "--pidfile":
        pidfile = v
    elif o == "--rows":
        rows = int(v)
    elif o == "--cols":
        cols = int(v)
    else:
        steps.append((o, v))
    i += 2

pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
if pidfile:
    with open(pidfile, "w") as f:
        f.write("%d\n" % pid)
out = bytearray()
logf = open(log, "wb", buffering=0) if log else None


def pump(timeout):
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return True
    try:
        data = os.read(fd, 65536)
    except OSError:
        data = b""
    if not data:
        return False
    out.extend(data)
    if logf:
        logf.write(data)
    return True


def save():
    pass  # the log is written as it comes


code = 0
for kind, val in steps:
    if kind == "--expect":
        deadline = time.time() + 60
        rx = re.compile(val.encode(), re.S)
        while not rx.search(out):
            if (time.time() > deadline or not pump(0.2)) and not rx.search(out):
                save()
                sys.stderr.write("pty-drive: timed out waiting for %r\n" % val)
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                sys.exit(99)
    elif kind == "--wait-file":
        deadline = time.time() + 60
        while not os.path.exists(val):
            if time.time() > deadline:
                sys.stderr.write("pty-drive: timed out waiting for %s\n" % val)
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                sys.exit(99)
            pump(0.1)
    elif kind == "--send":
        os.write(fd, val.replace("\\n", "\r").encode())
    elif kind == "--winch":
        r, c = (int(x) for x in val.split(","))
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
        os.kill(pid, signal.SIGWINCH)

deadline = time.time() + 120
while time.time() < deadline and pump(0.2):
    pass
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    pump(0.1)
else:
    save()
    os.kill(pid, signal.SIGKILL)
    sys.exit(98)
save()
if os.WIFSIGNALED(status):
    sys.exit(128 + os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
