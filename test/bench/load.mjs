// Load generator for the throughput benchmark, run in a worker thread of its own so that sending
// requests does not compete with the local stack's servers (Neon HTTP endpoint, Upstash server),
// which run on the benchmark's main thread. Plain JavaScript: worker threads do not go through tsx.
import { Agent, request } from "node:http";
import { parentPort, workerData } from "node:worker_threads";

/** @type {{ urls: string[], headers: Record<string, string>[], concurrency: number, ms: number }} */
const { urls, headers, concurrency, ms } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const get = (i) =>
  new Promise((resolve, reject) => {
    const req = request(urls[i % urls.length], { agent, headers: headers[i % headers.length] }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });

let done = 0;
let next = 0;
const statuses = {};
const started = performance.now();
const until = started + ms;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      const status = await get(next++);
      statuses[status] = (statuses[status] ?? 0) + 1;
      done++;
    }
  }),
);
const elapsed = performance.now() - started;
agent.destroy();
parentPort.postMessage({ rps: (done * 1000) / elapsed, statuses });
