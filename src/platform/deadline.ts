/** Thrown by `withDeadline` when the time is up (unless the caller names its own error). */
export class DeadlineExceeded extends Error {
  constructor() {
    super("deadline exceeded");
  }
}

/**
 * Runs `task` with a deadline: the signal aborts outbound fetches, and the race makes work that
 * cannot be cancelled (a database query, a call kept alive elsewhere) stop counting once the time is up.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  task: (signal: AbortSignal) => Promise<T>,
  timeoutError: () => Error = () => new DeadlineExceeded(),
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(timeoutError());
    }, timeoutMs);
  });
  try {
    return await Promise.race([task(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
