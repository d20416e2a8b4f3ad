import { before } from "./instrument.ts";
import * as root from "../../../mod.ts";
import * as core from "../../../core/mod.ts";
import * as auth from "../../../auth/mod.ts";
import * as session from "../../../session/mod.ts";
import * as storage from "../../../storage/mod.ts";
import * as storageObjects from "../../../storage/objects.ts";
import * as database from "../../../database/mod.ts";
import * as hono from "../../../hono/mod.ts";

const loaded = { root, core, auth, session, storage, storageObjects, database, hono };
const calls = (globalThis as unknown as { __importCalls: string[] }).__importCalls.slice();
const added = Object.keys(globalThis).filter((k) => !before.includes(k) && k !== "__importCalls");

export default {
  fetch(): Response {
    return Response.json({
      calls,
      added,
      exports: Object.fromEntries(
        Object.entries(loaded).map(([k, m]) => [k, Object.keys(m).length]),
      ),
    });
  },
};
