// Aggregates the queue benchmark's runs (bench/queue/run): medians per system,
// ratios peto/peer, the result file and a Markdown table on stdout.
//
//   node report.mjs META.json RUNS.jsonl OUT.json
import { readFileSync, writeFileSync } from "node:fs";

const [metaFile, runsFile, outFile] = process.argv.slice(2);
const meta = JSON.parse(readFileSync(metaFile, "utf8"));
const runs = readFileSync(runsFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

const median = (xs) => {
  const s = xs.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r1 = (x) => (x == null ? null : Math.round(x * 10) / 10);
const r2 = (x) => (x == null ? null : Math.round(x * 100) / 100);

const DESCRIPTIONS = {
  peto: "peto queue_bench",
  "graphile-worker": "graphile-worker, documented performance configuration (concurrency 24, pool 25, localQueue 500, completeJobBatchDelay 0, failJobBatchDelay 0)",
  "graphile-worker-defaults": "graphile-worker, defaults except concurrency 24 and pool 25 (no local queue, no batched completion)",
  "pg-boss": `pg-boss, 24 workers (work() x 24), batchSize ${meta.settings.pgboss_fetch_batch}, pollingIntervalSeconds 0.5 (its minimum), notifyWorker(id) after a full batch (burst), pool max 25; no LISTEN/NOTIFY in pg-boss 10`,
};

const labels = [...new Set(runs.map((r) => r.label))];
const systems = {};
const medians = {};
for (const label of labels) {
  const ok = (mode) => runs.filter((r) => r.label === label && r.mode === mode && r.ok);
  const tp = ok("throughput");
  const lat = ok("latency");
  const idle = ok("idle");
  const settings = [...tp, ...lat, ...idle].map((r) => r.result.settings).find(Boolean) ?? null;
  systems[label] = { description: DESCRIPTIONS[label] ?? label, settings };
  medians[label] = {
    throughput_jobs_per_s: r1(median(tp.map((r) => r.result.jobs_per_s))),
    latency_p50_ms: r2(median(lat.map((r) => r.result.p50_ms))),
    latency_p99_ms: r2(median(lat.map((r) => r.result.p99_ms))),
    idle_statements_per_min: r1(median(idle.map((r) => r.driver?.statements_per_min))),
    latency_enqueue_rate_achieved: r1(median(lat.map((r) => r.result.enqueue_rate_achieved))),
    latency_enqueue_p50_ms: r2(median(lat.map((r) => r.result.enqueue_p50_ms))),
    runs_ok: { throughput: tp.length, latency: lat.length, idle: idle.length },
    runs_failed: runs.filter((r) => r.label === label && !r.ok).length,
  };
}

// peto / peer for each figure: throughput > 1 means peto is faster; latency
// and idle < 1 mean peto is lower (better).
const ratios = {};
const peto = medians.peto;
if (peto) {
  for (const label of labels) {
    if (label === "peto") continue;
    const m = medians[label];
    const div = (a, b) => (a == null || b == null || b === 0 ? null : Number((a / b).toPrecision(3)));
    ratios[label] = {
      throughput: div(peto.throughput_jobs_per_s, m.throughput_jobs_per_s),
      latency_p50: div(peto.latency_p50_ms, m.latency_p50_ms),
      latency_p99: div(peto.latency_p99_ms, m.latency_p99_ms),
      idle_statements: div(peto.idle_statements_per_min, m.idle_statements_per_min),
    };
  }
}

const notes = [
  "throughput: jobs enqueued in batches of 1,000 first, then ANALYZE of the database (neither timed; without the ANALYZE the query plans depend on whether autovacuum has yet analyzed the freshly filled table, which swung pg-boss between ~1,000 and ~8,000 jobs/s from run to run); time from just before the worker starts until the database shows no unfinished job (polled every 25 ms on a separate connection).",
  "latency: one process enqueues (open loop, single jobs) and works; enqueue call to handler start, wall clock with sub-ms resolution.",
  "idle: pg_stat_statements calls summed over the window for the system's own database only (the driver's queries run in database postgres); all systems idle side by side, each in its own database; one worker process per system with the same concurrency as above.",
  "each system gets a freshly created database (and a CHECKPOINT) before every measurement.",
  "graphile-worker 0.16.x has no localQueue / completeJobBatchDelay (its documented performance configuration needs 0.17+); 0.17.3 is the newest release that supports Node.js 20 (0.18 needs Node >= 22.18).",
  "pg-boss 10 is the newest major that supports Node.js 20 (11+ need Node >= 22); it has no LISTEN/NOTIFY and no burst option: latency is its polling at the minimum interval (0.5 s) of each of its 24 workers, and the burst is done with notifyWorker(id) after a full batch.",
  "graphile-worker NOTIFYs inside every enqueuing transaction; PostgreSQL serializes the commits of transactions that NOTIFY (a global lock held through the WAL flush), so with fsync and synchronous_commit on, single enqueues top out near 1 / (WAL flush time) per second (see latency_enqueue_rate_achieved); when that is below the target rate the latency test saturates and its latency grows with the test's length.",
];

const out = { benchmark: "queue", ...meta, systems, notes, medians, ratios_peto_over_peer: ratios, runs };
writeFileSync(outFile, JSON.stringify(out, null, 2) + "\n");

const fmt = (x, d = 1) => (x == null ? "—" : x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }));
const lines = [];
const saturated = [];
lines.push(`Queue benchmark (${meta.settings.quick ? "QUICK, " : ""}${meta.settings.jobs.toLocaleString("en-US")} jobs, concurrency ${meta.settings.concurrency}, ` +
  `latency at ${meta.settings.latency_rate_per_s}/s for ${meta.settings.latency_seconds} s, idle over ${meta.settings.idle_window_seconds} s; ` +
  `median of ${meta.settings.runs} run${meta.settings.runs > 1 ? "s" : ""}; PostgreSQL ${meta.postgres.version.split(" ")[1]}, fsync and synchronous_commit on; ` +
  `${meta.machine.cpus} cores; graphile-worker ${meta.versions["graphile-worker"]}, pg-boss ${meta.versions["pg-boss"]}, Node.js ${meta.machine.node})`);
