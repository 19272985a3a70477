// pg-boss side of the queue benchmark. See bench/queue/run for the CLI and
// JSON contract.
//
//   node pgboss.mjs --mode throughput|latency|idle --url URL --jobs N
//        --concurrency C [--rate R --seconds S] [--fetch-batch B]
//
// pg-boss 10 (the last major that runs on Node.js 20; 11 and later need 22)
// has neither LISTEN/NOTIFY nor a burst option: workers poll. Its fast path
// here: C workers (one work() call each; v10 dropped teamSize), each fetching
// up to B jobs per poll (batchSize B > 1), polling at the minimum interval
// pg-boss allows (pollingIntervalSeconds 0.5), and "burst": when a fetch comes
// back full the handler calls boss.notifyWorker(id), pg-boss's documented way
// to skip the polling delay, so the worker fetches again at once. Pool max
// C+1 (as graphile-worker). pg-boss logs nothing per job.
import { createRequire } from "node:module";
import PgBoss from "pg-boss";
import {
  parseArgs, emit, nowMs, waitUntilDrained, latencySummary, openLoop, waitForCount, idle, round, analyze,
} from "./common.mjs";

const require = createRequire(import.meta.url);
const version = require("pg-boss/package.json").version;

const argv = process.argv.slice(2);
let fetchBatch = 1000;
const fb = argv.indexOf("--fetch-batch");
if (fb >= 0) {
  fetchBatch = Number(argv[fb + 1]);
  argv.splice(fb, 2);
}
const opts = parseArgs(argv);
const system = "pg-boss";
const QUEUE = "noop";
const POLL_SECONDS = 0.5;

const settings = () => ({
  package: "pg-boss", version, workers: opts.concurrency, batchSize: fetchBatch,
  pollingIntervalSeconds: POLL_SECONDS, burst: "notifyWorker(id) after a full batch", max: opts.concurrency + 1,
  notify: "none in pg-boss 10 (polling only)",
});

async function startWorkers(boss, onJobs) {
  const ids = [];
  for (let w = 0; w < opts.concurrency; w++) {
    const me = { id: null };
    me.id = await boss.work(QUEUE, { batchSize: fetchBatch, pollingIntervalSeconds: POLL_SECONDS }, async (jobs) => {
      onJobs(jobs);
      if (jobs.length >= fetchBatch && me.id) boss.notifyWorker(me.id);
    });
    ids.push(me.id);
  }
  return ids;
}

async function main() {
  const boss = new PgBoss({ connectionString: opts.url, max: opts.concurrency + 1, application_name: "pg-boss" });
  boss.on("error", (e) => console.error("[pg-boss error]", e.message));
  await boss.start();
  await boss.createQueue(QUEUE);
  let result;
  if (opts.mode === "throughput") result = await throughput(boss);
  else if (opts.mode === "latency") result = await latency(boss);
  else {
    await startWorkers(boss, () => {});
    result = await idle(system, opts);
  }
  await boss.stop({ graceful: false, wait: true, close: true, timeout: 5000 });
  emit({ ...result, settings: settings() });
}

async function throughput(boss) {
  const t0 = nowMs();
  for (let done = 0; done < opts.jobs; done += opts.batch) {
    const n = Math.min(opts.batch, opts.jobs - done);
    const jobs = new Array(n);
    for (let i = 0; i < n; i++) jobs[i] = { name: QUEUE, data: { i: done + i } };
    await boss.insert(jobs);
  }
  const enqueueSeconds = (nowMs() - t0) / 1000;
  const analyzeSeconds = await analyze(opts.url);
  let handled = 0;
  const start = nowMs();
  await startWorkers(boss, (jobs) => { for (let i = 0; i < jobs.length; i++) handled++; });
  const end = await waitUntilDrained(
    opts.url,
    "SELECT EXISTS (SELECT 1 FROM pgboss.job WHERE name = $1 AND state < 'completed') AS busy",
    [QUEUE],
  );
  const seconds = (end - start) / 1000;
  return {
    system, mode: "throughput", jobs: opts.jobs, concurrency: opts.concurrency, handled,
    enqueue_seconds: round(enqueueSeconds), analyze_seconds: round(analyzeSeconds),
    seconds: round(seconds), jobs_per_s: round(opts.jobs / seconds, 1),
  };
}

async function latency(boss) {
  const lat = [];
  await startWorkers(boss, (jobs) => {
    const t = nowMs();
    for (const j of jobs) lat.push(t - j.data.t);
  });
  const sent = await openLoop(opts.rate, opts.seconds, (t) => boss.send(QUEUE, { t }));
  await waitForCount(() => lat.length, sent.sent - sent.errors);
  return {
    system, mode: "latency", rate: opts.rate, seconds: opts.seconds, concurrency: opts.concurrency,
    ...sent, ...latencySummary(lat),
  };
}

main().then(
  () => process.exit(0),
  (e) => { console.error(e); process.exit(1); },
);
