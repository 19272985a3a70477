"""bench/soak/result.py: one backend's soak result, for bench/soak/run.

Reads $SOAK_RUN/wrk.txt (the SOAK_RESULT line that mix.lua's done() prints)
and $SOAK_RUN/samples.txt ("<seconds> <VmRSS KiB> <fds> <threads>" every 5 s),
judges the run and writes $SOAK_OUT (JSON).
"""
import datetime
import json
import os
import platform
import subprocess
import sys

env = os.environ
run = env["SOAK_RUN"]
seconds = int(env["SOAK_SECONDS"])
warmup = int(env["SOAK_WARMUP"])
threads, connections, accounts, tokens_per_account, interval, fd_margin, rss_margin_pct = map(
    int, env["SOAK_SETTINGS"].split())

text = open(os.path.join(run, "wrk.txt")).read()
line = next((l for l in text.splitlines() if l.startswith("SOAK_RESULT ")), None)
if line is None:
    sys.exit(f"bench/soak/run: no SOAK_RESULT in wrk's output:\n{text}")
w = json.loads(line[len("SOAK_RESULT "):])

samples = []
for l in open(os.path.join(run, "samples.txt")):
    parts = l.split()
    if len(parts) == 4:
        samples.append({"t_s": float(parts[0]), "rss_kib": int(parts[1]), "fds": int(parts[2]),
                        "threads": int(parts[3])})
if len(samples) < 3:
    sys.exit(f"bench/soak/run: only {len(samples)} samples; the run is too short to judge")

# Warm-up: the first sample at or after `warmup` seconds; end: the last one
# taken while wrk still ran.
t_end = float(env["SOAK_T_END"])
during = [s for s in samples if s["t_s"] <= t_end] or samples
warm = next((s for s in during if s["t_s"] >= warmup), during[0])
end = during[-1]
after = [s for s in during if s["t_s"] >= warm["t_s"]]
# RSS moves by a few per cent from sample to sample under load (allocator
# arenas, buffers of the connections in flight): the growth is judged on the
# median of the first WINDOW samples from warm-up against the median of the
# last WINDOW samples (30 s each at the 5 s interval), fewer on short runs.
WINDOW = max(1, min(6, len(after) // 3))


def median(values):
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) // 2


warm_rss = median(s["rss_kib"] for s in after[:WINDOW])
end_rss = median(s["rss_kib"] for s in after[-WINDOW:])

ok_statuses = {"200", "201", "204"}
errors = sum(v for k, v in w["statuses"].items() if k not in ok_statuses)
socket_errors = sum(w["socket_errors"].values())
rss_growth = end_rss - warm_rss
rss_growth_pct = 100.0 * rss_growth / warm_rss
fd_growth = end["fds"] - warm["fds"]
rows = list(map(int, env["SOAK_ROWS"].split()))

# The mix deletes what it creates: what is left is what wrk stopped before
# deleting, one 201 not matched by a 204, give or take the requests in flight
# when it stopped (at most one a connection).
undeleted = w["statuses"].get("201", 0) - w["statuses"].get("204", 0)
rows_grown = (rows[1] - rows[0]) + (rows[3] - rows[2])

reasons = []
if abs(rows_grown - undeleted) > connections:
    reasons.append(f"reminders and notes grew by {rows_grown}, not by the {undeleted} left undeleted")
if errors:
    reasons.append(f"{errors} answers other than 200/201/204: {w['statuses']}")
if socket_errors:
    reasons.append(f"socket errors {w['socket_errors']}")
if fd_growth > fd_margin:
    reasons.append(f"open fds grew by {fd_growth} after warm-up (allowed {fd_margin})")
if rss_growth_pct > rss_margin_pct:
    reasons.append(f"RSS grew by {rss_growth_pct:.1f} % after warm-up (allowed {rss_margin_pct} %)")


def tool_version(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return (r.stdout + r.stderr).strip().splitlines()[0]
    except Exception as e:
        return f"unknown ({e})"


def git_commit():
    try:
        r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return r.stdout.strip() + ("+dirty" if dirty else "") if r.returncode == 0 else None
    except Exception:
        return None


try:
    load = open("/proc/loadavg").read().split()[:3]
except OSError:
    load = None

duration_s = w["duration_us"] / 1e6
result = {
    "backend": env["SOAK_BACKEND"],
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "duration_s": round(duration_s),
    "requests": w["requests"],
    "rps": round(w["requests"] / duration_s, 1),
    "p50_ms": w["latency_us"]["p50"] / 1000,
    "p90_ms": w["latency_us"]["p90"] / 1000,
    "p99_ms": w["latency_us"]["p99"] / 1000,
    "p999_ms": w["latency_us"]["p999"] / 1000,
    "max_ms": w["latency_us"]["max"] / 1000,
    "errors": errors + socket_errors,
    "statuses": w["statuses"],
    "socket_errors": w["socket_errors"],
    "mix": w["kinds"],
    "warmup_s": warm["t_s"],
    "rss_kib": {"warmup": warm_rss, "end": end_rss,
                "judged_on": f"median of {WINDOW} samples from warm-up / of the last {WINDOW}",
                "warmup_sample": warm["rss_kib"], "end_sample": end["rss_kib"],
                "growth": rss_growth, "growth_pct": round(rss_growth_pct, 2),
                "max": max(s["rss_kib"] for s in during),
                "max_after_warmup": max(s["rss_kib"] for s in after),
                "after_run_idle": int(env["SOAK_IDLE_RSS"])},
    "fds": {"warmup": warm["fds"], "end": end["fds"], "growth": fd_growth,
            "max": max(s["fds"] for s in during), "after_run_idle": int(env["SOAK_IDLE_FDS"])},
    "server_threads": {"warmup": warm["threads"], "end": end["threads"]},
    "rows": {"reminders": {"before": rows[0], "after": rows[1]},
             "notes": {"before": rows[2], "after": rows[3]},
             "created_not_yet_deleted_when_wrk_stopped": undeleted},
    "samples": during,
    "verdict": "pass" if not reasons else "fail",
    "reasons": reasons,
    "settings": {
        "wrk": f"wrk -t{threads} -c{connections} -d{seconds}s --timeout 10s -s bench/soak/mix.lua",
        "accounts": accounts, "tokens_per_account": tokens_per_account,
        "sample_interval_s": interval, "fd_margin": fd_margin, "rss_margin_pct": rss_margin_pct,
        "data_set": "peto demo, per account",
        "note": "wrk and peto share a 2-core machine with other work; figures are of that machine",
    },
    "machine": {"nproc": os.cpu_count(), "kernel": platform.release(), "loadavg_after": load},
    "versions": {"peto": tool_version([env["SOAK_PETO"], "version"]), "peto_commit": git_commit(),
                 "wrk": tool_version([env["SOAK_WRK"], "-v"])},
}
with open(env["SOAK_OUT"], "w") as f:
    json.dump(result, f, indent=2)
    f.write("\n")
print(f"bench/soak/run: {result['backend']}: {result['requests']:,} requests, {result['rps']:,.0f}/s, "
      f"p99 {result['p99_ms']:.2f} ms, {result['errors']} errors; RSS {warm_rss} → {end_rss} KiB "
      f"({rss_growth_pct:+.1f} %), fds {warm['fds']} → {end['fds']}: {result['verdict']}"
      + ("" if not reasons else " (" + "; ".join(reasons) + ")"), file=sys.stderr)
