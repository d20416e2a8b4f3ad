import assert from "node:assert/strict";
import {
  asObject,
  decodeResult,
  enumValue,
  optArray,
  optBoolean,
  optNumber,
  optObject,
  optString,
  reqNumber,
  reqString,
} from "../../core/decode.ts";
import { withMaskedFields } from "../../core/mask.ts";
import { withProtoSetter } from "../support/proto_setter.ts";
import { success } from "../../core/result.ts";
import { encodeQuery } from "../../core/query.ts";
import { VERSION } from "../../core/version.ts";
import { createClient } from "../../mod.ts";
import { bounded } from "../../core/_abort.ts";

Deno.test("VERSION equals deno.json version", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(VERSION, config.version);
});

Deno.test("decoders are tolerant for optional fields and strict for required ones", () => {
  const o = asObject({ id: 1, s: "x", b: true, n: "12", o: { a: 1 }, l: [1, 2], bad: [1] });
  assert.equal(reqString(o, "id"), "1");
  assert.equal(optString(o, "missing"), null);
  assert.equal(optString(o, "b"), null);
  assert.equal(optBoolean(o, "b"), true);
  assert.equal(optNumber(o, "n"), 12);
  assert.equal(reqNumber(o, "n"), 12);
  assert.deepEqual(optObject(o, "o"), { a: 1 });
  assert.equal(optObject(o, "bad"), null);
  assert.deepEqual(optArray(o, "l", (v) => Number(v) * 2), [2, 4]);
  assert.throws(() => reqString(o, "missing"));
  assert.throws(() => reqNumber(o, "s"));
  assert.throws(() => asObject([]));
  const Kind = { A: "a", B: "b", UNKNOWN: "unknown" } as const;
  assert.equal(enumValue(Kind, "B", Kind.UNKNOWN), "b");
  assert.equal(enumValue(Kind, "zz", Kind.UNKNOWN), "unknown");
  assert.equal(enumValue(Kind, 3, Kind.UNKNOWN), "unknown");
});

Deno.test("decodeResult turns a thrown decoder into Failure(DECODE)", () => {
  const r = decodeResult(success<unknown>(null), (v) => asObject(v, "user"));
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.match(r.errorOrNull()!.message, /user/);
});

Deno.test("masked renderings hide secrets, JSON keeps them", () => {
  const user = withMaskedFields({ id: "u", email: "a@b.example" }, ["email"]);
  const s = withMaskedFields({ accessToken: "tok-secret", refreshToken: null, user }, [
    "accessToken",
    "refreshToken",
  ]);
  assert.equal(
    String(s),
    '{"accessToken":"***","refreshToken":null,"user":{"id":"u","email":"***"}}',
  );
  assert.ok(!Deno.inspect(s, { depth: 5 }).includes("tok-secret"));
  assert.ok(!Deno.inspect(s, { depth: 5 }).includes("a@b.example"));
  assert.deepEqual(JSON.parse(JSON.stringify(s)), {
    accessToken: "tok-secret",
    refreshToken: null,
    user: { id: "u", email: "a@b.example" },
  });
});

Deno.test("a masked rendering keeps a JSON key named __proto__ as a key", async () => {
  await withProtoSetter(() => {
    const metadata = JSON.parse('{"__proto__":{"plan":"pro"},"email":"a@b.example"}');
    const user = withMaskedFields({ id: "u", email: "c@d.example", metadata }, ["email"]);
    assert.equal(
      String(user),
      '{"id":"u","email":"***","metadata":{"__proto__":{"plan":"pro"},"email":"***"}}',
    );
  });
});

Deno.test("encodeQuery keeps order, skips nulls, encodes reserved characters", () => {
  assert.equal(encodeQuery([["b", "2"], ["a", "x y"], ["c", undefined]]), "b=2&a=x%20y");
  assert.equal(encodeQuery("?raw=1"), "raw=1");
  assert.equal(encodeQuery({ "k&": "v=(1)" }), "k%26=v%3D%281%29");
  assert.equal(encodeQuery(undefined), "");
});

Deno.test("createClient builds a Client without I/O", () => {
  let calls = 0;
  const c = createClient("https://p.example", "k-123456789", {
    fetch: () => (calls++, Promise.resolve(new Response())),
  });
  assert.equal(c.url, "https://p.example");
  assert.equal(calls, 0);
});

Deno.test("masked renderings: data keys named toString render, tokens at any depth stay hidden, inner secret keys apply", () => {
  let deep: Record<string, unknown> = { access_token: "deep-secret-token" };
  for (let i = 0; i < 12; i++) deep = { level: deep };
  const inner = withMaskedFields({ secret: "TOTPSECRET", uri: "otpauth://x" }, ["secret", "uri"]);
  const outer = withMaskedFields({
    meta: { toString: "not a function", valueOf: 1 },
    deep,
    totp: inner,
    accessToken: "outer-token",
  }, []);
  const text = String(outer);
  assert.ok(text.includes('"toString":"not a function"'), text);
  for (const secret of ["deep-secret-token", "TOTPSECRET", "otpauth://x", "outer-token"]) {
    assert.ok(!text.includes(secret), `${secret} in ${text}`);
    assert.ok(!Deno.inspect(outer, { depth: 30 }).includes(secret), secret);
  }
  // JSON keeps everything.
  assert.ok(JSON.stringify(outer).includes("deep-secret-token"));
});

