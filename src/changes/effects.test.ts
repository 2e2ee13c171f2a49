import { sql as drizzleSql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db, newCompany, sql } from "../../test/support/api";
import { clients } from "../db/schema/clients";
import { insertFrom } from "../platform/sql-kit";
import { clientEvents } from "../routes/clients/events";
import { effectsOf, eventOf } from "./effects";

/*
 * What the change layer composes for the writes to come (batches, upserts, several event types): one
 * statement that writes many rows, an event per row of each event's `from`, and the column that says
 * what was written.
 */
describe("a change's effects", () => {
  it("writes one event per row of its `from`, for several event types, with deliveries, and answers all of them", async () => {
    const co = await newCompany();
    const [endpoint] = await sql<{ id: number }>(
      "insert into webhook_endpoints (company_id, url, events, secret) values ($1, 'https://hooks.example.com/x', '{client.created}', 'whsec_x') returning id",
      [co.companyId],
    );
    const d = db();
    const created = d.$with("created").as(
      d
        .insert(clients)
        .values([
          { companyId: co.companyId, companyName: "Batch A" },
          { companyId: co.companyId, companyName: "Batch B" },
        ])
        .returning(),
    );
    const effects = effectsOf(
      d,
      co.companyId,
      { actorType: "system", actorId: null, requestId: null },
      {
        events: [
          eventOf(clientEvents, "client.created", { id: created.id, from: created }),
          eventOf(clientEvents, "client.updated", {
            id: created.id,
            from: drizzleSql`from ${created} where ${created.companyName} = 'Batch B'`,
          }),
          eventOf(clientEvents, "client.deleted", { id: created.id, from: drizzleSql`from ${created} where false` }),
        ],
      },
    );
    const rows = await d
      .with(created, ...effects.ctes)
      .select({ id: created.id, written: effects.written })
      .from(created)
      .orderBy(created.id);
    const [a, b] = rows.map((r) => String(r.id));
    // Answered on one row only (a statement of many rows carries it once).
    expect(rows.filter((r) => r.written !== null)).toHaveLength(1);
    const { outbox, events } = rows.find((r) => r.written)!.written!;
    expect(outbox).toEqual([]);
    expect(events.map((e) => [e.type, e.resourceId])).toEqual([
      ["client.created", a],
      ["client.created", b],
      ["client.updated", b],
    ]);
    // Only the subscribed type gets a delivery to the endpoint.
    const deliveries = await sql<{ id: number; event_id: number }>(
      "select id, event_id from webhook_deliveries where endpoint_id = $1 order by id",
      [endpoint.id],
    );
    expect(events.map((e) => e.deliveries)).toEqual([[deliveries[0].id], [deliveries[1].id], []].map((ids) => ids.map(Number)));
    expect(deliveries.map((r) => Number(r.event_id))).toEqual([events[0].event, events[1].event]);
  });

  it("writes nothing when the statement's own write wrote nothing", async () => {
    const co = await newCompany();
    const d = db();
    const none = insertFrom(d, "none", clients, { companyId: co.companyId, companyName: "Never" }, drizzleSql`where false`);
    const effects = effectsOf(
      d,
      co.companyId,
      { actorType: "system", actorId: null, requestId: null },
      { events: [eventOf(clientEvents, "client.created", { id: none.id, from: none })] },
    );
    const rows = await d
      .with(none, ...effects.ctes)
      .select({ written: effects.written })
      .from(none);
    expect(rows).toEqual([]);
    expect(await sql("select 1 from webhook_events where company_id = $1", [co.companyId])).toEqual([]);
  });
});
