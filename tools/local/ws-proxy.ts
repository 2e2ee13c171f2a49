import { createServer, type RequestListener } from "node:http";
import { createConnection } from "node:net";
import { type RawData, WebSocketServer } from "ws";
import { freePort } from "./ports";

export interface WsProxy {
  /** host:port, the value of the Worker's NEON_LOCAL_PROXY (WebSocket and, with `http`, the SQL-over-HTTP endpoint). */
  address: string;
  stop(): Promise<void>;
}

/**
 * WebSocket-to-TCP proxy in the Neon wsproxy convention: the client connects to
 * `ws://host:port/v1?address=<pg-host>:<pg-port>` and every binary frame is relayed as raw bytes
 * to the PostgreSQL socket and back. This lets the unchanged Neon driver inside workerd reach a
 * plain local PostgreSQL. `delayMs` holds every message for a fixed time in both directions, so a
 * benchmark can make each database round trip cost what it costs from the edge. Plain HTTP requests
 * on the same address go to `http` (the stack passes Neon's SQL-over-HTTP endpoint, ./neon-http.ts),
 * so one address serves both ways the driver reaches a database.
 */
export async function startWsProxy(opts: { delayMs?: number; port?: number; http?: RequestListener } = {}): Promise<WsProxy> {
  const port = opts.port ?? (await freePort());
  const delayMs = opts.delayMs ?? 0;
  // Timers of equal delay fire in insertion order, so delaying keeps byte order intact.
  const later = (fn: () => void) => (delayMs > 0 ? setTimeout(fn, delayMs) : fn());
  const server = createServer(opts.http ?? ((_req, res) => res.writeHead(404).end()));
  const wss = new WebSocketServer({ server });

  wss.on("connection", (ws, req) => {
    const target = new URL(req.url ?? "/", "http://x").searchParams.get("address") ?? "";
    const match = /^(.+):(\d+)$/.exec(target);
    if (!match) {
      ws.close(1008, "address must be host:port");
      return;
    }
    const socket = createConnection({ host: match[1], port: Number(match[2]) });
    socket.setNoDelay(true);
    socket.on("data", (chunk) => later(() => ws.readyState === ws.OPEN && ws.send(chunk)));
    socket.on("close", () => later(() => ws.close()));
    socket.on("error", () => ws.close(1011, "upstream error"));
    ws.on("message", (data: RawData) =>
      later(() => socket.writable && socket.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer))),
    );
    ws.on("close", () => later(() => socket.end()));
    ws.on("error", () => socket.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    address: `127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
