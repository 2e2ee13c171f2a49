ALTER TABLE "artworks" ADD COLUMN "approved_at" timestamp with time zone;--> statement-breakpoint
-- Artworks approved before the column existed: their last change is the best known approval time.
UPDATE "artworks" SET "approved_at" = "updated_at" WHERE "status" = 'approved';
