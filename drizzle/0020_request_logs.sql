CREATE TABLE "request_logs" (
	"id" bigserial NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"company_id" integer NOT NULL,
	"request_id" text NOT NULL,
	"seq" smallint DEFAULT 0 NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"operation" text,
	"tool" text,
	"status" smallint NOT NULL,
	"status_class" smallint NOT NULL,
	"error_code" text,
	"duration_ms" integer NOT NULL,
	"token_id" integer,
	"oauth_grant_id" integer,
	"oauth_client_id" text,
	"user_id" integer,
	"idempotency_key" text,
	"idempotent_replay" boolean DEFAULT false NOT NULL,
	CONSTRAINT "request_logs_created_at_id_pk" PRIMARY KEY("created_at","id")
);
--> statement-breakpoint
CREATE INDEX "request_logs_company_idx" ON "request_logs" USING btree ("company_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "request_logs_token_idx" ON "request_logs" USING btree ("company_id","token_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "request_logs_status_idx" ON "request_logs" USING btree ("company_id","status_class","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "request_logs_operation_idx" ON "request_logs" USING btree ("company_id","operation","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "request_logs_request_idx" ON "request_logs" USING btree ("company_id","request_id","seq","created_at");