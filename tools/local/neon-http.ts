import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import pg from "pg";
import { readRequestBody } from "./request-body";

/**
 * Neon's HTTP query protocol in front of a plain PostgreSQL, for the local stack and tests.
 * Hand-written because no package serves this protocol locally (Neon's own proxy is not published
 * for it). The shape follows the client in node_modules/@neondatabase/serverless (`neon()`), which
 * is what the Worker runs unchanged, with `neonConfig.fetchEndpoint` pointed here:
 *
 * - `POST /sql`; the target database is the `Neon-Connection-String` header.
 * - Body `{ query, params }` (one statement) or `{ queries: [{ query, params }, ...] }` (a batch,
 *   run in one transaction; `Neon-Batch-Isolation-Level`, `Neon-Batch-Read-Only`,
 *   `Neon-Batch-Deferrable` set its mode). Params arrive already serialised by pg's prepareValue
 *   (strings or null).
 * - Answer 200 `{ command, rowCount, fields, rows, rowAsArray }` per statement (`{ results: [...] }`
 *   for a batch). `Neon-Array-Mode: true` gives rows as arrays (the driver always asks for it),
 *   otherwise objects; `Neon-Raw-Text-Output: true` leaves every value as PostgreSQL's text (the
 *   driver parses by `fields[].dataTypeID`), otherwise pg's default parsing.
 * - A PostgreSQL error is 400 with `message` and PostgreSQL's fields (code, detail, constraint, ...),
 *   which the driver copies onto its NeonDbError; anything else is a 5xx with a text body.
 *
 * `delayMs` holds every request and every answer for that long, so one query costs a round trip of
 * 2 × delayMs, as one message each way does through the WebSocket proxy.
 */

/** The PostgreSQL error fields the driver copies from a 400 answer (its own list). */
const ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

const ISOLATION: Record<string, string> = {
  ReadUncommitted: "read uncommitted",
  ReadCommitted: "read committed",
  RepeatableRead: "repeatable read",
  Serializable: "serializable",
};

/** Every type as its text form: what Neon sends with Neon-Raw-Text-Output. */
const rawText = { getTypeParser: () => (value: string) => value };

type Statement = { query: string; params?: unknown[] };

class BadRequest extends Error {}

export interface SqlOverHttp {
  /** Answers `POST /sql`; anything else is 404. */
  listener: RequestListener;
  close(): Promise<void>;
}

export function sqlOverHttp(opts: { delayMs?: number } = {}): SqlOverHttp {
  const delayMs = opts.delayMs ?? 0;
  const hold = () => (delayMs > 0 ? new Promise((r) => setTimeout(r, delayMs)) : Promise.resolve());
  // One small pool per database; a request holds a connection only while its statements run.
  const pools = new Map<string, pg.Pool>();
  const poolFor = (connectionString: string) => {
    let pool = pools.get(connectionString);
    if (!pool) {
      pool = new pg.Pool({ connectionString, max: 20 });
      pool.on("error", () => {}); // an idle connection dying is not this server's failure
      // Nor is a busy one's: the pool listens on idle connections only, and a connection that fails while a
      // request holds it (its backend killed, the server shutting down or restarting) emits 'error' as well.
      // Unheard, that event would end this process, and with it every stack and test behind it. The request
      // in flight fails with its query; the pool drops the connection when it comes back (not queryable).
      pool.on("connect", (client) => client.on("error", () => {}));
      pools.set(connectionString, pool);
    }
    return pool;
  };

  const listener: RequestListener = async (req: IncomingMessage, res: ServerResponse) => {
    const send = async (status: number, body: unknown) => {
      await hold();
      const text = typeof body === "string" ? body : JSON.stringify(body);
      res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json" }).end(text);
    };
    if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/sql") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const raw = await readRequestBody(req);
    if (!raw) return; // the caller went away: no one to answer
    await hold();
    try {
      const connectionString = req.headers["neon-connection-string"];
      if (typeof connectionString !== "string") throw new BadRequest("Neon-Connection-String header is required");
      let body: Statement & { queries?: Statement[] };
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        throw new BadRequest("body must be JSON");
      }
      const mode = {
        arrayMode: req.headers["neon-array-mode"] === "true",
        rawText: req.headers["neon-raw-text-output"] === "true",
      };
      const client = await poolFor(connectionString).connect();
      let broken = false;
      try {
        if (Array.isArray(body.queries)) {
          const results = await runBatch(client, body.queries, mode, req.headers);
          await send(200, { results });
        } else {
          await send(200, await runOne(client, body, mode));
        }
      } catch (e) {
        broken = !(e instanceof pg.DatabaseError);
        throw e;
      } finally {
        client.release(broken);
      }
    } catch (e) {
      if (e instanceof pg.DatabaseError) {
        const fields = Object.fromEntries(ERROR_FIELDS.map((k) => [k, e[k]]).filter(([, v]) => v !== undefined));
        await send(400, { message: e.message, ...fields });
      } else if (e instanceof BadRequest) {
        await send(400, { message: e.message });
      } else {
        // Connection failures and the like: Neon answers these with a 5xx, which the driver reports as a server error.
        await send(503, `could not run the query: ${(e as Error).message}`);
      }
    }
  };

  return {
    listener,
    close: async () => {
      await Promise.all([...pools.values()].map((p) => p.end().catch(() => {})));
      pools.clear();
    },
  };
}

async function runOne(client: pg.PoolClient, statement: Statement, mode: { arrayMode: boolean; rawText: boolean }) {
  if (typeof statement.query !== "string") throw new BadRequest("query must be a string");
  // Extended protocol always (as Neon): one statement per query, parameters never interpolated.
  const result = await client.query({
    text: statement.query,
    values: statement.params ?? [],
    rowMode: mode.arrayMode ? "array" : undefined,
    types: mode.rawText ? rawText : undefined,
    queryMode: "extended",
  } as pg.QueryConfig);
  return {
    command: result.command,
    rowCount: result.rowCount,
    rows: result.rows,
    fields: result.fields,
    rowAsArray: mode.arrayMode,
  };
}

/** A batch is one transaction: every statement or none. */
async function runBatch(
  client: pg.PoolClient,
  statements: Statement[],
  mode: { arrayMode: boolean; rawText: boolean },
  headers: IncomingMessage["headers"],
) {
  const level = headers["neon-batch-isolation-level"];
  const parts = ["begin"];
  if (typeof level === "string") {
    if (!ISOLATION[level]) throw new BadRequest(`unknown Neon-Batch-Isolation-Level: ${level}`);
    parts.push(`isolation level ${ISOLATION[level]}`);
  }
  if (headers["neon-batch-read-only"] === "true") parts.push("read only");
  if (headers["neon-batch-deferrable"] === "true") parts.push("deferrable");
  await client.query(parts.join(" "));
  try {
    const results = [];
    for (const statement of statements) results.push(await runOne(client, statement, mode));
    await client.query("commit");
    return results;
  } catch (e) {
    await client.query("rollback").catch(() => {});
    throw e;
  }
}
