import { z } from "@hono/zod-openapi";

/*
 * What a route's contract says of Idempotency-Key (the header's parameter, the replay's response header),
 * apart from the write path (idempotency.ts, with its table and transaction): a route that takes no key
 * never loads that, nor builds the header's schema.
 */

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";
/** How long a key's stored response is replayed. */
export const IDEMPOTENCY_TTL_HOURS = 24;

const KEY_RULE = "Must be 1 to 255 printable ASCII characters";

let headers: ReturnType<typeof buildIdempotencyHeaders> | undefined;

/**
 * The request header, validated with the route's other parameters (a malformed key is 400 before any
 * work); built with the first contract that takes a key.
 */
export const idempotencyHeaders = () => (headers ??= buildIdempotencyHeaders());

const buildIdempotencyHeaders = () =>
  z.object({
    "idempotency-key": z
      .string()
      // One message per bad key: the first failing check ends validation.
      .min(1, { error: KEY_RULE, abort: true })
      .max(255, { error: KEY_RULE, abort: true })
      .regex(/^[\x20-\x7e]+$/, KEY_RULE)
      .optional()
      .openapi({
        // Lower case: Hono hands header validation lower-cased names (HTTP header names are case-insensitive).
        param: { name: "idempotency-key", in: "header" },
        description:
          `Makes retries safe: 1–255 printable ASCII characters, unique per intended write. The first response is stored with the key ` +
          `(for your company, ${IDEMPOTENCY_TTL_HOURS} hours) and replayed, with \`${REPLAYED_HEADER}: true\`, for a repeat with the same ` +
          "method, path, query string and body; the same key with another body, path or query string is 422. Validation errors are not stored.",
        example: "4f1c2a9e-order-1042",
      }),
  });

export const replayedHeader = {
  [REPLAYED_HEADER]: {
    description: `\`true\` when this is the stored response of an earlier request with the same ${IDEMPOTENCY_HEADER}`,
    schema: { type: "string", enum: ["true"] },
  },
} as const;
