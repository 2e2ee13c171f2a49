import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { newCompany, waitFor } from "../../test/support/api";
import { createWebhookEndpoint } from "../../test/support/webhooks";
import { freePort } from "../../tools/local/ports";

/**
 * The receiver example of docs/webhooks.md, run as written (Node and the standardwebhooks package)
 * against real deliveries of the shared Worker.
 */
const root = path.resolve(import.meta.dirname, "../..");
const docs = readFileSync(path.join(root, "docs/webhooks.md"), "utf8");
const example = /<!-- receiver-example[^>]*-->\n```js\n([\s\S]*?)```/.exec(docs)?.[1];

let child: ChildProcess | undefined;
// Inside the project, so `import "standardwebhooks"` resolves from its node_modules.
const dir = path.join(root, ".test-results", `receiver-example-${process.pid}`);

afterAll(() => {
  child?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe("docs/webhooks.md receiver example", () => {
  it("verifies and prints real deliveries once, and answers 400 to a tampered one", async () => {
    expect(example).toBeTruthy();
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "receiver.mjs");
    writeFileSync(file, example!);
    const port = await freePort();
    const company = await newCompany();
    const endpoint = await createWebhookEndpoint(company.companyId, { url: `http://127.0.0.1:${port}/`, events: ["client.created"] });
    let out = "";
    child = spawn(process.execPath, [file], { env: { ...process.env, WEBHOOK_SECRET: endpoint.secret, PORT: String(port) } });
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (out += d));
    await waitFor("the receiver to listen", () =>
      fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }).then(
        (r) => r.status === 400,
        () => false,
      ),
    );

    const created = await company.post("/clients", { company_name: "Example Receiver Co" });
    expect(created.status).toBe(200);
    const line = await waitFor("the receiver's line", () => out.split("\n").find((l) => l.startsWith("client.created ")));
    expect(JSON.parse(line!.slice("client.created ".length))).toEqual(created.body.client);

    // A forged request (no valid signature) is refused and not printed.
    const body = JSON.stringify({ id: "evt_forged", type: "client.created", data: { object: {} } });
    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      headers: { "webhook-id": "evt_forged", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA" },
      body,
    });
    expect(forged.status).toBe(400);
    expect(out.split("\n").filter((l) => l.startsWith("client.created "))).toHaveLength(1);
  });
});
