// Every public method of the clients, called with arguments of any type a
// JavaScript caller can pass (seeded, so a failure repeats) against a server
// that answers anything: each call throws only the documented TypeError or
// RangeError with a message of its own, or resolves a ServiceResult; no
// promise rejects (beyond the documented RangeError for a bad 'timeout' and
// saveSession's TypeError), no failure reads like a crash or shows a secret,
// nothing reaches the wire as "[object Object]", and no rejection goes unhandled.
// `null` options are left out: ARCHITECTURE documents that they are not read as
// "no options".
import assert from "node:assert/strict";
import { createClient } from "../client.ts";
import { createSessionManager } from "../session/mod.ts";

const SECRET = "anon-SECRETKEY-7f3a9";
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.SECRETSIGxyz";
const CRASH =
  /Cannot read propert|is not a function|is not iterable|Cannot convert|undefined is not|null is not|Maximum call stack|Invalid array length|is not a constructor|Cannot destructure|Invalid time value|Illegal invocation/;

function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const KEYS = [
  "email",
  "password",
  "phone",
  "token",
  "type",
  "redirectTo",
  "emailRedirectTo",
  "captchaToken",
  "data",
  "limit",
  "offset",
  "search",
  "sortBy",
  "sortOrder",
  "upsert",
  "contentType",
  "cacheControl",
  "expiresIn",
  "download",
  "fileName",
  "transform",
  "width",
  "format",
  "columns",
  "count",
  "returning",
  "onConflict",
  "block",
  "rollback",
  "explain",
  "maxAffected",
  "filter",
  "topK",
  "vectors",
  "keys",
  "dimension",
  "nextToken",
  "segmentCount",
  "chunkSize",
  "size",
  "public",
  "fileSizeLimit",
  "allowedMimeTypes",
  "prefix",
  "cursor",
  "factorId",
  "code",
  "scopes",
  "queryParams",
  "schema",
  "pageToken",
  "pageSize",
  "parent",
  "namespace",
  "name",
  "metadata",
  "timeout",
  "signal",
];

function generators(rnd: () => number) {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const scalars: Array<() => unknown> = [
    () => "bucket",
    () => "a/b.txt",
    () => "user@example.com",
    () => "",
    () => " ",
    () => "x".repeat(5000),
    () => "../../etc",
    () => "\ud800",
    () => "é/ü?#%",
    () => TOKEN,
    () => 0,
    () => -1,
    () => 1.5,
    () => NaN,
    () => Infinity,
    () => 60,
    () => true,
    () => false,
    () => undefined,
    () => Symbol("s"),
    () => 10n,
    () => new Uint8Array(3),
    () => new Blob(["abc"]),
    () => new Date(NaN),
    () => new ReadableStream({ pull: (c) => c.error(new Error("stream fault")) }),
    () => () => undefined,
    () => cyclic,
    () => Object.create(null),
    () => AbortSignal.abort(),
  ];
  const value = (depth = 0): unknown => {
    const r = rnd();
    if (depth > 1 || r < 0.5) return pick(scalars)();
    if (r < 0.65) return Array.from({ length: Math.floor(rnd() * 3) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(rnd() * 4); i > 0; i--) o[pick(KEYS)] = value(depth + 1);
    return o;
  };
  const answer = (depth = 0): unknown => {
    const r = rnd();
    if (depth > 2 || r < 0.4) return pick(["", TOKEN, 0, -5, 1e300, true, null, "not-a-date"]);
    if (r < 0.55) return [answer(depth + 1)];
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(rnd() * 5); i > 0; i--) {
      o[
        pick([
          "access_token",
          "user",
          "id",
          "name",
          "Key",
          "signedURL",
          "error",
          "message",
          "code",
          "statusCode",
          "data",
          "vectors",
          "nextToken",
          "size",
          "metadata",
          "keys",
          "identifiers",
        ])
      ] = answer(depth + 1);
    }
    return o;
  };
  return { pick, value, answer };
}

