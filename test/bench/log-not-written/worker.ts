import worker from "../../../src/index";

/**
 * The API's Worker with `console.log` kept from writing (warnings and errors still write): the
 * throughput benchmark's "log not written" line, what writing each request's log line costs locally,
 * where workerd writes every line to the stdout pipe Miniflare reads. On Cloudflare the line goes to
 * the invocation's logs instead.
 */
console.log = () => {};

export default worker;
