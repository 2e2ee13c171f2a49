/**
 * A body stream as UTF-8 text, keeping at most `maxBytes`; past that, undefined. With `drainUpTo`,
 * the rest is first read and dropped (up to that many bytes in all), so a peer still sending gets
 * the answer instead of a broken connection; without it the stream is cancelled at once.
 */
export async function readText(stream: ReadableStream<Uint8Array> | null, maxBytes: number, drainUpTo = 0): Promise<string | undefined> {
  if (!stream) return "";
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size <= maxBytes) chunks.push(value);
    else if (size > drainUpTo) {
      await reader.cancel();
      break;
    }
  }
  if (size > maxBytes) return undefined;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