async function run(
  seed: number,
  perMethod: number,
): Promise<{ problems: string[]; calls: number; requests: number }> {
  const rnd = prng(seed);
  const { pick, value, answer } = generators(rnd);
  const problems: string[] = [];
  let where = "";
  let calls = 0;
  let requests = 0;
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    requests++;
    const req = new Request(input, init);
    const wire = `${decodeURI(req.url.replace(/%(?![0-9A-F]{2})/gi, "%25"))} ${
      [...req.headers].join(" ")
    }`;
    // Only the stretch before it is shown: the headers hold the API key.
    const shown = /.{0,60}\[object [A-Za-z]+\]/.exec(wire);
    if (shown) problems.push(`${where}: the wire holds ${shown[0]}`);
    const body = init?.body;
    if (
      body != null && typeof body !== "string" && !(body instanceof Blob) &&
      !(body instanceof ReadableStream) && !(body instanceof ArrayBuffer) &&
      !ArrayBuffer.isView(body)
    ) {
      problems.push(
        `${where}: a body fetch would send as text (${Object.prototype.toString.call(body)})`,
      );
    }
    const status = pick([200, 200, 201, 204, 400, 401, 404, 409, 500]);
    const k = rnd();
    if (k < 0.1) return Promise.reject(new TypeError("network down"));
    if (k < 0.2) {
      return Promise.resolve(new Response(status === 204 ? null : "{not json", { status }));
    }
    return Promise.resolve(
      new Response(status === 204 ? null : JSON.stringify(answer()), {
        status,
        headers: { "content-type": "application/json" },
      }),
    );
  }) as typeof globalThis.fetch;
  const client = createClient("https://p.example", SECRET, {
    fetch,
    timeout: 1000,
    retry: { maxAttempts: 1 },
  });
  const manager = createSessionManager(client.auth, client, { autoRefresh: false });
  const targets: Array<[string, object]> = [
    ["auth", client.auth],
    ["storage", client.storage],
    ["database", client.database],
    ["catalog", client.storage.analyticsCatalog("lake")],
    ["manager", manager],
  ];
  const onUnhandled = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    problems.push(`${where}: unhandled rejection ${String(e.reason)}`);
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  try {
    for (const [name, target] of targets) {
      for (const method of methodsOf(target)) {
        if (name === "manager" && (method === "dispose" || method === "close")) continue;
        for (let i = 0; i < perMethod; i++) {
          const args = Array.from({ length: Math.floor(rnd() * 4) }, () => value());
          if (args.length > 0 && rnd() < 0.6) {
            args[0] = pick(["bucket", "a/b.txt", "user@example.com", "t"]);
          }
          where = `${name}.${method}(seed ${seed}, call ${i})`;
          calls++;
          const problem = await check(
            () => (target as Record<string, (...a: unknown[]) => unknown>)[method](...args),
            `${name}.${method}`,
          );
          if (problem) problems.push(`${where}: ${problem}`);
        }
      }
    }
    // Let late rejections surface.
    await new Promise((resolve) => setTimeout(resolve, 0));
  } finally {
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
    manager.dispose();
  }
  return { problems, calls, requests };
}

function methodsOf(o: object): string[] {
  const names = new Set<string>();
  for (
    let p = Object.getPrototypeOf(o);
    p && p !== Object.prototype;
    p = Object.getPrototypeOf(p)
  ) {
    for (const n of Object.getOwnPropertyNames(p)) {
      if (
        n !== "constructor" && typeof Object.getOwnPropertyDescriptor(p, n)!.value === "function"
      ) {
        names.add(n);
      }
    }
  }
  return [...names].sort();
}

function leaks(text: string): boolean {
  return text.includes(SECRET) || text.includes("SECRETSIG");
}

/** What is wrong with one call's outcome, or null. */
async function check(call: () => unknown, name: string): Promise<string | null> {
  let out: unknown;
  try {
    out = call();
  } catch (e) {
    if (!(e instanceof TypeError || e instanceof RangeError)) return `threw ${String(e)}`;
    if (CRASH.test(e.message) || !/^Cannot /.test(e.message)) {
      return `threw ${e.name}: ${e.message}`;
    }
    return leaks(e.message) ? "a thrown message shows a secret" : null;
  }
  if (typeof (out as Promise<unknown> | null)?.then !== "function") return null;
  let result: unknown;
  try {
    result = await out;
  } catch (e) {
    const documented =
      (e instanceof RangeError && /'(timeout|maxBodyBytes)' must be/.test(e.message)) ||
      (name === "manager.saveSession" && e instanceof TypeError &&
        /^Cannot save the session/.test(e.message));
    return documented ? null : `rejected ${String(e)}`;
  }
  const r = result as {
    ok?: boolean;
    errorOrNull?: () => { message: string; category: unknown } | null;
  };
  if (typeof r?.ok !== "boolean" || typeof r.errorOrNull !== "function") return null;
  const error = r.errorOrNull();
  if (error === null) return null;
  if (typeof error.category !== "string") return "a failure without a category";
  if (CRASH.test(error.message)) return `a failure reads like a crash: ${error.message}`;
  if (leaks(`${error.message} ${JSON.stringify(error)}`)) {
    return `a failure shows a secret: ${error.message}`;
  }
  return null;
}

for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
  Deno.test(`every public method survives hostile arguments and answers (seed ${seed})`, async () => {
    const { problems, calls, requests } = await run(seed, 12);
    assert.deepEqual(problems, []);
    // The run reached the methods and, past their checks, the wire.
    assert.ok(calls > 1500, `${calls} calls`);
    assert.ok(requests > 300, `${requests} requests`);
  });
}
