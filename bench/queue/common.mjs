// Shared helpers for the peer programs of the queue benchmark (graphile.mjs,
// pgboss.mjs). The driver (bench/queue/run) copies these files next to the
// peers' node_modules in its temp folder and runs them there. The CLI and the
// JSON lines they print are the contract described at the top of
// bench/queue/run; the peto program (queue_bench) follows the same contract.
import pg from "pg";

// Wall clock with sub-millisecond resolution, shared by enqueuer and worker
// (they run in one process).
export const nowMs = () => performance.timeOrigin + performance.now();

export function parseArgs(argv) {
  const opts = {
    mode: null,
    url: null,
    jobs: 100000,
    concurrency: 24,
    rate: 500,
    seconds: 20,
    batch: 1000, // enqueue batch size (throughput mode)
    config: "fast",
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => {
      if (i + 1 >= argv.length) throw new Error(`missing value for ${a}`);
      return argv[++i];
    };
    switch (a) {
      case "--mode": opts.mode = v(); break;
      case "--url": opts.url = v(); break;
      case "--jobs": opts.jobs = Number(v()); break;
      case "--concurrency": opts.concurrency = Number(v()); break;
      case "--rate": opts.rate = Number(v()); break;
      case "--seconds": opts.seconds = Number(v()); break;
      case "--batch": opts.batch = Number(v()); break;
      case "--config": opts.config = v(); break;
      default: throw new Error(`unknown argument ${a}`);
    }
  }
  if (!["throughput", "latency", "idle"].includes(opts.mode)) throw new Error("--mode throughput|latency|idle");
  if (!opts.url) throw new Error("--url is required");
  return opts;
}

export function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Polls `sql` (which must return one row with a boolean column `busy`) on a
// connection of its own every `everyMs` until it says false; returns the
// time (nowMs) of the first check that saw the queue empty.
export async function waitUntilDrained(url, sql, params = [], everyMs = 25, timeoutMs = 30 * 60 * 1000) {
  const client = new pg.Client({ connectionString: url, application_name: "bench-harness" });
  await client.connect();
  const deadline = nowMs() + timeoutMs;
  try {
    for (;;) {
      const { rows } = await client.query(sql, params);
      const t = nowMs();
      if (!rows[0].busy) return t;
      if (t > deadline) throw new Error("queue did not drain in time");
      await sleep(everyMs);
    }
  } finally {
    await client.end();
  }
}

// Throughput mode, after enqueuing and before the timer starts: ANALYZE the
// whole database, so that every system's queries are planned with statistics
// for the table as it now is. Without it the plans depend on whether
// autovacuum happened to analyze the freshly filled table before or during
// the run (pg-boss's fetch, for one, ran 5-8x slower or faster by that
// chance). Returns the seconds it took.
export async function analyze(url) {
  const client = new pg.Client({ connectionString: url, application_name: "bench-harness" });
  await client.connect();
  const t0 = nowMs();
  try {
    await client.query("ANALYZE");
  } finally {
    await client.end();
  }
  return (nowMs() - t0) / 1000;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

const round = (x, d = 3) => (x == null ? null : Math.round(x * 10 ** d) / 10 ** d);

export function latencySummary(lat) {
  const s = Float64Array.from(lat).sort();
  const mean = s.length ? s.reduce((a, b) => a + b, 0) / s.length : null;
  return {
    count: s.length,
    p50_ms: round(percentile(s, 50)),
    p90_ms: round(percentile(s, 90)),
    p99_ms: round(percentile(s, 99)),
    max_ms: round(s.length ? s[s.length - 1] : null),
    mean_ms: round(mean),
  };
}

// Open-loop sender: calls send(t) at a steady `rate` per second for
// `seconds`, never waiting for earlier calls to finish. `t` is the moment of
// the call (nowMs). Returns once every call has settled, with the number of
// calls, errors and how far behind schedule the sender ever fell.
export async function openLoop(rate, seconds, send) {
  const n = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const pending = [];
  let errors = 0;
  let maxLag = 0;
  const ack = [];
  let lastAck = 0;
  let i = 0;
  const start = nowMs() + 20;
  await new Promise((resolve) => {
    const tick = () => {
      const now = nowMs();
      while (i < n && start + i * interval <= now) {
        const t = nowMs();
        maxLag = Math.max(maxLag, t - (start + i * interval));
        pending.push(
          send(t).then(() => { const a = nowMs(); ack.push(a - t); lastAck = Math.max(lastAck, a); }, (e) => {
            errors++;
            if (errors <= 3) console.error("enqueue failed:", e.message);
          }),
        );
        i++;
      }
      if (i < n) setTimeout(tick, Math.max(0, Math.min(interval, start + i * interval - nowMs())));
      else resolve();
    };
    tick();
  });
  const sendSeconds = (nowMs() - start) / 1000;
  await Promise.all(pending);
  const a = Float64Array.from(ack).sort();
  return {
    sent: n, errors, send_seconds: round(sendSeconds), max_send_lag_ms: round(maxLag),
    enqueue_p50_ms: round(percentile(a, 50)), enqueue_p99_ms: round(percentile(a, 99)),
    // Enqueues acknowledged per second, first call to last acknowledgement:
    // below the target rate means the enqueue side itself could not keep up.
    enqueue_rate_achieved: round(ack.length / ((lastAck - start) / 1000), 1),
  };
}

// Waits until `count()` reaches `n` or no progress for `quietMs`.
export async function waitForCount(count, n, quietMs = 15000) {
  let last = -1;
  let lastChange = nowMs();
  while (count() < n) {
    const c = count();
    if (c !== last) {
      last = c;
      lastChange = nowMs();
    } else if (nowMs() - lastChange > quietMs) {
      break;
    }
    await sleep(20);
  }
}

// Idle mode: signal readiness (the driver resets pg_stat_statements after
// this line), then idle for `seconds`.
export async function idle(system, opts) {
  emit({ system, mode: "idle", event: "ready" });
  await sleep(opts.seconds * 1000);
  return { system, mode: "idle", seconds: opts.seconds, concurrency: opts.concurrency };
}

export { round };
