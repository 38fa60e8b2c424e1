#!/usr/bin/env python3
"""layering.py - the include rules of the tree, and the include circle.

    layering.py SRCDIR check    every rule below; one line per breach, exit 1
    layering.py SRCDIR circle   scheduler/'s largest include circle: its size,
                                of how many modules, and its members

The rules (docs/design.md says why):
  - scheduler/policy/, sim/ and the model headers (scheduler/job.h,
    node.h, alloc.h, array.h, job_ckpt.h) reach, through every header they include, nothing of
    the server (scheduler/server.h), the sockets or the database;
    scheduler/policy/ includes of scheduler/ only policy/ and the model
    headers;
  - common/ includes only common/; db/ only common/ and db/;
  - one writer each: a job's state (scheduler/policy/job_state.c), a
    node's state in the daemon (nodes_set_state in scheduler/node_state.c)
    and "start this job now" (sched_start_now in scheduler/sched.c, the one
    caller of lifecycle_start);
  - scheduler/'s include circle is at most CIRCLE_MAX modules (the server
    and its connections, today), so that it cannot grow back.

A module is a .c/.h pair (scheduler/nodes.c with scheduler/nodes.h); module
A depends on B when A.c or A.h includes B.h.  The circle is the largest
strongly connected component of that graph among scheduler/'s modules.
Only the tree's own sources count (git ls-files where SRCDIR is a
checkout, else every .c/.h under the folders below).
"""
import os
import re
import subprocess
import sys

FOLDERS = ("common", "db", "scheduler", "sim", "worker", "cli")
MODEL = ("scheduler/job.h", "scheduler/node.h", "scheduler/alloc.h",
         "scheduler/array.h", "scheduler/job_ckpt.h")
# Headers that mean the server, a socket or the database.
FORBIDDEN_LOCAL = ("scheduler/server.h", "db/db.h", "common/conn.h",
                   "common/wire.h", "common/loop.h", "common/client.h",
                   "common/auth.h")
FORBIDDEN_SYS = re.compile(
    r"^(sqlite3\.h|sys/socket\.h|sys/un\.h|netinet/.*|arpa/.*|netdb\.h"
    r"|microhttpd\.h|munge\.h|curl/.*)$")
# The largest include circle allowed in scheduler/: server.c and
# clients.c (the loop and the limits on its connections, which read the
# server's settings) include each other; no other circle is left
# (docs/design.md, "The include circle").
CIRCLE_MAX = 2
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')

# One writer each: (what, pattern, the one file allowed, the folders
# looked in, exceptions as (file, the matching line's text stripped), each
# with its reason).
WRITERS = [
    ("job state", re.compile(r"\brec\.state\s*=[^=]"),
     "scheduler/policy/job_state.c", FOLDERS, [
         # A new job before lifecycle_submit gives it its first state.
         ("scheduler/rpc/job_rpc.c",
          "job->rec.state = JOB_STATE_NEW; /* lifecycle_submit decides */"),
         ("scheduler/lifecycle.c",
          "job->rec.state = JOB_STATE_NEW; /* not submitted after all */"),
         # A subjob split out of its array takes the array's view of it.
         ("scheduler/jobs.c", "sj->rec.state = st;"),
     ]),
    # A pass, qrun and a reclaimed job's restart all start through it.
    ("job start", re.compile(r"\blifecycle_start\s*\("),
     "scheduler/sched.c", FOLDERS, []),
    # Any X->state or X.state but a job's record (the rule above) and a
    # designated initializer's .state; the simulator keeps its own nodes.
    ("node state", re.compile(r"(?<!\brec)(?<=[\w\]\)])(->|\.)state\s*=[^=]"),
     "scheduler/node_state.c", ("scheduler",), [
         # power.c's plan places jobs on copies of powered-off nodes.
         ("scheduler/power.c", "s->state = NODE_UP;"),
     ]),
]


def sources(src):
    try:
        out = subprocess.run(["git", "-C", src, "ls-files", "--", *FOLDERS],
                             capture_output=True, text=True, check=True).stdout
        files = [f for f in out.split("\n") if f.endswith((".c", ".h"))]
        if files:
            return sorted(f for f in files
                          if os.path.exists(os.path.join(src, f)))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for top in FOLDERS:
        for d, _, names in os.walk(os.path.join(src, top)):
            for n in names:
                if n.endswith((".c", ".h")):
                    files.append(os.path.relpath(os.path.join(d, n), src))
    return sorted(files)


