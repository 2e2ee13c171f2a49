-- oauth_clients.granted_at (the migration before this one) for clients consented to before it: the
-- purge (src/oauth/purge.ts) keeps a registered client that got a consent once.
UPDATE "oauth_clients" c SET "granted_at" = g."created_at"
FROM (SELECT "client_id", max("created_at") AS "created_at" FROM "oauth_grants" GROUP BY "client_id") g
WHERE g."client_id" = c."id" AND c."granted_at" IS NULL;
