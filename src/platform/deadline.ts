/** Thrown by `withDeadline` when the time is up (unless the caller names its own error). */
export class DeadlineExceeded extends Error {
  constructor() {
    super("deadline exceeded");
  }
}

/**
 * Runs `task` with a deadline: the signal aborts outbound fetches, and the race makes work that
 * cannot be cancelled (a database query, a call kept alive elsewhere) stop counting once the time is up.
 * The timer is the signal's own (`AbortSignal.timeout`): nothing to clear when the task finishes first,
 * which on the request path (one call per database statement) costs less than setTimeout + clearTimeout.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  task: (signal: AbortSignal) => Promise<T>,
  timeoutError: () => Error = () => new DeadlineExceeded(),
): Promise<T> {
  const signal = AbortSignal.timeout(timeoutMs);
  let onAbort!: () => void;
  // Never settles once the listener is gone, so a task that finished first leaves no rejection behind.
  const expired = new Promise<never>((_, reject) => {
    onAbort = () => reject(timeoutError());
  });
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await Promise.race([task(signal), expired]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
