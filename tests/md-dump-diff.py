#!/usr/bin/env python3
"""md-dump-diff.py - compare two LAMMPS text dumps frame by frame.

    md-dump-diff.py A.dump B.dump [THRESHOLD]

Both dumps must hold the columns "id type x y z vx vy vz fx fy fz", atoms
sorted by id (LAMMPS: dump custom ... and dump_modify sort id; hpcq-md
--dump).  For every timestep both files have, one line:

    step S dx DX df DF fmax FM

DX: the largest distance between the same atom's positions in the two
files along any axis (taken the short way round the periodic box), DF:
the largest difference of a force component, FM: the largest force
component in B.  Last line: "first S", the first step whose DX exceeds
THRESHOLD (default 1e-6), or "first none".  Exit status 1 if the frames
do not describe the same atoms.
"""
import sys


def frames(path):
    with open(path) as f:
        while True:
            line = f.readline()
            if not line:
                return
            if not line.startswith("ITEM: TIMESTEP"):
                sys.exit("%s: expected ITEM: TIMESTEP, got %r" % (path, line))
            step = int(f.readline())
            f.readline()
            n = int(f.readline())
            f.readline()
            box = [tuple(map(float, f.readline().split()[:2])) for _ in range(3)]
            cols = f.readline().split()[2:]
            if cols != "id type x y z vx vy vz fx fy fz".split():
                sys.exit("%s: columns %s" % (path, " ".join(cols)))
            rows = [f.readline().split() for _ in range(n)]
            yield step, box, rows


def main():
    a, b = sys.argv[1], sys.argv[2]
    threshold = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-6
    fb = {}
    for step, box, rows in frames(b):
        fb[step] = (box, rows)
    first = None
    for step, box, ra in frames(a):
        if step not in fb:
            continue
        boxb, rb = fb.pop(step)
        if len(ra) != len(rb):
            sys.exit("step %d: %d atoms against %d" % (step, len(ra), len(rb)))
        length = [hi - lo for lo, hi in boxb]
        dx = df = fmax = 0.0
        for p, q in zip(ra, rb):
            if p[0] != q[0] or p[1] != q[1]:
                sys.exit("step %d: atom %s of type %s against %s of %s"
                         % (step, p[0], p[1], q[0], q[1]))
            for d in range(3):
                x = float(p[2 + d]) - float(q[2 + d])
                x -= length[d] * round(x / length[d])
                dx = max(dx, abs(x))
                f = float(q[8 + d])
                df = max(df, abs(float(p[8 + d]) - f))
                fmax = max(fmax, abs(f))
        print("step %d dx %.3g df %.3g fmax %.6g" % (step, dx, df, fmax))
        if first is None and dx > threshold:
            first = step
    print("first %s" % ("none" if first is None else first))


main()
