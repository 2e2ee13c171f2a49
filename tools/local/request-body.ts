import type { IncomingMessage } from "node:http";

/**
 * A local server's request body, whole; undefined when the caller went away mid-body (an aborted fetch,
 * a stopped Worker). Reading the rest then fails: caught here, since a request listener's unhandled
 * rejection would take down the process that runs the stack (and fail a test run).
 */
export async function readRequestBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks);
}
