// The end of a CI log, where a reader of a failed run looks first: each failed test, each unhandled
// error vitest caught (its message and where it came from), then one plain closing line
// "N passed, N failed, N skipped". Exit 1 when the JSON report shows a failure or is missing, even if
// the runner's exit code said 0. Usage: node .ci/test-summary.mjs <console log> <vitest JSON report>
import { existsSync, readFileSync } from "node:fs";

const [consoleLog, jsonReport] = process.argv.slice(2);
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are control characters
const plain = (s) => s.replace(/\u001b\[[0-9;]*m/g, "");
const clip = (s, n = 300) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

const report = existsSync(jsonReport) ? JSON.parse(readFileSync(jsonReport, "utf8")) : undefined;
for (const file of report?.testResults ?? []) {
  for (const t of file.assertionResults ?? []) {
    if (t.status !== "failed") continue;
    console.log(`FAILED ${file.name.replace(`${process.cwd()}/`, "")} > ${t.fullName}`);
    console.log(`  ${clip(plain(t.failureMessages?.[0] ?? "").split("\n")[0])}`);
  }
  if (file.status === "failed" && !file.assertionResults?.some((t) => t.status === "failed")) {
    console.log(`FAILED ${file.name.replace(`${process.cwd()}/`, "")}: ${clip(plain(file.message ?? "").split("\n")[0])}`);
  }
}

// vitest prints each unhandled error under a "⎯⎯ Unhandled Rejection ⎯⎯" (or Uncaught Exception, or
// Unhandled Error) rule: the error line, its stack, its properties, then which test file was running.
const lines = existsSync(consoleLog) ? plain(readFileSync(consoleLog, "utf8")).split("\n") : [];
for (let i = 0; i < lines.length; i++) {
  const kind = /⎯+ (Unhandled Rejection|Unhandled Error|Uncaught Exception) ⎯+/.exec(lines[i])?.[1];
  if (!kind) continue;
  const block = [];
  for (let j = i + 1; j < lines.length && !/^⎯{10,}/.test(lines[j].trim()) && !/⎯+ \w+ \w+ ⎯+/.test(lines[j]); j++) {
    if (lines[j].trim()) block.push(lines[j].trim());
  }
  const stack = block.filter((l) => l.startsWith("❯") || l.startsWith("at ")).slice(0, 4);
  const origin = block.find((l) => l.startsWith("The latest test that might've caused")) ?? block.find((l) => l.startsWith("This error originated in"));
  console.log(`UNHANDLED (${kind}) ${clip(block[0] ?? "")}`);
  for (const frame of stack) console.log(`  ${clip(frame, 200)}`);
  const props = block.find((l) => l.startsWith("Serialized Error:"));
  if (props) console.log(`  ${clip(props, 200)}`);
  if (origin) console.log(`  ${clip(origin, 200)}`);
}

if (!report) {
  console.log("no test report: the run ended before vitest wrote one");
  process.exit(1);
}
console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped`);
process.exit(report.numFailedTests > 0 || report.numFailedTestSuites > 0 || !report.success ? 1 : 0);
