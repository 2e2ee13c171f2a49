// @upstash/redis's HTTP client and errors, from the package's shared module, which its package.json
// `exports` do not list (types: upstash-http.d.ts; why: redis.ts). The file name carries a build
// hash, so an upgrade of @upstash/redis that renames it fails the build, the type check and the tests.
export { error_exports, HttpClient } from "../../node_modules/@upstash/redis/chunk-4WQYU7T6.mjs";
