// Redacting JWT-shaped text takes linear time (found by a security review:
// the former pattern restarted at every `eyJ` of a long run, so a 64 KiB
// echoed error body or a user's object key took seconds of CPU), and it
// redacts exactly what the former pattern did.
import assert from "node:assert/strict";
import { redactSecrets } from "../../core/http_error.ts";
import { showValue } from "../../core/_show.ts";
import { createBaseClient } from "../../core/client.ts";
import { MAX_ERROR_BODY_BYTES } from "../../core/transport.ts";
import { upload } from "../../storage/objects.ts";
import { recordingFetch } from "../support/recording_fetch.ts";
import { quotedQueryPairs } from "../../core/_query_pairs.ts";
import { createAuthClient } from "../../auth/client.ts";

/** The former pattern: right, but quadratic on a long run of `eyJ`. */
const FORMER = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;

function timed<T>(f: () => T): [T, number] {
  const started = performance.now();
  const out = f();
  return [out, performance.now() - started];
}

Deno.test("redactSecrets and showValue take linear time on runs of 'eyJ' (200 KB: milliseconds, formerly half a minute)", () => {
  const hostile = [
    "eyJ".repeat(70_000),
    "eyJ".repeat(35_000) + "." + "eyJ".repeat(35_000),
    ("eyJab." + "eyJ".repeat(60)).repeat(1_000),
    "eyJ".repeat(35_000) + ".abcd." + "eyJ".repeat(35_000),
  ];
  for (const text of hostile) {
    const [, ms] = timed(() => redactSecrets(text, []));
    // The former pattern took about 3 s on 64 KiB and 35 s on 200 KB here.
    assert.ok(ms < 1_000, `${ms} ms for ${text.length} characters`);
    const [shown, showMs] = timed(() => showValue(text));
    assert.ok(showMs < 1_000, `${showMs} ms for ${text.length} characters`);
    assert.ok(shown.length < 80, shown);
  }
});

Deno.test("redactSecrets redacts exactly what the former pattern did (seeded strings of JWT fragments)", () => {
  const pieces = ["eyJ", "a", "b9", "-", "_", ".", " ", "%3D", "..", "eyJhbGciOi", "Zz", "="];
  let seed = 20261127;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < 50_000; i++) {
    let text = "";
    const length = Math.floor(rnd() * 24);
    for (let j = 0; j < length; j++) text += pieces[Math.floor(rnd() * pieces.length)];
    assert.equal(redactSecrets(text, []), text.replace(FORMER, "***"), JSON.stringify(text));
  }
  // A JWT whatever precedes it, and a file name that is none.
  assert.equal(redactSecrets("%3DeyJhbGc.eyJzdWIi.c2ln&x=1", []), "%3D***&x=1");
  assert.equal(redactSecrets("photo.backup.jpg", []), "photo.backup.jpg");
  assert.equal(showValue("a".repeat(100) + "eyJhbGc.eyJzdWIi.c2ln"), "a token-shaped string");
});

Deno.test("an error body echoing a long run of 'eyJ' and a hostile object key are answered at once", async () => {
  const echo = "eyJ".repeat(Math.floor(MAX_ERROR_BODY_BYTES / 3)); // the transport's error cap
  const rec = recordingFetch(() => new Response(echo, { status: 400 }));
  const client = createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch });
  const [pending, ms] = timed(() => client.request({ path: "/x" }));
  const r = await pending;
  assert.equal(r.ok, false);
  assert.ok(ms < 500, `${ms} ms`);
  const key = "eyJ".repeat(33_000) + "//x";
  const started = performance.now();
  const refused = await upload(client, "avatars", key, new Uint8Array(1));
  assert.equal(refused.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.ok(performance.now() - started < 1_000, `${performance.now() - started} ms`);
});

Deno.test("a redirect URL ending in a long run of '?' is scanned for secrets in linear time (100,000: milliseconds, formerly 10 s)", async () => {
  const hostile = "https://app.example/cb" + "?".repeat(100_000);
  const [pairs, ms] = timed(() => quotedQueryPairs(hostile));
  assert.ok(ms < 1_000, `${ms} ms`);
  assert.deepEqual(pairs, []);
  // Through a public call that redacts its redirect: sent at once, the URL as given.
  const rec = recordingFetch(() => Response.json({}));
  const auth = createAuthClient(
    createBaseClient("https://p.example", "anon-key", { fetch: rec.fetch }),
  );
  const started = performance.now();
  const r = await auth.signInWithOtp({ email: "a@b.example", emailRedirectTo: hostile });
  assert.ok(performance.now() - started < 1_000);
  assert.ok(r.ok);
  assert.equal(rec.last.url.searchParams.get("redirect_to"), hostile);
  // Keys hold no '?': a doubled '?' still finds the pair after it, key and all.
  assert.deepEqual(quotedQueryPairs("https://a.example/cb??token=abc%20d&x=1"), [
    ["token", "abc%20d", "abc d"],
    ["x", "1", "1"],
  ]);
});
