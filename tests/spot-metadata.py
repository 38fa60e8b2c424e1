#!/usr/bin/env python3
"""spot-metadata.py - a cloud provider's metadata service, for the tests.

    spot-metadata.py DIR

Serves on 127.0.0.1 (a port of the kernel's choosing, written to
DIR/port) what the workers' spot notice pollers fetch, per node: a URL
/NODE/... answers as node NODE's metadata service would, from the file
DIR/NODE (absent: nothing planned):
    aws SECONDS     instance-action {"action": "terminate", "time": now+SECONDS}
    gcp             preempted is TRUE
    azure SECONDS   a Preempt scheduled event for NODE, NotBefore now+SECONDS
    garbage         a document that is none of these
The providers' paths and headers are checked as they would be:
    PUT  /latest/api/token   needs X-aws-ec2-metadata-token-ttl-seconds;
                             answers a token
    GET  /NODE/latest/meta-data/spot/instance-action
                             needs X-aws-ec2-metadata-token: a token given
                             (401 otherwise); 404 while nothing is planned
    GET  /NODE/computeMetadata/v1/instance/preempted
                             needs Metadata-Flavor: Google (403 otherwise)
    GET  /NODE/metadata/scheduledevents
                             needs Metadata: true (400 otherwise)
Each request is logged to DIR/requests.log: METHOD PATH STATUS and the
headers that matter.  Only the standard library.  It never listens on
anything but the loopback address.
"""
import email.utils
import http.server
import json
import os
import secrets
import sys
import time

DIR = sys.argv[1]
TOKENS = set()


def state(node):
    try:
        with open(os.path.join(DIR, node)) as f:
            return f.read().split()
    except OSError:
        return []


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body, note=""):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        with open(os.path.join(DIR, "requests.log"), "a") as f:
            f.write(f"{self.command} {self.path} {status} {note}\n")

    def do_PUT(self):
        ttl = self.headers.get("X-aws-ec2-metadata-token-ttl-seconds")
        if self.path != "/latest/api/token" or not ttl:
            return self.answer(400, "bad token request", f"ttl={ttl}")
        token = secrets.token_hex(16)
        TOKENS.add(token)
        self.answer(200, token, f"ttl={ttl}")

    def do_GET(self):
        parts = self.path.split("/", 2)
        if len(parts) < 3:
            return self.answer(404, "no node")
        node, rest = parts[1], "/" + parts[2]
        st = state(node)
        now = time.time()
        if rest == "/latest/meta-data/spot/instance-action":
            token = self.headers.get("X-aws-ec2-metadata-token")
            if token not in TOKENS:
                return self.answer(401, "", "token=bad")
            if st[:1] == ["garbage"]:
                return self.answer(200, "<html>garbage</html>", "token=ok")
            if st[:1] != ["aws"]:
                return self.answer(404, "<html>Not Found</html>", "token=ok")
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + float(st[1])))
            return self.answer(200, json.dumps({"action": "terminate", "time": when}),
                               "token=ok")
        if rest == "/computeMetadata/v1/instance/preempted":
            if self.headers.get("Metadata-Flavor") != "Google":
                return self.answer(403, "missing Metadata-Flavor")
            if st[:1] == ["garbage"]:
                return self.answer(200, "maybe", "flavor=ok")
            return self.answer(200, "TRUE" if st[:1] == ["gcp"] else "FALSE", "flavor=ok")
        if rest.startswith("/metadata/scheduledevents"):
            if self.headers.get("Metadata") != "true":
                return self.answer(400, "missing Metadata header")
            if st[:1] == ["garbage"]:
                return self.answer(200, "{\"Events\": 7}", "metadata=ok")
            events = []
            if st[:1] == ["azure"]:
                events.append({"EventId": "e1", "EventType": "Preempt",
                               "ResourceType": "VirtualMachine", "Resources": [node],
                               "EventStatus": "Scheduled", "DurationInSeconds": -1,
                               "NotBefore": email.utils.formatdate(now + float(st[1]),
                                                                   usegmt=True)})
            return self.answer(200, json.dumps({"DocumentIncarnation": 1, "Events": events}),
                               "metadata=ok")
        self.answer(404, "unknown path")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(os.path.join(DIR, "port.tmp"), "w") as f:
    f.write(str(server.server_address[1]))
os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
server.serve_forever()
