// A JavaScript caller may pass `null` for an options object ("no options"):
// every public method and exported function then behaves exactly as with the
// options left out. Each call is made twice, the last argument `undefined` and
// then `null`, with plausible arguments before it, against a server that
// answers the same to both; the outcomes (value kind, Failure category and
// message, thrown error) and the requests sent must be equal.
import assert from "node:assert/strict";
import * as root from "../mod.ts";
import * as objects from "../storage/objects.ts";
import * as hono from "../hono/mod.ts";
import { createClient } from "../client.ts";
import { createSessionManager } from "../session/manager.ts";
import { methodsOf } from "./support/fuzz.ts";

const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln";

/** A plausible value for a parameter, by its name. */
function plausible(name: string): unknown {
  if (/^(bucket|bucketName|vectorBucketName|id|factorId|name|table|fn|provider|kid)$/.test(name)) {
    return "b1";
  }
  if (/path|key|indexName/i.test(name)) return "a/b.txt";
  if (/email/i.test(name)) return "user@example.com";
  if (/phone/i.test(name)) return "+15550100";
  if (/token|jwt/i.test(name)) return TOKEN;
  if (/^(data|body)$/.test(name)) return new Uint8Array([1, 2, 3]);
  if (/^(paths|keys|vectors|names|identifiers|namespace)$/.test(name)) return ["a/b.txt"];
  if (/expiresIn|seconds|topK/i.test(name)) return 60;
  if (/^(url|redirectUrl)$/.test(name)) return "https://p.example/cb#access_token=x";
  if (/session/i.test(name)) return undefined;
  return "x";
}

/** The parameter names of a function or method, read from its source. */
function parameterNames(f: (...a: unknown[]) => unknown): string[] {
  const src = Function.prototype.toString.call(f);
  const m = /^[^(]*\(([^)]*)\)/.exec(src);
  return m ? m[1].split(",").map((p) => /^\s*(\w*)/.exec(p)![1]).filter(Boolean) : [];
}

interface World {
  requests: string[];
  receivers: Record<string, unknown>;
  targets: Array<[string, object]>;
  dispose(): void;
}

function world(): World {
  const requests: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const u = new URL(req.url);
    requests.push(`${req.method} ${u.origin}${u.pathname}`);
    if (req.body) await req.arrayBuffer();
    return new Response(JSON.stringify({ message: "no such thing" }), {
      status: 404,
      headers: { "content-type": "application/json" },
    });
  };
  const client = createClient("https://p.example", "anon-key-1", {
    fetch,
    timeout: 1000,
    retry: { maxAttempts: 1 },
  });
  const manager = createSessionManager(client.auth, client, { autoRefresh: false });
  return {
    requests,
    receivers: {
      client,
      auth: client.auth,
      authClient: client.auth,
      storage: client.storage,
      db: client.database,
      manager,
    },
    targets: [
      ["auth", client.auth],
      ["storage", client.storage],
      ["database", client.database],
      ["catalog", client.storage.analyticsCatalog("lake")],
      ["manager", manager],
    ],
    dispose: () => manager.dispose(),
  };
}

/** What a call came to, in a form two calls can be compared by. */
async function outcome(f: () => unknown): Promise<string> {
  let out: unknown;
  try {
    out = f();
  } catch (e) {
    return `threw ${(e as Error).name}: ${(e as Error).message}`;
  }
  if (typeof (out as Promise<unknown> | null)?.then === "function") {
    try {
      out = await out;
    } catch (e) {
      return `rejected ${(e as Error).name}: ${(e as Error).message}`;
    }
  }
  const r = out as { ok?: unknown; error?: { category: string; message: string } } | null;
  if (r && typeof r.ok === "boolean") {
    return r.ok ? "Success" : `Failure ${r.error!.category}: ${r.error!.message}`;
  }
  // Built URLs: PKCE challenges, nonces and states are drawn anew on each call.
  if (typeof out === "string") {
    return out.startsWith("http") ? `url ${new URL(out).origin}${new URL(out).pathname}` : "string";
  }
  return `value ${out === null ? "null" : typeof out}`;
}

/**
 * Calls `pick(world)`'s function twice, each time in a world of its own (a
 * resolver's cooldown or a manager's state carries nothing over).
 */
async function compare(
  where: string,
  pick: (w: World) => { f: (...a: unknown[]) => unknown; self: unknown; args: unknown[] },
): Promise<string | null> {
  const once = async (last: undefined | null) => {
    const w = world();
    try {
      const { f, self, args } = pick(w);
      const out = await outcome(() => f.call(self, ...args, last));
      return { out, sent: w.requests.join(" | ") };
    } finally {
      w.dispose();
    }
  };
  const a = await once(undefined);
  const b = await once(null);
  if (a.out !== b.out) return `${where}: without options ${a.out}; with null ${b.out}`;
  if (a.sent !== b.sent) return `${where}: sent ${a.sent}; with null ${b.sent}`;
  return null;
}

/** The names a trailing options parameter goes by. */
const OPTIONS = /^(options|o|opts|config|init|partial)$/;

Deno.test("every client method takes null options as no options", async () => {
  const problems: string[] = [];
  let compared = 0;
  const names = world();
  names.dispose();
  for (const [i, [name, target]] of names.targets.entries()) {
    for (const method of methodsOf(target)) {
      const params = parameterNames((target as Record<string, () => unknown>)[method]);
      if (!OPTIONS.test(params.at(-1) ?? "")) continue;
      const problem = await compare(`${name}.${method}`, (w) => {
        const self = w.targets[i][1] as Record<string, (...a: unknown[]) => unknown>;
        const args = params.slice(0, -1).map((p) => w.receivers[p] ?? plausible(p));
        return { f: self[method], self, args };
      });
      if (problem) problems.push(problem);
      compared++;
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(compared > 120, `${compared} methods`);
});

Deno.test("every exported function takes null options as no options", async () => {
  const problems: string[] = [];
  let compared = 0;
  const seen = new Set<unknown>();
  for (const [name, value] of Object.entries({ ...root, ...objects, ...hono })) {
    if (typeof value !== "function" || seen.has(value)) continue;
    seen.add(value);
    const f = value as (...a: unknown[]) => unknown;
    if (/^class\b/.test(Function.prototype.toString.call(f))) continue;
    const params = parameterNames(f);
    // Only a trailing options object: the last parameter's name says so.
    if (!OPTIONS.test(params.at(-1) ?? "")) continue;
    const problem = await compare(name, (w) => ({
      f,
      self: undefined,
      args: params.slice(0, -1).map((p) => w.receivers[p] ?? plausible(p)),
    }));
    if (problem) problems.push(problem);
    compared++;
  }
  assert.deepEqual(problems, []);
  assert.ok(compared > 130, `${compared} functions`);
});
