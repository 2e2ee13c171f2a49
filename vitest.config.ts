import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "tools/**/*.test.ts", "test/**/*.test.ts", "sdk/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: more workers would only contend with workerd and PostgreSQL.
    maxWorkers: 2,
    // The console report, plus a JSON summary that .ci/run turns into one plain closing line.
    reporters: ["default", "json"],
    outputFile: { json: ".test-results/vitest.json" },
  },
});
