-- Order statuses and taxes become API resources (/statuses, /taxes): a color, soft deletion, dense
-- positions and names unique in the company ignoring case. Existing rows (the admin CLI, imports, the
-- demo data) are brought to those rules here.
ALTER TABLE "order_statuses" ADD COLUMN "color" text;--> statement-breakpoint
ALTER TABLE "order_statuses" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "taxes" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
-- Dense positions 0 … n−1 per company, in the order the statuses had (position, then id).
UPDATE "order_statuses" s SET "position" = d.dense
FROM (SELECT "id", (row_number() OVER (PARTITION BY "company_id" ORDER BY "position", "id") - 1)::int AS dense FROM "order_statuses") d
WHERE s."id" = d."id" AND s."position" IS DISTINCT FROM d.dense;--> statement-breakpoint
-- A name repeated in a company (ignoring case) keeps its first status; the later ones get their id appended.
UPDATE "order_statuses" s SET "name" = s."name" || ' (' || s."id" || ')'
FROM (SELECT "id", row_number() OVER (PARTITION BY "company_id", lower("name") ORDER BY "id") AS nth FROM "order_statuses") d
WHERE s."id" = d."id" AND d.nth > 1;--> statement-breakpoint
CREATE UNIQUE INDEX "order_statuses_company_name_uq" ON "order_statuses" USING btree ("company_id",lower("name")) WHERE "order_statuses"."deleted_at" is null;
