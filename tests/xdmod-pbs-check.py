#!/usr/bin/env python3
"""Read PBS accounting files the way Open XDMoD's PBS shredder does.

The rules are those of ubccr/xdmod, classes/OpenXdmod/Shredder/Pbs.php and
its base class classes/OpenXdmod/Shredder.php (read at commits 171ebe83 and
0c72b8e2), written again here in Python (the PHP needs XDMoD's framework
and a MySQL server):

  - each line, control characters removed, must match
    ^(MM/DD/YYYY) (HH:MM:SS);(\\w);([^;]+);(.*)   or the file is rejected;
  - only E records are shredded;
  - the job id splits at its first '.' into sequence and host; the sequence
    is N, N[I] or N[] (an array);
  - the parameters split on whitespace; each key=value is kept, the key
    lowercased with '.' as '_'; 'group' becomes groupname;
  - exec_host "host/0*4+host2/0*4" gives the node list, node count and cpu
    count (PBS Pro's "/index*count");
  - memory values must match ^(\\d*\\.?\\d+)(\\D+)?$ with a unit among b kb mb
    gb tb w kw mw gw tw (else the value is logged as unparseable and lost);
    times are HH:MM:SS or seconds;
  - checkJobData: start, end and walltime present, start and end not 0,
    start <= end, node and cpu counts not 0, nodes <= cpus: otherwise XDMoD
    records a "job error" (it keeps the job, with that error).

Usage: xdmod-pbs-check.py FILE...  Prints one line per E record
("ID ok" or "ID job-error: ...", "ID value-error: ...") and exits 1 if a
line is malformed or a record of a job that ran (not an array's own E
record) has an error.
"""
import re
import sys

LINE = re.compile(r"^(\d{2}/\d{2}/\d{4})\s(\d{2}:\d{2}:\d{2});(\w);([^;]+);(.*)$")
MEMORY = re.compile(r"^(\d*\.?\d+)(\D+)?$")
UNITS = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3, "tb": 1024**4, "w": 8,
         "kw": 8 * 1024, "mw": 8 * 1024**2, "gw": 8 * 1024**3, "tw": 8 * 1024**4}
MEMORY_KEYS = {"resources_used_vmem", "resources_used_mem", "resource_list_mem",
               "resource_list_pmem"}
TIME_KEYS = {"resources_used_walltime", "resources_used_cput", "resource_list_pcput",
             "resource_list_cput", "resource_list_walltime"}
COLUMNS = {"job_id", "job_array_index", "host", "queue", "user", "groupname", "ctime",
           "qtime", "start", "end", "etime", "exit_status", "session", "requestor",
           "jobname", "owner", "account", "session_id", "error_path", "output_path",
           "exec_host", "resources_used_vmem", "resources_used_mem",
           "resources_used_walltime", "resources_used_nodes", "resources_used_cpus",
           "resources_used_cput", "resource_list_nodes", "resource_list_procs",
           "resource_list_neednodes", "resource_list_pcput", "resource_list_cput",
           "resource_list_walltime", "resource_list_ncpus", "resource_list_nodect",
           "resource_list_mem", "resource_list_pmem", "node_list"}


def parse_memory(v):
    m = MEMORY.match(v)
    if not m:
        raise ValueError("unknown memory format '%s'" % v)
    unit = m.group(2) or "kb"
    if unit not in UNITS:
        raise ValueError("unknown memory unit '%s'" % unit)
    return int(float(m.group(1)) * UNITS[unit])


def parse_time(v):
    if ":" in v:
        h, m, s = v.split(":")
        return int(h) * 3600 + int(m) * 60 + int(s)
    return int(v)


def parse_hosts(hosts):
    out = []
    for part in hosts.split("+"):
        host, cpus = part.split("/")
        for cpu in cpus.split(","):
            if "-" in cpu:
                lo, hi = cpu.split("-", 1)
                out += [(host, c) for c in range(int(lo), int(hi) + 1)]
            elif "*" in cpu:
                index, count = cpu.split("*", 1)
                out += [(host, "%s.%d" % (index, c)) for c in range(1, int(count) + 1)]
            else:
                out.append((host, cpu))
    return out


def job_id(id_string):
    sequence, host = id_string.split(".", 1)
    m = re.match(r"^(\d+)\[(\d+)?\]$", sequence)
    if m:
        return m.group(1), m.group(2), host
    if re.match(r"^\d+$", sequence):
        return sequence, None, host
    raise ValueError("unknown id_string format '%s'" % id_string)


def shred(line):
    """The job XDMoD would insert for an E line (None for other types)."""
    line = re.sub(r"[\x00-\x1f\x7f]", "", line.rstrip())
    m = LINE.match(line)
    if not m:
        raise ValueError("Malformed PBS accounting line: '%s'" % line)
    if m.group(3) != "E":
        return None, []
    jid, index, host = job_id(m.group(4))
    job = {"job_id": jid, "host": host}
    if index is not None:
        job["job_array_index"] = index
    errors = []
    for param in re.split(r"\s+", m.group(5)):
        if "=" not in param:
            continue
        key, value = param.split("=", 1)
        key = key.replace(".", "_").lower()
        if key == "exec_host":
            hosts = parse_hosts(value)
            nodes = {}
            for h, _ in hosts:
                nodes[h] = nodes.get(h, 0) + 1
            job["node_list"] = ",".join(dict.fromkeys(h for h, _ in hosts))
            job["resources_used_nodes"] = len(nodes)
            job["resources_used_cpus"] = sum(nodes.values())
        elif key in MEMORY_KEYS or key in TIME_KEYS:
            try:
                job[key] = parse_memory(value) if key in MEMORY_KEYS else parse_time(value)
            except ValueError as e:
                errors.append("value-error: %s: %s" % (key, e))
                job[key] = None
        elif key == "group":
            job["groupname"] = value
        else:
            job[key] = value
    job = {k: v for k, v in job.items() if k in COLUMNS}
    # checkJobData
    start, end = job.get("start"), job.get("end")
    wall, nodes, cpus = (job.get("resources_used_walltime"), job.get("resources_used_nodes"),
                         job.get("resources_used_cpus"))
    for name, v in (("start time", start), ("end time", end)):
        if v is None:
            errors.append("job-error: Job %s is missing." % name)
        elif int(v) == 0:
            errors.append("job-error: Job %s is 0." % name)
    if wall is None:
        errors.append("job-error: walltime missing")
    if start is not None and end is not None and int(start) > int(end):
        errors.append("job-error: Job start time as after job end time.")
    if not nodes:
        errors.append("job-error: Job node count is 0.")
    if not cpus:
        errors.append("job-error: Job cpu count is 0.")
    if nodes and cpus and nodes > cpus:
        errors.append("job-error: Job node count greater than cpu count.")
    return job, errors


def main(paths):
    bad = 0
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                try:
                    job, errors = shred(line)
                except Exception as e:  # XDMoD rejects the whole file
                    print("%s:%d: %s" % (path, n, e))
                    return 1
                if job is None:
                    continue
                ident = "%s%s.%s" % (job["job_id"], "[%s]" % job["job_array_index"]
                                     if "job_array_index" in job else "", job["host"])
                is_array = line.split(";")[2].split(".")[0].endswith("[]")
                if errors:
                    print("%s %s" % (ident, "; ".join(errors)))
                    if not is_array:
                        bad = 1
                else:
                    print("%s ok nodes=%s cpus=%s walltime=%s mem=%s" % (
                        ident, job["resources_used_nodes"], job["resources_used_cpus"],
                        job["resources_used_walltime"], job.get("resources_used_mem")))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
