"""`make bench`'s console step: the console in Debian's chromium (headless,
driven by selenium) while fleetd ingests a live fleet. Measures the page's
frame rate and the delay from a fix's commit to its marker being drawn.

    console_bench.py --url URL --user U --password P --udp PORT --vehicles N [--seconds S]

The delay is measured on a probe device: a fix is sent (JSON over UDP)
every 1.5 s with the current time; fleetd acknowledges it after its commit;
the page records when the frame that drew the probe at that fix was
painted. delay = painted − acknowledgement received (both on this
machine's clock; the acknowledgement leaves after the commit, so the
figure is the commit-to-marker delay plus under a millisecond).
"""

import argparse
import json
import os
import socket
import statistics
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--user", required=True)
    ap.add_argument("--password", required=True)
    ap.add_argument("--udp", type=int, required=True)
    ap.add_argument("--vehicles", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--positions", choices=["compact", "batch", "on"], default="compact",
                    help="compact: the console's way (a positions_compact event a round); "
                         "batch: a positions event of full records a round; on: an event a position")
    a = ap.parse_args()

    options = Options()
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900",
                "--disable-dev-shm-usage", "--force-device-scale-factor=1"]:
        options.add_argument(arg)
    options.binary_location = os.environ.get("FLEETD_CHROMIUM", "/usr/bin/chromium")
    d = webdriver.Chrome(service=Service(os.environ.get("FLEETD_CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
    d.set_script_timeout(60)
    try:
        d.get(a.url + ("" if a.positions == "compact" else f"?positions={a.positions}"))
        d.find_element(By.ID, "login-user").send_keys(a.user)
        d.find_element(By.ID, "login-password").send_keys(a.password)
        d.find_element(By.ID, "login-submit").click()
        opened = time.time()
        deadline = time.time() + 60
        while d.execute_script("return document.body.dataset.ready") != "true":
            if time.time() > deadline:
                raise SystemExit("the console did not load in 60 s")
            time.sleep(0.1)
        while d.execute_script("return window.fleetdVehicles.size") < a.vehicles:
            if time.time() > deadline:
                raise SystemExit(f"only {d.execute_script('return window.fleetdVehicles.size')} vehicles on the map")
            time.sleep(0.1)
        loaded = time.time()
        d.execute_script("window.fleetdStats.watch.add('console-probe')")
        # Frames: every animation frame's time, for `seconds`.
        d.execute_script("""
            window.__frames = []; window.__draws = [];
            const start = performance.now();
            const tick = (t) => {
              window.__frames.push(t);
              window.__draws.push(window.fleetdStats.lastDrawMs);
              if (t - start < arguments[0] * 1000) requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
            window.__events0 = window.fleetdStats.positionEvents;
        """, a.seconds)
        started = time.time()
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.settimeout(5)
        delays = []
        seq = 0
        while time.time() - started < a.seconds:
            seq += 1
            now = int(time.time() * 1000)
            fix = {"device": "console-probe", "time": now, "lat": 48.85 + seq * 0.0002, "lon": 2.35,
                   "speed": 40, "course": 0, "seq": seq}
            udp.sendto(json.dumps(fix).encode(), ("127.0.0.1", a.udp))
            try:
                udp.recvfrom(65536)
            except socket.timeout:
                continue
            acked = time.time() * 1000
            painted = d.execute_async_script("""
                const [time, done] = [arguments[0], arguments[1]];
                const until = Date.now() + 5000;
                const check = () => {
                  const p = window.fleetdStats.drawnAt['console-probe'];
                  if (p && p.time >= time) return done(p.at);
                  if (Date.now() > until) return done(null);
                  setTimeout(check, 2);
                };
                check();
            """, now)
            if painted is not None and seq > 1:
                delays.append(painted - acked)
            time.sleep(max(0, 1.5 - (time.time() * 1000 - now) / 1000))
        time.sleep(max(0, a.seconds - (time.time() - started)) + 0.5)
        frames = d.execute_script("return window.__frames")
        draws = [x for x in d.execute_script("return window.__draws") if x]
        events = d.execute_script("return window.fleetdStats.positionEvents - window.__events0")
        drawn = d.execute_script("return window.fleetdStats.drawn")
        total = d.execute_script("return window.fleetdVehicles.size")
        span = (frames[-1] - frames[0]) / 1000 if len(frames) > 1 else float("nan")
        gaps = [b - a for a, b in zip(frames, frames[1:])]
        print(f"position events: {a.positions}")
        print(f"vehicles on the map: {total} ({drawn} in view; the page had them all {loaded - opened:.1f} s after logging in)")
        print(f"position events taken: {events / span:.0f}/s over {span:.1f} s")
        print(f"frame rate: {len(gaps) / span:.1f} frames/s; frame interval p50 {pct(gaps, 50):.1f} ms, p95 {pct(gaps, 95):.1f} ms, max {max(gaps):.0f} ms")
        print(f"vehicle layer draw: p50 {pct(draws, 50):.1f} ms, p95 {pct(draws, 95):.1f} ms")
        if delays:
            print(f"commit to marker drawn ({len(delays)} probes): median {statistics.median(delays):.0f} ms, p95 {pct(delays, 95):.0f} ms, max {max(delays):.0f} ms")
        else:
            print("commit to marker drawn: no probe was drawn")
        print("tsv\t" + "\t".join(str(x) for x in [
            a.positions, total, round(events / span), round(len(gaps) / span, 1), round(pct(gaps, 95), 1), round(max(gaps)),
            round(pct(draws, 50), 1), round(statistics.median(delays)) if delays else "", round(pct(delays, 95)) if delays else ""]))
    finally:
        d.quit()


if __name__ == "__main__":
    sys.exit(main())
