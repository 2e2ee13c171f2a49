/**
 * A body stream's bytes, keeping at most `maxBytes`; past that, undefined. With `drainUpTo`,
 * the rest is first read and dropped (up to that many bytes in all), so a peer still sending gets
 * the answer instead of a broken connection; without it the stream is cancelled at once.
 * An aborted `signal` cancels the stream and rejects with the signal's reason.
 * `expectedBytes` (a declared Content-Length) sizes the first buffer: such a body is read into one
 * buffer, which is the answer, with no copy.
 *
 * A byte stream (a request or response body) is read with a BYOB reader into large buffers: each read
 * takes what has arrived, where the default reader hands out 4 KiB chunks, a promise each (a 300 KB
 * body was 74 reads, about 1 ms of CPU; docs/bundle.md#refused-requests-results). Other streams are
 * read chunk by chunk.
 */
export async function readBytes(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  drainUpTo = 0,
  signal?: AbortSignal,
  expectedBytes?: number,
): Promise<Uint8Array | undefined> {
  if (!stream) return new Uint8Array(0);
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: read by chunks below.
  }
  const reader = byob ?? stream.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    const read = byob
      ? readIntoBuffers(byob, maxBytes, drainUpTo, signal, expectedBytes)
      : readChunks(reader as ReadableStreamDefaultReader<Uint8Array>, maxBytes, drainUpTo, signal);
    const { chunks, size } = await read;
    return size > maxBytes ? undefined : concat(chunks, size);
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
}

type Read = { chunks: Uint8Array[]; size: number };

async function readChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
  drainUpTo: number,
  signal?: AbortSignal,
): Promise<Read> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    signal?.throwIfAborted();
    if (done) break;
    size += value.byteLength;
    if (size <= maxBytes) chunks.push(value);
    else if (size > drainUpTo) {
      await reader.cancel();
      break;
    }
  }
  return { chunks, size };
}

/** The smallest and the largest buffer read into when the length is not known (each next one twice the last). */
const FIRST_BUFFER = 16 * 1024;
const LARGEST_BUFFER = 1024 * 1024;
/** What is read after a body's declared length to find its end. */
const END_PROBE = 1024;

/**
 * Reads into buffers that each take what has arrived: the first the declared length (then a small one
 * finds the end), else growing from FIRST_BUFFER. Never more than `maxBytes + 1` are kept (one more
 * tells an oversized body); past that, reads into one reused buffer drop the rest up to `drainUpTo`.
 */
async function readIntoBuffers(
  reader: ReadableStreamBYOBReader,
  maxBytes: number,
  drainUpTo: number,
  signal: AbortSignal | undefined,
  expectedBytes: number | undefined,
): Promise<Read> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const declared = expectedBytes !== undefined && expectedBytes > 0 && expectedBytes <= maxBytes ? expectedBytes : undefined;
  let next = declared ?? FIRST_BUFFER;
  while (size <= maxBytes) {
    const capacity = Math.min(next, maxBytes + 1 - size);
    let buffer = new Uint8Array(capacity);
    let filled = 0;
    while (filled < capacity) {
      const { done, value } = await reader.read(buffer.subarray(filled));
      signal?.throwIfAborted();
      if (!value) return { chunks, size }; // cancelled
      // The read transferred the buffer (the old view is detached): keep the one it hands back.
      buffer = new Uint8Array(value.buffer, 0, capacity);
      filled += value.byteLength;
      if (done) break;
    }
    if (filled) chunks.push(filled === capacity ? buffer : buffer.subarray(0, filled));
    size += filled;
    if (filled < capacity) return { chunks, size }; // the end came first
    next = size === declared ? END_PROBE : Math.min(2 * next, LARGEST_BUFFER);
  }
  // Over the limit: what else arrives is read and dropped, up to drainUpTo, then the stream is cancelled.
  let scratch = new Uint8Array(64 * 1024);
  while (size <= drainUpTo) {
    const { done, value } = await reader.read(scratch);
    signal?.throwIfAborted();
    if (done || !value) return { chunks, size };
    size += value.byteLength;
    scratch = new Uint8Array(value.buffer);
  }
  await reader.cancel();
  return { chunks, size };
}

/** The chunks as one array whose buffer is exactly its bytes (the body cache keeps `.buffer`). */
function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  if (only && only.byteOffset === 0 && only.buffer.byteLength === size) return only;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** `readBytes` decoded as UTF-8 (invalid sequences become U+FFFD); undefined past `maxBytes`. */
export async function readText(stream: ReadableStream<Uint8Array> | null, maxBytes: number, drainUpTo = 0): Promise<string | undefined> {
  const bytes = await readBytes(stream, maxBytes, drainUpTo);
  return bytes && new TextDecoder().decode(bytes);
}
