#!/usr/bin/env python3
"""make-topology.py - write the hwloc XML topologies the GPU-binding tests load
(worker config topology_xml; hwloc_topology_set_xml).

  dgx   a DGX-H100-like node: 2 sockets of 56 cores, 2 hardware threads each
        (Linux numbering: the second threads follow all first threads), one
        NUMA node per socket, 8 H100 SXM GPUs, 4 behind each socket's PCIe
        root complex at DGX H100's bus ids.
  4gpu  a single-socket node: 32 cores x 2 threads, one NUMA node, 4 GPUs.

Simulated machines: no such hardware was read; the files stand in for
lstopo --of xml on those nodes.  Usage: make-topology.py dgx|4gpu > FILE
"""
import sys


def mask(cpus):
    v = 0
    for c in cpus:
        v |= 1 << c
    h = "%x" % v
    h = h.rjust((len(h) + 7) // 8 * 8, "0")
    return ",".join("0x" + h[i:i + 8] for i in range(0, len(h), 8))


class Gen:
    def __init__(self):
        self.gp = 0
        self.out = []

    def gpi(self):
        self.gp += 1
        return self.gp

    def line(self, depth, s):
        self.out.append("  " * depth + s)


def build(sockets, cores, threads, gpus_per_socket, busids, name):
    g = Gen()
    total_cores = sockets * cores
    allpus = list(range(total_cores * threads))
    nodes = list(range(sockets))
    g.line(0, '<?xml version="1.0" encoding="UTF-8"?>')
    g.line(0, '<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
    g.line(0, '<topology version="2.0">')
    m = mask(allpus)
    n = mask(nodes)
    g.line(1, '<object type="Machine" os_index="0" cpuset="%s" complete_cpuset="%s" '
              'allowed_cpuset="%s" nodeset="%s" complete_nodeset="%s" allowed_nodeset="%s" '
              'gp_index="%d">' % (m, m, m, n, n, n, g.gpi()))
    g.line(2, '<info name="DMIProductName" value="%s (simulated topology)"/>' % name)
    for s in range(sockets):
        pus = [s * cores + c + t * total_cores for c in range(cores) for t in range(threads)]
        cs, ns = mask(pus), mask([s])
        attrs = 'cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s"' % (cs, cs, ns, ns)
        g.line(2, '<object type="Package" os_index="%d" %s gp_index="%d">' % (s, attrs, g.gpi()))
        g.line(3, '<info name="CPUModel" value="Intel(R) Xeon(R) Platinum 8480C (simulated)"/>')
        g.line(3, '<object type="NUMANode" os_index="%d" %s gp_index="%d" local_memory="1082331758592">'
               % (s, attrs, g.gpi()))
        g.line(4, '<page_type size="4096" count="0"/>')
        g.line(3, '</object>')
        for c in range(cores):
            core = s * cores + c
            cp = [core + t * total_cores for t in range(threads)]
            cm = mask(cp)
            g.line(3, '<object type="Core" os_index="%d" cpuset="%s" complete_cpuset="%s" '
                      'nodeset="%s" complete_nodeset="%s" gp_index="%d">' % (core, cm, cm, ns, ns, g.gpi()))
            for p in cp:
                pm = mask([p])
                g.line(4, '<object type="PU" os_index="%d" cpuset="%s" complete_cpuset="%s" '
                          'nodeset="%s" complete_nodeset="%s" gp_index="%d"/>' % (p, pm, pm, ns, ns, g.gpi()))
            g.line(3, '</object>')
        for k in range(gpus_per_socket):
            bus = busids[s * gpus_per_socket + k]
            dom, b = bus.split(":")[0], bus.split(":")[1]
            g.line(3, '<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" '
                      'bridge_pci="%s:[%s-%s]">' % (g.gpi(), dom, b, b))
            g.line(4, '<object type="PCIDev" gp_index="%d" pci_busid="%s" '
                      'pci_type="0302 [10de:2330] [10de:16c1] a1" pci_link_speed="31.507692">'
                   % (g.gpi(), bus))
            g.line(5, '<info name="PCIVendor" value="NVIDIA Corporation"/>')
            g.line(5, '<info name="PCIDevice" value="GH100 [H100 SXM5 80GB] (simulated)"/>')
            g.line(4, '</object>')
            g.line(3, '</object>')
        g.line(2, '</object>')
    g.line(1, '</object>')
    g.line(0, '</topology>')
    return "\n".join(g.out) + "\n"


DGX_BUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
           "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]
FOUR_BUS = ["0000:01:00.0", "0000:41:00.0", "0000:81:00.0", "0000:c1:00.0"]

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("dgx", "4gpu"):
        sys.exit("usage: make-topology.py dgx|4gpu")
    if sys.argv[1] == "dgx":
        sys.stdout.write(build(2, 56, 2, 4, DGX_BUS, "DGX-H100-like"))
    else:
        sys.stdout.write(build(1, 32, 2, 4, FOUR_BUS, "4-GPU single-socket"))
