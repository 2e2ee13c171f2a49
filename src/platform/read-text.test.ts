import { describe, expect, it } from "vitest";
import { readBytes } from "./read-text";

/**
 * A byte stream (as request and response bodies are) of `chunks` of `chunkBytes` each, the k-th chunk's
 * bytes all k % 251 (`body`), that records the reads it served, how far it got, and a cancel.
 */
function byteStream(chunks: number, chunkBytes: number) {
  const state = { pulled: 0, done: false, cancelled: false, views: [] as number[] };
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (state.pulled === chunks) {
        state.done = true;
        controller.close();
        controller.byobRequest?.respond(0);
        return;
      }
      const chunk = new Uint8Array(chunkBytes).fill(state.pulled % 251);
      state.pulled++;
      const request = controller.byobRequest;
      if (request?.view && request.view.byteLength >= chunkBytes) {
        state.views.push(request.view.byteLength);
        new Uint8Array(request.view.buffer, request.view.byteOffset, chunkBytes).set(chunk);
        request.respond(chunkBytes);
      } else controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

/** What `byteStream(chunks, chunkBytes)` sends. */
function body(chunks: number, chunkBytes: number) {
  const bytes = new Uint8Array(chunks * chunkBytes);
  for (let k = 0; k < chunks; k++) bytes.fill(k % 251, k * chunkBytes, (k + 1) * chunkBytes);
  return bytes;
}

describe("readBytes of a byte stream", () => {
  it("reads a body within the limit whole, in few reads, into an array whose buffer is exactly the body", async () => {
    const { stream, state } = byteStream(20, 15_000);
    const bytes = await readBytes(stream, 1024 * 1024);
    expect(Buffer.from(bytes!).equals(body(20, 15_000))).toBe(true);
    expect(bytes!.buffer.byteLength).toBe(300_000);
    // The reader offers large buffers (16 KiB, then doubling), not one 4 KiB chunk per read.
    expect(Math.max(...state.views)).toBeGreaterThanOrEqual(128 * 1024);
  });

  it("reads a declared length into one buffer, which it answers (no copy)", async () => {
    const { stream, state } = byteStream(3, 10_000);
    const bytes = await readBytes(stream, 1024 * 1024, 0, undefined, 30_000);
    expect(Buffer.from(bytes!).equals(body(3, 10_000))).toBe(true);
    expect(bytes!.buffer.byteLength).toBe(30_000);
    expect(state.views[0]).toBe(30_000);
  });

  it("is not misled by a declared length shorter or longer than the body", async () => {
    for (const declared of [1, 29_999, 30_001, 100_000]) {
      const { stream } = byteStream(3, 10_000);
      expect(Buffer.from((await readBytes(stream, 1024 * 1024, 0, undefined, declared))!).equals(body(3, 10_000))).toBe(true);
    }
  });

  it("answers a body of exactly the limit, and undefined for one byte more, cancelling the stream", async () => {
    expect(await readBytes(byteStream(4, 256).stream, 1024)).toEqual(body(4, 256));
    const { stream, state } = byteStream(5, 256);
    expect(await readBytes(stream, 1279)).toBeUndefined();
    expect(state.cancelled).toBe(true);
  });

  it("drains an oversized body up to drainUpTo before answering undefined", async () => {
    const { stream, state } = byteStream(40, 64 * 1024);
    expect(await readBytes(stream, 1024 * 1024, 32 * 1024 * 1024)).toBeUndefined();
    expect(state).toMatchObject({ pulled: 40, done: true, cancelled: false });
    const over = byteStream(40, 64 * 1024);
    expect(await readBytes(over.stream, 0, 1024 * 1024)).toBeUndefined();
    expect(over.state.cancelled).toBe(true);
    expect(over.state.pulled).toBeLessThan(40);
  });

  it("answers an empty body as empty, and reads a request's body as a byte stream", async () => {
    expect(await readBytes(byteStream(0, 1).stream, 1024)).toEqual(new Uint8Array(0));
    const request = new Request("http://api.test/x", { method: "POST", body: "é".repeat(100_000) });
    const bytes = await readBytes(request.body, 1024 * 1024);
    expect(new TextDecoder().decode(bytes)).toBe("é".repeat(100_000));
  });

  it("stops at an aborted signal, cancelling the stream", async () => {
    let cancelled = false;
    const stream = new ReadableStream({
      type: "bytes",
      start(controller) {
        controller.enqueue(new Uint8Array(10));
      },
      cancel() {
        cancelled = true;
      },
    });
    const signal = AbortSignal.timeout(50);
    await expect(readBytes(stream, 1024, 0, signal)).rejects.toMatchObject({ name: "TimeoutError" });
    expect(cancelled).toBe(true);
  });
});

describe("readBytes of another stream", () => {
  it("reads it chunk by chunk, within the limit or not", async () => {
    const chunks = (n: number) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < n; i++) controller.enqueue(new Uint8Array(1000));
          controller.close();
        },
      });
    expect((await readBytes(chunks(5), 5000))?.byteLength).toBe(5000);
    expect(await readBytes(chunks(6), 5000)).toBeUndefined();
  });
});
