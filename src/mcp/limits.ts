/*
 * What one MCP request may ask for and be answered (docs/mcp.md#tokens-scopes-and-limits). The body's
 * own limit is the API's (1 MiB, `readBody`).
 */

/**
 * Messages one JSON-RPC batch may hold: each costs a request's work (and counts as one against the
 * rate limit), and a batch of this many `tools/list` (about 230 KB each for a write token) stays
 * under MCP_ANSWER_MAX_BYTES.
 */
export const MCP_BATCH_MAX = 20;

/**
 * The largest answer the MCP endpoint sends, a batch's included: a message whose answer would take it
 * over is answered with an error saying so instead (and what it did), and the batch's later messages
 * do not run.
 */
export const MCP_ANSWER_MAX_BYTES = 6 * 1024 * 1024;

/** Room kept for an answer's JSON-RPC frame around a tool's text (id, keys, escapes of the frame itself). */
export const FRAME_BYTES = 4096;

const encoder = new TextEncoder();
/** Bytes of `text` in UTF-8, as it is sent. */
export const utf8Length = (text: string) => encoder.encode(text).byteLength;
