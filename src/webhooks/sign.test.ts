import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newWebhookSecret } from "../../test/support/webhooks";
import { signatureHeader } from "./sign";

describe("signatureHeader", () => {
  it("is the standardwebhooks library's signature, one per secret, space-separated", async () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ id: "evt_1", type: "client.created", data: { object: { company_name: "Ünïcode ✓" } } });
    const at = new Date();
    const timestamp = Math.floor(at.getTime() / 1000);
    const header = await signatureHeader([current, previous], "evt_1", timestamp, body);
    expect(header).toBe(`${new Webhook(current).sign("evt_1", at, body)} ${new Webhook(previous).sign("evt_1", at, body)}`);
    const headers = { "webhook-id": "evt_1", "webhook-timestamp": String(timestamp), "webhook-signature": header };
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});
