import { hashPassword, verifyPassword } from "../../../src/settings/passwords";

/** test/bench/password/cost.ts's Worker: `/hash` hashes a password, `/verify` checks one, `/` does nothing. */
let stored: string | undefined;
export default {
  async fetch(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    if (path === "/hash") stored = await hashPassword("correct horse battery staple");
    if (path === "/verify") await verifyPassword("correct horse battery staple", stored);
    return new Response("ok");
  },
};
