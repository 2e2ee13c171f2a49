import { describe, expect, it } from "vitest";
import { ApiError } from "./errors";
import { readLimited } from "./json-body";

/** A chunked upload of `chunks` × 64 KiB that records how far the reader pulled it. */
function upload(chunks: number) {
  const state = { pulled: 0, done: false };
  const chunk = new Uint8Array(64 * 1024).fill(120);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled === chunks) {
        state.done = true;
        return controller.close();
      }
      state.pulled++;
      controller.enqueue(chunk);
    },
  });
  const request = new Request("http://api.test/x", { method: "POST", body, duplex: "half" } as RequestInit);
  return { request, state };
}

describe("readLimited", () => {
  it("returns a body within the limit whole", async () => {
    const { request } = upload(4);
    expect((await readLimited(request, 1024 * 1024)).length).toBe(4 * 64 * 1024);
  });

  it("reads an oversized chunked upload to its end before refusing it (413), so the connection stays usable", async () => {
    const { request, state } = upload(40); // 2.5 MiB, no Content-Length
    const error = await readLimited(request, 1024 * 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(413);
    expect(state).toEqual({ pulled: 40, done: true });
  });

  it("refuses at once by the declared length, still draining what was sent", async () => {
    const { request, state } = upload(2);
    const declared = new Request(request, { headers: { "content-length": String(10 * 1024 * 1024) } });
    await expect(readLimited(declared, 1024 * 1024)).rejects.toMatchObject({ status: 413 });
    expect(state.done).toBe(true);
  });
});

describe("readLimited deadline", () => {
  it("408 when the body does not arrive in time, cancelling the upload", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request("http://api.test/x", { method: "POST", body, duplex: "half" } as RequestInit);
    await expect(readLimited(request, 1024, 50)).rejects.toMatchObject({ status: 408, details: { timeout_seconds: 0.05 } });
    expect(cancelled).toBe(true);
  });
});
