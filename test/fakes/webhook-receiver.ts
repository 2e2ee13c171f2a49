import { type RecordedRequest, startFake } from "./server";

/**
 * A webhook receiver on 127.0.0.1: every request is recorded, and each path (its first segment, one per
 * endpoint under test) answers 200 `ok` unless a script says otherwise. A script is a list of answers used
 * up one per request, then the default again:
 *   { status, body? }  that answer          "hang"      no answer until the sender gives up
 *   { redirect: url }  302 to url           { huge: n } 200 with an n-byte body, sent as fast as the sender reads
 */
export type ReceiverAnswer = { status: number; body?: string } | "hang" | { redirect: string } | { huge: number };

export interface WebhookDelivery {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The parsed body: `{ id, type, created_at, data: { object } }`. */
  json: any;
  answered: string;
}

export interface WebhookReceiver {
  /** The URL of one path of the receiver (give each endpoint its own). */
  url(path: string): string;
  /** Answers for the next requests to `path`, in order. */
  script(path: string, ...answers: ReceiverAnswer[]): void;
  /** Requests to `path` so far, in arrival order. */
  received(path: string): WebhookDelivery[];
  /** Bytes of huge bodies the sender actually read, per path. */
  hugeBytesSent(path: string): number;
  stop(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const scripts = new Map<string, ReceiverAnswer[]>();
  const answeredWith = new WeakMap<RecordedRequest, string>();
  const hugeSent = new Map<string, number>();
  const fake = await startFake(async ({ scenario, res, record }) => {
    const answer = scripts.get(scenario)?.shift() ?? { status: 200, body: "ok" };
    answeredWith.set(record, typeof answer === "string" ? answer : JSON.stringify(answer));
    if (answer === "hang") {
      await new Promise<void>((r) => res.on("close", r));
      return;
    }
    if ("redirect" in answer) return void res.writeHead(302, { location: answer.redirect }).end();
    if ("huge" in answer) {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(16 * 1024, "x");
      let sent = 0;
      // Written only as fast as the client reads (backpressure), so `sent` shows how much it took.
      while (sent < answer.huge && !res.destroyed) {
        const ok = res.write(chunk);
        sent += chunk.length;
        hugeSent.set(scenario, sent);
        if (!ok) {
          await new Promise<void>((r) => {
            res.once("drain", r);
            res.once("close", r);
          });
        }
      }
      return void res.end();
    }
    res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body ?? "");
  });
  return {
    url: (path) => `${fake.origin}/${path}`,
    script: (path, ...answers) => scripts.set(path, [...(scripts.get(path) ?? []), ...answers]),
    received: (path) =>
      fake.requests
        .filter((r) => r.scenario === path)
        .map((r) => ({
          path: r.scenario,
          headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)])),
          body: r.body,
          json: JSON.parse(r.body),
          answered: answeredWith.get(r) ?? "",
        })),
    hugeBytesSent: (path) => hugeSent.get(path) ?? 0,
    stop: () => fake.close(),
  };
}
