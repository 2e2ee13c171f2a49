import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readRequestBody } from "../../tools/local/request-body";

/**
 * Shared plumbing of the fake third-party servers (suppliers, the accounting service). The first
 * path segment of a request is its scenario (`ok`, `delay-300`, `slow`, `status500`, `malformed`,
 * `garbage`, `fault`, `unauthorized`), so one server serves every test at once: a test points an
 * integration's base URL at `fake.url(scenario)`. Every request is recorded with monotonic start
 * and end times, so tests can assert that calls overlapped instead of timing the API.
 */
export interface RecordedRequest {
  scenario: string;
  method: string;
  /** Path after the scenario segment, with the query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** performance.now() when the request arrived / when the response ended or the client went away. */
  startedAt: number;
  endedAt?: number;
}

export interface Exchange {
  scenario: string;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Path after the scenario segment. */
  path: string;
  body: string;
  record: RecordedRequest;
}

export interface FakeServer {
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export const SLOW_MS = 30_000;

export async function startFake(handle: (x: Exchange) => Promise<void> | void): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const startedAt = performance.now();
    const raw = await readRequestBody(req);
    if (!raw) return; // the client went away: no one to answer
    const url = new URL(req.url ?? "/", "http://fake");
    const [, scenario = "", ...rest] = url.pathname.split("/");
    const path = `/${rest.join("/")}${url.search}`;
    const record: RecordedRequest = {
      scenario,
      method: req.method ?? "",
      path,
      headers: req.headers,
      body: raw.toString("utf8"),
      startedAt,
    };
    requests.push(record);
    const done = () => (record.endedAt ??= performance.now());
    res.on("finish", done);
    res.on("close", done);

    const delay = /^delay-(\d+)$/.exec(scenario);
    if (delay) await sleep(Number(delay[1]));
    if (scenario === "slow") {
      // Answer (far) beyond any timeout, unless the client gives up first.
      const gone = new Promise<void>((r) => res.on("close", r));
      await Promise.race([sleep(SLOW_MS), gone]);
      if (res.destroyed) return;
    }
    try {
      await handle({ scenario, req, res, url, path: `/${rest.join("/")}`, body: record.body, record });
    } catch (e) {
      res.writeHead(599).end(String(e));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

/** Two recorded requests overlapped in time: each started before the other ended. */
export const overlapped = (a: RecordedRequest, b: RecordedRequest) =>
  a.endedAt !== undefined && b.endedAt !== undefined && a.startedAt < b.endedAt && b.startedAt < a.endedAt;
