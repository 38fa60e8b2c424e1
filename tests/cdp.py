#!/usr/bin/env python3
"""cdp.py [--no-js] [--size WxH] [--shot FILE] [--wait SECONDS] URL EXPR...

Load URL in headless Chromium and print, one line each, the JSON value of
each JavaScript EXPR evaluated in the loaded page (an EXPR "!sleep N"
waits N seconds, "!sh CMD" runs CMD, so a test can change the cluster
while the page is open) (by the DevTools
protocol over --remote-debugging-pipe, so it works with the page's own
scripts off: --no-js).  --wait: seconds to let the page's script run
after the load (its refresh).  --shot: a PNG of the viewport.  What a test
can see this way and not with --dump-dom: layout (widths at a phone's
size) and the page with JavaScript disabled.
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, args):
        exe = (shutil.which("chromium") or shutil.which("chromium-browser")
               or shutil.which("google-chrome"))
        if not exe:
            sys.exit("cdp.py: no chromium")
        self.home = tempfile.mkdtemp(prefix="hpcq-cdp.")
        to_b, self.from_me = os.pipe()   # fd 3: what Chromium reads
        self.to_me, from_b = os.pipe()   # fd 4: what it writes
        os.set_inheritable(to_b, True)
        os.set_inheritable(from_b, True)

        def fds():
            os.dup2(to_b, 3)
            os.dup2(from_b, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--hide-scrollbars", "--remote-debugging-pipe",
             "--user-data-dir=" + self.home, "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=dict(os.environ, HOME=self.home))
        os.close(to_b)
        os.close(from_b)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.from_me, json.dumps(msg).encode() + b"\0")
        while True:
            m = self.read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.to_me, 65536)
            if not chunk:
                raise RuntimeError("chromium went away")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\0", 1)
        return json.loads(line)

    def wait_event(self, method, session, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    del self.events[i]
                    return m
            self.events.append(self.read())
        raise RuntimeError("no " + method)

    def close(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.home, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-js", action="store_true")
    ap.add_argument("--size", default="1280x1000")
    ap.add_argument("--shot")
    ap.add_argument("--wait", type=float, default=0)
    ap.add_argument("url")
    ap.add_argument("exprs", nargs="*")
    a = ap.parse_args()
    w, h = (int(x) for x in a.size.split("x"))
    b = Browser(a)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        b.send("Page.enable", session=s)
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": w < 600},
               session=s)
        if a.no_js:
            b.send("Emulation.setScriptExecutionDisabled", {"value": True}, session=s)
        b.send("Page.navigate", {"url": a.url}, session=s)
        b.wait_event("Page.loadEventFired", s)
        time.sleep(a.wait)
        for e in a.exprs:
            if e.startswith("!sleep "):
                time.sleep(float(e[7:]))
                continue
            if e.startswith("!sh "):
                subprocess.run(e[4:], shell=True, check=True, stdout=subprocess.DEVNULL)
                continue
            r = b.send("Runtime.evaluate", {"expression": e, "returnByValue": True},
                       session=s)
            if "exceptionDetails" in r:
                print(json.dumps({"error": r["exceptionDetails"].get("text")}))
            else:
                print(json.dumps(r["result"].get("value")))
        if a.shot:
            png = b.send("Page.captureScreenshot", {"format": "png",
                         "captureBeyondViewport": True}, session=s)["data"]
            with open(a.shot, "wb") as f:
                f.write(base64.b64decode(png))
    finally:
        b.close()


if __name__ == "__main__":
    main()
