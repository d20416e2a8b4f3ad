/**
 * getClaims over a hand-built claims source that throws or rejects: `Failure(UNKNOWN)`, the
 * token kept out of its message and cause; the call never rejects.
 */

import assert from "node:assert/strict";
import { type ClaimsSource, getClaims } from "../../auth/get_claims.ts";
import type { JwksResolver } from "../../auth/jwks.ts";
import { claims, makeKey, signEs256, signHs256 } from "./_helpers.ts";

function source(o: {
  getUser?: ClaimsSource["getUser"];
  cached?: () => CryptoKey | null;
  resolve?: () => ReturnType<JwksResolver["verificationKey"]>;
}): ClaimsSource {
  return {
    jwks: {
      cachedVerificationKey: o.cached ?? (() => null),
      verificationKey: o.resolve ?? (() => Promise.reject(new Error("no resolver here"))),
    } as unknown as JwksResolver,
    getUser: o.getUser ?? (() => Promise.reject(new Error("no user here"))),
  };
}

Deno.test("a claims source that throws or rejects is Failure(UNKNOWN) without the token, never a rejection", async () => {
  const key = await makeKey("k1");
  const es = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
  const hs = await signHs256({ alg: "HS256" }, claims(), new TextEncoder().encode("secret"));
  const cases: Array<[string, string, ClaimsSource]> = [
    [
      "getUser throws",
      hs,
      source({
        getUser: (t) => {
          throw new Error(`refused ${t}`);
        },
      }),
    ],
    ["getUser rejects", hs, source({ getUser: (t) => Promise.reject(new TypeError(`bad ${t}`)) })],
    ["getUser rejects a string", hs, source({ getUser: (t) => Promise.reject(`no ${t}`) })],
    [
      "cachedVerificationKey throws",
      es,
      source({
        cached: () => {
          throw new Error("cache broken");
        },
      }),
    ],
    ["verificationKey rejects", es, source({ resolve: () => Promise.reject(new Error("down")) })],
  ];
  for (const [name, token, auth] of cases) {
    let r;
    try {
      r = await getClaims(auth, token);
    } catch (e) {
      assert.fail(`${name}: rejected with ${e}`);
    }
    const e = r.errorOrNull();
    assert.equal(e?.category, "UNKNOWN", name);
    assert.match(e!.message, /^Cannot verify the JWT as its claims source failed: /, name);
    assert.ok(!e!.message.includes(token), `${name}: the token is in the message`);
    const cause = e!.cause;
    const text = cause instanceof Error ? `${cause.message} ${cause.stack}` : String(cause);
    assert.ok(!text.includes(token), `${name}: the token is in the cause`);
  }
});
