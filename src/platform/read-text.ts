/**
 * A body stream's bytes, keeping at most `maxBytes`; past that, undefined. With `drainUpTo`,
 * the rest is first read and dropped (up to that many bytes in all), so a peer still sending gets
 * the answer instead of a broken connection; without it the stream is cancelled at once.
 * An aborted `signal` cancels the stream and rejects with the signal's reason.
 */
export async function readBytes(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  drainUpTo = 0,
  signal?: AbortSignal,
): Promise<Uint8Array | undefined> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", cancel, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
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
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
  if (size > maxBytes) return undefined;
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
