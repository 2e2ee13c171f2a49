-- The order list's filters and sorts (GET /orders: payment_status, several statuses, deadline range, sort),
-- and the index a tax's rate change and delete use. Index builds here lock writes to their table while they
-- run: on a large production database build them first with `npm run db:indexes` (CREATE INDEX
-- CONCURRENTLY); they are IF NOT EXISTS here, so this migration then only records them (docs/scale.md).
--
-- projects.payment_status is derived from the order's default invoice: unpaid (nothing paid, a total above
-- 0), partial, paid (payments cover the total; a total of 0 is paid). Statement-level triggers keep it in the
-- writing statement's transaction whenever an input of the totals changes (items, payments, the invoice's
-- discount and tax, a tax's rate). The total is computed here as invoiceTotals() computes it in
-- src/domain/totals.ts (half-up rounding to cents at each line, a percentage discount and the tax);
-- src/routes/orders/payment-status.test.ts holds the two to the same answers.
ALTER TABLE "projects" ADD COLUMN "payment_status" text DEFAULT 'paid' NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_payment_status_ck" CHECK ("projects"."payment_status" in ('unpaid', 'partial', 'paid'));--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "invoices_tax_idx" ON "invoices" USING btree ("tax_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "projects_company_payment_created_idx" ON "projects" USING btree ("company_id","payment_status","created_at","id") WHERE "projects"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "projects_company_deadline_idx" ON "projects" USING btree ("company_id",coalesce("deadline", 'infinity'::date),"id","deadline","created_at") WHERE "projects"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "projects_company_deadline_desc_idx" ON "projects" USING btree ("company_id",coalesce("deadline", '-infinity'::date),"id") WHERE "projects"."deleted_at" is null;--> statement-breakpoint
-- Counters per payment status too ('orders/payment_status=paid'), beside the list's and the statuses'.
DROP TRIGGER projects_count_insert ON projects;--> statement-breakpoint
DROP TRIGGER projects_count_update ON projects;--> statement-breakpoint
DROP TRIGGER projects_count_delete ON projects;--> statement-breakpoint
CREATE TRIGGER projects_count_insert AFTER INSERT ON projects REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('orders', 'status_id', 'payment_status');--> statement-breakpoint
CREATE TRIGGER projects_count_update AFTER UPDATE ON projects REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('orders', 'status_id', 'payment_status');--> statement-breakpoint
CREATE TRIGGER projects_count_delete AFTER DELETE ON projects REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_apply('orders', 'status_id', 'payment_status');--> statement-breakpoint
-- Every order is 'paid' until the backfill below; the triggers above hold writes to projects until commit.
INSERT INTO list_counts (company_id, list, shard, n)
SELECT company_id, 'orders/payment_status=paid', 0, count(*) FROM projects WHERE deleted_at IS NULL GROUP BY company_id;--> statement-breakpoint
-- The payment status of the orders of these invoices (default invoices only), written where it changed.
-- Each input is read once per invoice (sums grouped by invoice), so a bulk write costs in proportion to it.
CREATE FUNCTION order_payment_status_refresh(invoice_ids integer[]) RETURNS void LANGUAGE sql AS $$
  WITH inv AS (
    SELECT i.id, i.project_id, i.discount_amount, i.discount_amount_type, i.discount_type,
      CASE WHEN i.tax_exempt OR tx.rate IS NULL THEN 0 ELSE tx.rate END AS rate
    FROM invoices i LEFT JOIN taxes tx ON tx.id = i.tax_id
    WHERE i.id = ANY(invoice_ids) AND i.is_default
  ),
  lines AS (
    SELECT invoice_id, sum(round(quantity * unit_price, 2)) AS subtotal FROM invoice_items
    WHERE invoice_id = ANY(invoice_ids) AND deleted_at IS NULL GROUP BY invoice_id
  ),
  paid AS (
    SELECT invoice_id, sum(amount) AS paid FROM payments
    WHERE invoice_id = ANY(invoice_ids) AND deleted_at IS NULL GROUP BY invoice_id
  ),
  -- after_tax: the tax on the subtotal, the discount on subtotal + tax; before_tax: the discount first.
  a AS MATERIALIZED (
    SELECT inv.*, coalesce(lines.subtotal, 0) AS subtotal, coalesce(paid.paid, 0) AS paid,
      CASE WHEN inv.discount_type = 'after_tax' THEN round(coalesce(lines.subtotal, 0) * inv.rate * 0.01, 2) END AS tax_first
    FROM inv LEFT JOIN lines ON lines.invoice_id = inv.id LEFT JOIN paid ON paid.invoice_id = inv.id
  ),
  -- A discount never exceeds its base.
  d AS MATERIALIZED (
    SELECT a.*, least(CASE WHEN discount_amount_type = 'fixed_amount' THEN discount_amount
                           ELSE round((subtotal + coalesce(tax_first, 0)) * discount_amount * 0.01, 2) END,
                      greatest(subtotal + coalesce(tax_first, 0), 0)) AS discount
    FROM a
  ),
  t AS (
    SELECT project_id, paid, subtotal - discount + coalesce(tax_first, round((subtotal - discount) * rate * 0.01, 2)) AS total FROM d
  ),
  s AS (
    SELECT project_id, CASE WHEN paid >= total THEN 'paid' WHEN paid = 0 THEN 'unpaid' ELSE 'partial' END AS status FROM t
  )
  UPDATE projects p SET payment_status = s.status
  FROM s
  WHERE p.id = s.project_id AND p.payment_status IS DISTINCT FROM s.status
