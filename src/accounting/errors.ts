/**
 * How a delivery attempt failed decides what happens to the outbox row:
 * - transient: 429, 5xx, network → retry with backoff (status unchanged, attempt counted);
 * - permanent: a Fault the accounting system answered (4xx, or HTTP 200 with a Fault) → `failed`, retried
 *   with backoff until the attempts run out (the data may be fixed meanwhile), then `dead`;
 * - connection: no connection, or the credentials are rejected → the row stays as it is with the
 *   error text and no attempt counted; it moves again once the company is (re)connected.
 */
export type FailureKind = "transient" | "permanent" | "connection";

export class AccountingError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** The Fault's error code (e.g. "5010"), when the accounting system sent one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

export const isFault = (e: unknown, code: string): e is AccountingError => e instanceof AccountingError && e.code === code;
