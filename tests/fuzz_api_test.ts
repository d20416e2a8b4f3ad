// Every public method of the clients, called with arguments of any type a
// JavaScript caller can pass (seeded, so a failure repeats) against a server
// that answers anything: each call throws only the documented TypeError or
// RangeError with a message of its own, or resolves a ServiceResult; no
// promise rejects (beyond saveSession's and clearSession's TypeError: a bad
// 'timeout' resolves INVALID_ARGUMENT), no failure reads like a crash or shows a secret,
// nothing reaches the wire as "[object Object]", and no rejection goes unhandled.
// `null` options, read as "no options", have their own test (null_options_test.ts).
import assert from "node:assert/strict";
import { fuzzRun, methodsOf } from "./support/fuzz.ts";

function run(seed: number, perMethod: number) {
  return fuzzRun(seed, async ({ rnd, pick, value, client, manager, call }) => {
    const targets: Array<[string, object]> = [
      ["auth", client.auth],
      ["storage", client.storage],
      ["database", client.database],
      ["catalog", client.storage.analyticsCatalog("lake")],
      ["manager", manager],
    ];
    for (const [name, target] of targets) {
      for (const method of methodsOf(target)) {
        if (name === "manager" && (method === "dispose" || method === "close")) continue;
        for (let i = 0; i < perMethod; i++) {
          const args = Array.from({ length: Math.floor(rnd() * 4) }, () => value());
          if (args.length > 0 && rnd() < 0.6) {
            args[0] = pick(["bucket", "a/b.txt", "user@example.com", "t"]);
          }
          await call(
            `${name}.${method}(call ${i})`,
            () => (target as Record<string, (...a: unknown[]) => unknown>)[method](...args),
            (e) => (name === "manager" && /^(save|clear)Session$/.test(method) &&
              e instanceof TypeError && /^Cannot (save|clear) the session/.test(e.message)),
          );
        }
      }
    }
  });
}

for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 5088]) {
  Deno.test(`every public method survives hostile arguments and answers (seed ${seed})`, async () => {
    const { problems, calls, requests } = await run(seed, 12);
    assert.deepEqual(problems, []);
    // The run reached the methods and, past their checks, the wire.
    assert.ok(calls > 1500, `${calls} calls`);
    // (Calls refused before sending lower it: a write whose block a JavaScript caller left out.)
    assert.ok(requests > 250, `${requests} requests`);
  });
}