def includes(src, f):
    """(local, system) includes of f, in order."""
    loc, sysi = [], []
    with open(os.path.join(src, f), errors="replace") as fh:
        for line in fh:
            m = INCLUDE.match(line)
            if m:
                (loc if m.group(1) == '"' else sysi).append(m.group(2))
    return loc, sysi


def closure(graph, f):
    """Every header f reaches, with the chain that reaches it."""
    seen, todo = {}, [(f, (f,))]
    while todo:
        g, chain = todo.pop()
        for h in graph.get(g, ([], []))[0]:
            if h not in seen:
                seen[h] = chain + (h,)
                todo.append((h, chain + (h,)))
    return seen


def check(src):
    files = sources(src)
    graph = {f: includes(src, f) for f in files}
    bad = []
    for f in files:
        loc, _ = graph[f]
        if f.startswith("common/"):
            bad += [f"{f}: includes {h}: common/ includes only common/"
                    for h in loc if not h.startswith("common/")]
        if f.startswith("db/"):
            bad += [f"{f}: includes {h}: db/ includes only common/ and db/"
                    for h in loc if not h.startswith(("common/", "db/"))]
        if not (f.startswith(("scheduler/policy/", "sim/")) or f in MODEL):
            continue
        if f.startswith("scheduler/policy/"):
            bad += [f"{f}: includes {h}: policy/ includes of scheduler/ "
                    "only policy/ and the model headers"
                    for h in loc if h.startswith("scheduler/")
                    and not h.startswith("scheduler/policy/")
                    and h not in MODEL]
        reach = closure(graph, f)
        for h, chain in sorted(reach.items()):
            if h in FORBIDDEN_LOCAL:
                bad.append(f"{f}: reaches {h} ({' -> '.join(chain)})")
        for g, chain in [(f, (f,))] + sorted(reach.items()):
            for s in graph.get(g, ([], []))[1]:
                if FORBIDDEN_SYS.match(s):
                    bad.append(f"{f}: reaches <{s}> "
                               f"({' -> '.join(chain + ('<' + s + '>',))})")
    for what, pat, owner, folders, allowed in WRITERS:
        for f in files:
            if (f == owner or "/test/" in f or not f.endswith(".c")
                    or f.split("/")[0] not in folders):
                continue
            with open(os.path.join(src, f), errors="replace") as fh:
                for no, line in enumerate(fh, 1):
                    if pat.search(line) and (f, line.strip()) not in allowed:
                        bad.append(f"{f}:{no}: writes {what}: only {owner} "
                                   f"may ({line.strip()})")
    big, _ = largest_circle(src)
    if len(big) > CIRCLE_MAX:
        bad.append(f"scheduler/: an include circle of {len(big)} modules, "
                   f"more than {CIRCLE_MAX}: {' '.join(big)}")
    for b in bad:
        print(b)
    return 1 if bad else 0


def largest_circle(src):
    """scheduler/'s largest include circle (its modules, sorted; none if
    no two modules include each other), and how many modules there are."""
    files = [f for f in sources(src) if f.startswith("scheduler/")
             and "/test/" not in f]
    mods = sorted({f[:-2] for f in files})
    edges = {m: set() for m in mods}
    for f in files:
        for h in includes(src, f)[0]:
            if h.endswith(".h") and h[:-2] in edges and h[:-2] != f[:-2]:
                edges[f[:-2]].add(h[:-2])
    # Tarjan's strongly connected components, iteratively.
    index, low, on, stack, comps, n = {}, {}, set(), [], [], [0]
    for root in mods:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = n[0]
        n[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    comps.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = n[0]
                n[0] += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(edges[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
    big = max(comps, key=len)
    return (big if len(big) > 1 else []), len(mods)


def circle(src):
    big, nmods = largest_circle(src)
    print(f"largest include circle: {len(big)} of {nmods} scheduler modules")
    for m in big:
        print(f"  {m}")
    return 0


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("check", "circle"):
        sys.exit("usage: layering.py SRCDIR check|circle")
    src = sys.argv[1]
    return check(src) if sys.argv[2] == "check" else circle(src)


if __name__ == "__main__":
    sys.exit(main())