lines.push("");
lines.push("| system | throughput (jobs/s) | p50 latency (ms) | p99 latency (ms) | idle (statements/min) | peto ÷ system: throughput (higher is better) · p50 · idle (lower is better) |");
lines.push("|---|---:|---:|---:|---:|---|");
for (const label of labels) {
  const m = medians[label];
  const r = ratios[label];
  const x = (v) => (v == null ? "—" : `${v >= 0.1 ? fmt(v, 2) : String(v)}×`);
  const ratio = label === "peto" ? "—" : r ? `${x(r.throughput)} · ${x(r.latency_p50)} · ${x(r.idle_statements)}` : "(peto not run)";
  const name = { "graphile-worker": "graphile-worker (performance config)", "graphile-worker-defaults": "graphile-worker (defaults)" }[label] ?? label;
  const sat = m.latency_enqueue_rate_achieved != null && m.latency_enqueue_rate_achieved < 0.95 * meta.settings.latency_rate_per_s;
  if (sat) saturated.push(`${name}: enqueues acknowledged at ${fmt(m.latency_enqueue_rate_achieved, 0)}/s`);
  const star = sat ? " *" : "";
  lines.push(`| ${name} | ${fmt(m.throughput_jobs_per_s, 0)} | ${fmt(m.latency_p50_ms, 1)}${star} | ${fmt(m.latency_p99_ms, 1)}${star} | ${fmt(m.idle_statements_per_min, 1)} | ${ratio} |`);
}
if (saturated.length) {
  lines.push("", `\* saturated: the enqueue side could not sustain ${meta.settings.latency_rate_per_s} single enqueues/s (${saturated.join("; ")}), so the backlog, and with it the latency, grows with the test's length.`);
}
const failed = runs.filter((r) => !r.ok);
if (failed.length) lines.push("", `Failed measurements: ${failed.map((r) => `${r.label} ${r.mode} run ${r.run}`).join(", ")}`);
console.log(lines.join("\n"));