Deno.test("masked renderings of values that hold themselves end at once: the walk was exponential, and endless between two masked objects", () => {
  // A session whose user the app linked back to it, and an object with many references to itself.
  const user = withMaskedFields({ id: "u", email: "a@b.example" } as Record<string, unknown>, [
    "email",
  ]);
  const session = withMaskedFields({ accessToken: "tok-secret", user }, []);
  user.session = session;
  const text = String(session);
  assert.equal(text, '{"accessToken":"***","user":{"id":"u","email":"***","session":"[…]"}}');
  assert.ok(!Deno.inspect(user, { depth: 30 }).includes("tok-secret"));
  const loop = withMaskedFields({ refreshToken: "r-secret" } as Record<string, unknown>, []);
  for (let i = 0; i < 12; i++) loop[`k${i}`] = loop;
  const t0 = performance.now();
  const looped = String(loop);
  assert.ok(performance.now() - t0 < 1000);
  assert.equal(
    looped,
    JSON.stringify({
      refreshToken: "***",
      ...Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`k${i}`, "[…]"]),
      ),
    }),
  );
  // A masked object inside another counts its own 8 levels: a session prints its user's data as
  // deep as the user alone does.
  let deep: Record<string, unknown> = { note: "bottom" };
  for (let i = 0; i < 7; i++) deep = { level: deep };
  const deepUser = withMaskedFields({ id: "u", metadata: deep }, []);
  const holder = withMaskedFields({ accessToken: "tok-secret", user: deepUser }, []);
  assert.ok(String(deepUser).includes("bottom"));
  assert.ok(String(holder).includes(String(deepUser)), String(holder));
  // An object met twice side by side, not inside itself, renders both times.
  const shared = { note: "n" };
  assert.equal(
    String(withMaskedFields({ a: shared, b: shared }, [])),
    '{"a":{"note":"n"},"b":{"note":"n"}}',
  );
});

Deno.test("core edge inputs: emoji alphabets, undefined retry fields, zero-base backoff, impossible dates, $ in URLs", async () => {
  const { randomString } = await import("../../core/crypto.ts");
  const { backoffDelay, parseRetryAfter, resolveRetryPolicy } = await import("../../core/retry.ts");
  const s = randomString(64, "😀😁");
  assert.equal(Array.from(s).length, 64);
  assert.ok([...s].every((c) => c === "😀" || c === "😁"));
  assert.equal(resolveRetryPolicy({ maxAttempts: undefined }).maxAttempts, 3);
  const zero = resolveRetryPolicy({ baseDelayMs: 0 });
  assert.equal(backoffDelay(1100, zero), 0);
  assert.equal(parseRetryAfter("Sun, 30 Feb 2025 00:00:00 GMT"), null);
  assert.equal(parseRetryAfter("Mon, 06 Nov 1994 08:49:37 GMT"), null); // it was a Sunday
  assert.equal(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT"), 0); // a real date, past
  const { createBaseClient } = await import("../../core/client.ts");
  const text = String(createBaseClient("https://h.example/$&", "anon-key-123456"));
  assert.ok(text.includes("url: https://h.example/$&"), text);
  assert.ok(!text.includes("anon-key-123456"));
});

Deno.test("bounded: a wait past setTimeout's limit is no bound (it would fire at once), 0 waits only for what has settled", async () => {
  let finish!: (v: string) => void;
  const slow = new Promise<string>((r) => (finish = r));
  const long = bounded(slow, 2 ** 31); // about 24.9 days
  const tick = new Promise((r) => setTimeout(() => r("tick"), 20));
  assert.equal(await Promise.race([long.then((o) => o.kind), tick]), "tick");
  finish("done");
  assert.deepEqual(await long, { kind: "done", value: "done" });
  assert.deepEqual(await bounded(new Promise(() => {}), 0), { kind: "timeout" });
  assert.deepEqual(await bounded(Promise.resolve(1), 0), { kind: "done", value: 1 });
});

Deno.test("bounded settles once: the work's outcome after its timeout or abort does nothing (in Workers it may be another request's, which must not resolve this one's promise)", async () => {
  const calls: string[] = [];
  // A signal that records what is done with it.
  const fake = () => {
    let listener: (() => void) | null = null;
    return {
      aborted: false,
      addEventListener: (_: string, l: () => void) => {
        calls.push("add");
        listener = l;
      },
      removeEventListener: () => void calls.push("remove"),
      fire: () => listener?.(),
    };
  };
  let release!: (v: string) => void;
  const work = new Promise<string>((r) => release = r);
  const timedOut = await bounded(work, 5, fake() as unknown as AbortSignal);
  assert.deepEqual(timedOut, { kind: "timeout" });
  release("late");
  await work;
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(calls, ["add", "remove"]);

  calls.length = 0;
  let release2!: (v: string) => void;
  const work2 = new Promise<string>((r) => release2 = r);
  const signal = fake();
  const pending = bounded(work2, Infinity, signal as unknown as AbortSignal);
  signal.fire();
  signal.fire(); // a second abort event (a signal that fires twice) changes nothing either
  assert.deepEqual(await pending, { kind: "aborted" });
  release2("late");
  await work2;
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(calls, ["add", "remove"]);
});
