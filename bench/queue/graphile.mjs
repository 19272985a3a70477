// graphile-worker side of the queue benchmark. See bench/queue/run for the
// CLI and JSON contract.
//
//   node graphile.mjs --mode throughput|latency|idle --url URL --jobs N
//        --concurrency C [--rate R --seconds S] [--config fast|defaults]
//
// --config fast     the documented performance configuration
//                   (https://worker.graphile.org/docs/performance): concurrentJobs C,
//                   maxPoolSize C+1, localQueue {size: 500},
//                   completeJobBatchDelay 0, failJobBatchDelay 0.
// --config defaults concurrentJobs C and maxPoolSize C+1 (graphile-worker warns
//                   when the pool is smaller than the concurrency), all else at
//                   its defaults (no local queue, no batched completion,
//                   pollInterval 2000, LISTEN/NOTIFY on).
// Per-job logging ("Completed task ...") is silenced in both: only warnings
// and errors are printed (to stderr).
import { createRequire } from "node:module";
import { run, makeWorkerUtils, Logger } from "graphile-worker";
import {
  parseArgs, emit, nowMs, waitUntilDrained, latencySummary, openLoop, waitForCount, idle, round, analyze,
} from "./common.mjs";

const require = createRequire(import.meta.url);
const version = require("graphile-worker/package.json").version;

const opts = parseArgs(process.argv.slice(2));
const system = opts.config === "fast" ? "graphile-worker" : "graphile-worker-defaults";

const logger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.error(`[graphile-worker ${level}] ${message}`);
});

function workerPreset() {
  const worker = {
    connectionString: opts.url,
    concurrentJobs: opts.concurrency,
    maxPoolSize: opts.concurrency + 1,
    logger,
  };
  if (opts.config === "fast") {
    Object.assign(worker, { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 });
  } else if (opts.config !== "defaults") {
    throw new Error("--config fast|defaults");
  }
  return { worker };
}

const settings = () => {
  const { logger: _l, connectionString: _c, ...rest } = workerPreset().worker;
  return { package: "graphile-worker", version, config: opts.config, ...rest };
};

async function main() {
  const utils = await makeWorkerUtils({ connectionString: opts.url, logger });
  await utils.migrate();
  let result;
  try {
    if (opts.mode === "throughput") result = await throughput(utils);
    else if (opts.mode === "latency") result = await latency(utils);
    else result = await idleMode();
  } finally {
    await utils.release();
  }
  emit({ ...result, settings: settings() });
}

async function throughput(utils) {
  const t0 = nowMs();
  for (let done = 0; done < opts.jobs; done += opts.batch) {
    const n = Math.min(opts.batch, opts.jobs - done);
    const specs = new Array(n);
    for (let i = 0; i < n; i++) specs[i] = { identifier: "noop", payload: { i: done + i } };
    await utils.addJobs(specs);
  }
  const enqueueSeconds = (nowMs() - t0) / 1000;
  const analyzeSeconds = await analyze(opts.url);
  let handled = 0;
  const start = nowMs();
  const runner = await run({
    noHandleSignals: true,
    taskList: { noop: async () => { handled++; } },
    preset: workerPreset(),
  });
  const end = await waitUntilDrained(
    opts.url,
    "SELECT EXISTS (SELECT 1 FROM graphile_worker._private_jobs) AS busy",
  );
  await runner.stop();
  const seconds = (end - start) / 1000;
  return {
    system, mode: "throughput", jobs: opts.jobs, concurrency: opts.concurrency, handled,
    enqueue_seconds: round(enqueueSeconds), analyze_seconds: round(analyzeSeconds),
    seconds: round(seconds), jobs_per_s: round(opts.jobs / seconds, 1),
  };
}

async function latency(utils) {
  const lat = [];
  const runner = await run({
    noHandleSignals: true,
    taskList: { noop: async (payload) => { lat.push(nowMs() - payload.t); } },
    preset: workerPreset(),
  });
  const sent = await openLoop(opts.rate, opts.seconds, (t) => utils.addJob("noop", { t }));
  await waitForCount(() => lat.length, sent.sent - sent.errors);
  await runner.stop();
  return {
    system, mode: "latency", rate: opts.rate, seconds: opts.seconds, concurrency: opts.concurrency,
    ...sent, ...latencySummary(lat),
  };
}

async function idleMode() {
  const runner = await run({ noHandleSignals: true, taskList: { noop: async () => {} }, preset: workerPreset() });
  const r = await idle(system, opts);
  await runner.stop();
  return r;
}

main().then(
  () => process.exit(0),
  (e) => { console.error(e); process.exit(1); },
);
