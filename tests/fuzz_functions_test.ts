// Every exported function (of the root, `./storage/objects` and `./hono`),
// called with real receivers (a client, its auth, storage and database
// clients, a session manager: the parameters named client, auth, storage, db
// and manager) and arguments of any type elsewhere, against a server that
// answers anything. The same rules as tests/fuzz_api_test.ts: only the
// library's own TypeError or RangeError is thrown, only documented rejections
// happen, no failure reads like a crash or shows a secret, nothing reaches the
// wire as "[object Object]", no call hangs and no rejection goes unhandled.
// The low-level building blocks ARCHITECTURE lists as unchecked are left out.
import assert from "node:assert/strict";
import * as root from "../mod.ts";
import * as objects from "../storage/objects.ts";
import * as hono from "../hono/mod.ts";
import { ServiceException } from "../core/result.ts";
import { fuzzRun, TOKEN } from "./support/fuzz.ts";

/** Typed building blocks that take their signature's types unchecked (ARCHITECTURE). */
const UNCHECKED = new Set([
  "parseRetryAfter",
  "parseContentRange",
  "parseUploadOffset",
  "redactSecrets",
  "redactCause",
  "errorFromResponse",
  "categoryForStatus",
  "backoffDelay",
  "enumValue",
  "failure",
  "utf8Decode",
  "sha256",
  "withMaskedFields",
  "serializeSession",
  "renderInGroup",
  "renderTopLevel",
  "encodeQuery",
  "request",
  "requestBody",
  "buildHeaders",
  "decodeResult",
  "asArray",
  "asObject",
]);
/** JSON decoders: they throw DecodeError for JSON of another shape, by design. */
const DECODER = /^(decode[A-Z]|opt[A-Z]|req[A-Z])/;

/** The parameter names of a function, read from its source. */
function parameterNames(f: (...a: unknown[]) => unknown): string[] {
  const m = /^(?:async\s+)?function\s*\*?\s*\w*\s*\(([^)]*)/.exec(
    Function.prototype.toString.call(f),
  );
  return m ? m[1].split(",").map((p) => /^\s*(\w*)/.exec(p)![1]).filter(Boolean) : [];
}

function exported(): Array<[string, (...a: unknown[]) => unknown]> {
  const out = new Map<string, (...a: unknown[]) => unknown>();
  for (const [name, value] of Object.entries({ ...root, ...objects, ...hono })) {
    if (typeof value !== "function" || UNCHECKED.has(name) || DECODER.test(name)) continue;
    if (/^class\b/.test(Function.prototype.toString.call(value))) continue;
    out.set(name, value as (...a: unknown[]) => unknown);
  }
  return [...out].sort(([a], [b]) => a.localeCompare(b));
}

function run(seed: number, perFunction: number) {
  return fuzzRun(seed, async ({ rnd, pick, value, client, manager, call }) => {
    const receivers: Record<string, unknown> = {
      client,
      auth: client.auth,
      storage: client.storage,
      db: client.database,
      manager,
    };
    for (const [name, f] of exported()) {
      const params = parameterNames(f);
      for (let i = 0; i < perFunction; i++) {
        const args = params.map((p, j) =>
          p in receivers
            ? receivers[p]
            : j < 3 && rnd() < 0.4
            ? pick(["bucket", "a/b.txt", "todos", "user@example.com", TOKEN, "id", "google"])
            : value()
        );
        // Trailing options left out now and then (never a receiver).
        if (args.length > 0 && !(params[args.length - 1] in receivers) && rnd() < 0.2) args.pop();
        await call(
          `${name}(call ${i})`,
          () => f(...args),
          (e) =>
            (name.endsWith("OrThrow") && e instanceof ServiceException) ||
            // Async helpers report their documented TypeErrors as rejections.
            (name === "pkceChallengeS256" || name === "generatePkceParams") &&
              e instanceof TypeError && /^Cannot /.test(e.message),
        );
      }
    }
  });
}

for (const seed of [1, 2, 3, 4]) {
  Deno.test(`every exported function survives hostile arguments and answers (seed ${seed})`, async () => {
    // 12 calls a function: enough that every seed reaches the wire past the argument checks.
    const { problems, calls, requests } = await run(seed, 12);
    assert.deepEqual(problems, []);
    // The run reached the functions and, past their checks, the wire.
    assert.ok(exported().length > 170, `${exported().length} functions`);
    assert.ok(calls > 1700, `${calls} calls`);
    // (228 to 248 since the typed function calls refuse options that are no object, 272 to 293 before.)
    assert.ok(requests > 200, `${requests} requests`);
  });
}
