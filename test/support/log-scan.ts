import { readFileSync } from "node:fs";

/** What a Worker log line must never contain (the logger redacts all of it; see src/platform/logger.ts). */
export const FORBIDDEN_IN_LOGS: [name: string, pattern: RegExp][] = [
  ["a 32+ hex-digit string (token, digest or key)", /(?<![0-9a-f])[0-9a-f]{32,}(?![0-9a-f])/i],
  ["a bearer or basic credential", /\b(bearer|basic)\s+(?!\[redacted\])[^\s"',;]+/i],
  ["a stack trace frame", /(\n|\\n)\s+at \S/],
  ["SQL text of a failed query", /Failed query:(?! \(SQL and parameters not logged\))/],
  ["a query's parameter values", /\bparams: (?!\(not logged\))/],
  ["a URL password", /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"]*:(?!\[redacted\])[^\s@/"]+@/i],
  ["an e-mail address in a request's path", /"path":"[^"]*(@|%40)/i],
];

/**
 * Lines of a Worker log that break a rule, as "line N: rule" (never the line itself, which would
 * put the secret into the test output).
 */
export function scanLog(file: string): string[] {
  const problems: string[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      for (const [name, pattern] of FORBIDDEN_IN_LOGS) if (pattern.test(line)) problems.push(`line ${i + 1}: ${name}`);
    });
  return problems;
}
