/**
 * The one outbound-HTTP path for supplier adapters: a deadline (AbortSignal), a response-size cap,
 * and failures classified into a small set of reasons that are safe to show callers and to log
 * (never a URL with credentials, never a header, never the supplier's own error text).
 */
import { withDeadline as withDeadlineOf } from "../platform/deadline";
import { readText } from "../platform/read-text";

export type SupplierFailure =
  | "timeout" // no complete answer before the deadline
  | "unreachable" // DNS / connect / TLS failure
  | "upstream_status" // an HTTP status the protocol does not define as an answer
  | "auth_failed" // the supplier rejected the stored credentials
  | "bad_response" // the body is not what the protocol defines (malformed, wrong shape, too large)
  | "upstream_fault" // SOAP Fault
  | "upstream_error"; // the supplier reported an error inside a well-formed answer

const MESSAGES: Record<SupplierFailure, string> = {
  timeout: "The supplier did not answer within the time limit",
  unreachable: "The supplier could not be reached",
  upstream_status: "The supplier answered with an error status",
  auth_failed: "The supplier rejected the integration's credentials",
  bad_response: "The supplier's answer could not be read",
  upstream_fault: "The supplier answered with a SOAP fault",
  upstream_error: "The supplier reported an error",
};

export class SupplierError extends Error {
  constructor(
    readonly reason: SupplierFailure,
    /** Upstream HTTP status, when there was one. */
    readonly status?: number,
  ) {
    super(status ? `${MESSAGES[reason]} (HTTP ${status})` : MESSAGES[reason]);
  }
}

/** Suppliers' full-style answers are at most a few MB; anything far larger is not a catalog answer. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface UpstreamResponse {
  status: number;
  contentType: string;
  text: string;
}

const isAbort = (e: unknown) => e instanceof Error && (e.name === "AbortError" || e.name === "TimeoutError");

/** Sends the request and reads the whole body under `signal`; throws SupplierError only. */
export async function fetchText(url: string, init: RequestInit, signal: AbortSignal): Promise<UpstreamResponse> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal, redirect: "manual" });
  } catch (e) {
    throw new SupplierError(signal.aborted || isAbort(e) ? "timeout" : "unreachable");
  }
  try {
    return { status: res.status, contentType: res.headers.get("content-type") ?? "", text: await readCapped(res) };
  } catch (e) {
    if (e instanceof SupplierError) throw e;
    throw new SupplierError(signal.aborted || isAbort(e) ? "timeout" : "bad_response", res.status);
  }
}

async function readCapped(res: Response): Promise<string> {
  const text = await readText(res.body, MAX_RESPONSE_BYTES);
  if (text === undefined) throw new SupplierError("bad_response", res.status);
  return text;
}

/** A supplier call with its time budget; running out is the `timeout` supplier failure. */
export const withDeadline = <T>(timeoutMs: number, task: (signal: AbortSignal) => Promise<T>) =>
  withDeadlineOf(timeoutMs, task, () => new SupplierError("timeout"));

/**
 * A supplier's image link as an absolute http(s) URL (relative paths resolved against `base`), or
 * null for anything else: supplier data is untrusted, and a broken link must not break the answer.
 */
export function imageUrl(raw: string | null | undefined, base?: string): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : null;
  } catch {
    return null;
  }
}
