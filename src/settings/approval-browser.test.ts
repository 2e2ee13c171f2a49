import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../../test/fakes/webhook-receiver";
import { newCompany, sql, waitFor } from "../../test/support/api";
import { type BrowserSession, openBrowser } from "../../test/support/browser";
import { newOrder } from "../../test/support/orders";
import { createWebhookEndpoint } from "../../test/support/webhooks";

/**
 * A proof approval in Chromium on a phone-sized viewport (test/support/browser.ts: 390×844): the
 * customer opens the link, sees the shop, the order and the proof, approves with their name, and sees
 * the answer; the shop's webhook receiver gets `approval.responded`, signed. No console error, no CSP
 * violation, no request to another origin.
 */
const origin = () => new URL(inject("apiUrl")).origin;

let browser: BrowserSession;
let receiver: WebhookReceiver;
beforeAll(async () => {
  [browser, receiver] = await Promise.all([openBrowser(), startWebhookReceiver()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), receiver?.stop()]);
});

// Chromium on a loaded machine: its limit is sized for a machine 3× slower under load.
describe("proof approval page in a browser", { timeout: 120_000 }, () => {
  it("the customer opens the link on a phone, approves, and the receiver gets approval.responded signed", async () => {
    const shop = `Phone Print Shop ${Date.now()}`;
    const co = await newCompany({ name: shop });
    const hookPath = `approval-${process.pid}`;
    const endpoint = await createWebhookEndpoint(co.companyId, { url: receiver.url(hookPath), events: ["approval.responded"] });
    const { project } = await newOrder(co, { title: "Spring league jerseys" });
    const art = await co.post(`/orders/${project.id}/artworks`, {
      print_method: "screen_print",
      placements: ["front"],
      colors: ["PMS 186 C"],
      preview_url: "https://cdn.example/proofs/front.png",
    });
    const item = await co.post(`/orders/${project.id}/items`, { title: "Tees", quantity: 12, unit_price: "10.00" });
    // Where the proof is printed: a decoration of the item with this artwork.
    const decoration = await co.post(`/orders/${project.id}/items/${item.body.item.id}/decorations`, {
      location: "front",
      method: "screen_print",
      colors: [{ name: "Red", code: "PMS 186 C" }, { name: "White" }],
      color_count: 2,
      width: "10",
      height: "12",
      unit: "in",
      artwork_id: art.body.artwork.id,
    });
    expect(decoration.status, JSON.stringify(decoration.body)).toBe(200);
    const asked = await co.post(`/orders/${project.id}/approvals`, {
      artwork_ids: [art.body.artwork.id],
      include_total: true,
      message: "Please check the colours.",
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);

    const { page } = browser;
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    await page.goto(asked.body.url);
    expect(await page.getByTestId("shop-name").textContent()).toBe(shop);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Spring league jerseys");
    expect(await page.getByTestId("message").textContent()).toBe("Please check the colours.");
    expect(await page.getByTestId("total").textContent()).toContain("120.00");
    expect(await page.getByRole("link", { name: "Open the proof" }).getAttribute("href")).toBe("https://cdn.example/proofs/front.png");
    expect(await page.getByTestId("proof-decorations").textContent()).toBe("Screen print, front · Red (PMS 186 C), White · 10 × 12 in");
    // Readable on the phone: nothing wider than the viewport.
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);

    await page.getByLabel("Your name", { exact: true }).fill("Maya Lopez");
    await page.getByLabel("Your e-mail (optional)").fill("maya@example.com");
    await page.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => page.getByTestId("answer").textContent()).toContain("Approved by Maya Lopez");
    expect(await page.getByTestId("approve-form").count()).toBe(0);
    expect(requested.filter((u) => new URL(u).origin !== origin())).toEqual([]);
    expect(browser.problems).toEqual([]);

    const approval = (await co.get(`/approvals/${asked.body.approval.id}`)).body.approval;
    expect(approval).toMatchObject({ status: "approved", responder_name: "Maya Lopez", responder_email: "maya@example.com" });
    const order = await co.get(`/orders/${project.id}`);
    expect(order.body.artworks[0].approval).toMatchObject({ id: approval.id, status: "approved" });

    const [delivery] = await waitFor(
      "approval.responded at the receiver",
      () => receiver.received(hookPath),
      (r) => r.length >= 1,
    );
    expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers)).toEqual(delivery.json);
    expect(delivery.json).toMatchObject({ type: "approval.responded", data: { object: approval } });
    expect(delivery.body).not.toContain(asked.body.url.split("/").pop());
    expect(await sql("select count(*)::int n from webhook_deliveries where endpoint_id = $1", [endpoint.id])).toEqual([{ n: 1 }]);
  });
});