$$;--> statement-breakpoint
-- Statement triggers: the invoices whose totals' inputs the statement changed (one set per statement).
CREATE FUNCTION order_payment_status_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids integer[];
BEGIN
  IF TG_TABLE_NAME = 'invoice_items' AND TG_OP = 'UPDATE' THEN
    SELECT array_agg(DISTINCT x) INTO ids FROM (
      SELECT unnest(array[n.invoice_id, o.invoice_id]) AS x FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE (n.invoice_id, n.quantity, n.unit_price, n.deleted_at) IS DISTINCT FROM (o.invoice_id, o.quantity, o.unit_price, o.deleted_at)) c;
  ELSIF TG_TABLE_NAME = 'payments' AND TG_OP = 'UPDATE' THEN
    SELECT array_agg(DISTINCT x) INTO ids FROM (
      SELECT unnest(array[n.invoice_id, o.invoice_id]) AS x FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE (n.invoice_id, n.amount, n.deleted_at) IS DISTINCT FROM (o.invoice_id, o.amount, o.deleted_at)) c;
  ELSIF TG_TABLE_NAME IN ('invoice_items', 'payments') AND TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT invoice_id) INTO ids FROM new_rows;
  ELSIF TG_TABLE_NAME IN ('invoice_items', 'payments') THEN
    SELECT array_agg(DISTINCT invoice_id) INTO ids FROM old_rows;
  ELSIF TG_TABLE_NAME = 'invoices' THEN
    SELECT array_agg(n.id) INTO ids FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE (n.tax_id, n.tax_exempt, n.discount_amount, n.discount_amount_type, n.discount_type, n.is_default)
      IS DISTINCT FROM (o.tax_id, o.tax_exempt, o.discount_amount, o.discount_amount_type, o.discount_type, o.is_default);
  ELSE -- taxes: a new rate changes every invoice that has the tax.
    SELECT array_agg(i.id) INTO ids FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN invoices i ON i.tax_id = n.id
    WHERE n.rate IS DISTINCT FROM o.rate AND i.is_default;
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM order_payment_status_refresh(ids);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- A new invoice has no items and no payments: a total of 0, 'paid', the column's default. So invoices need
-- no insert trigger, and taxes none but for updates.
CREATE TRIGGER invoice_items_payment_status_insert AFTER INSERT ON invoice_items REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION order_payment_status_apply();--> statement-breakpoint
CREATE TRIGGER invoice_items_payment_status_update AFTER UPDATE ON invoice_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION order_payment_status_apply();--> statement-breakpoint
CREATE TRIGGER invoice_items_payment_status_delete AFTER DELETE ON invoice_items REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION order_payment_status_apply();--> statement-breakpoint
CREATE TRIGGER payments_payment_status_insert AFTER INSERT ON payments REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION order_payment_status_apply();--> statement-breakpoint
CREATE TRIGGER payments_payment_status_update AFTER UPDATE ON payments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION order_payment_status_apply();--> statement-breakpoint
CREATE TRIGGER payments_payment_status_delete AFTER DELETE ON payments REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION order_payment_status_apply();--> statement-breakpoint
CREATE TRIGGER invoices_payment_status_update AFTER UPDATE ON invoices REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION order_payment_status_apply();--> statement-breakpoint
CREATE TRIGGER taxes_payment_status_update AFTER UPDATE ON taxes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION order_payment_status_apply();--> statement-breakpoint
-- Backfill: every order's status from its invoice (the count triggers move the counters as it goes).
SELECT order_payment_status_refresh(array(SELECT id FROM invoices WHERE is_default));
