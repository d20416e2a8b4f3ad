// Shared by the fuzz tests: seeded generators of hostile arguments and of
// answers, a fetch stand-in that answers anything and inspects what reaches
// it, the check of one call's outcome against the library's contract, and
// the harness of one seeded run.
import { type Client, createClient } from "../../client.ts";
import { createSessionManager, type SessionManager } from "../../session/mod.ts";

export const SECRET = "anon-SECRETKEY-7f3a9";
export const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.SECRETSIGxyz";
export const CRASH =
  /Cannot read propert|is not a function|is not iterable|Cannot convert|undefined is not|null is not|Maximum call stack|Invalid array length|is not a constructor|Cannot destructure|Invalid time value|Illegal invocation|Cannot use 'in'|Cannot create property/;

export function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

export const KEYS: readonly string[] = [
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

export function generators(rnd: () => number) {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  // Many references to itself, in an object, an array and a Map: a walk that does not notice it
  // is inside itself takes exponential time.
  const knot: Record<string, unknown> = { id: 1 };
  const knotList: unknown[] = [knot, knot];
  for (const k of ["a", "b", "c", "d", "e", "f"]) knot[k] = knot;
  knot.list = knotList;
  knot.map = new Map<string, unknown>([["back", knot], ["list", knotList]]);
  knotList.push(knotList);
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
    () => null,
    () => Symbol("s"),
    () => 10n,
    () => new Uint8Array(3),
    () => new Blob(["abc"]),
    () => new Date(NaN),
    () => new ReadableStream({ pull: (c) => c.error(new Error("stream fault")) }),
    () => () => undefined,
    () => cyclic,
    () => knot,
    () => knotList,
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

const HEADERS: ReadonlyArray<[string, readonly string[]]> = [
  ["retry-after", ["0", "1", "-1", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"]],
  ["location", [
    "https://p.example/storage/v1/upload/resumable/x",
    "",
    "::bad",
    "/rel",
    "https://evil.example/x",
  ]],
  ["upload-offset", ["0", "3", "-1", "x", "99999999999999999999"]],
  ["upload-length", ["0", "3", "x", "-5"]],
  ["content-range", ["0-0/1", "*/x", "bad", "0-9/*", "*/5", "5-1/3"]],
  ["content-length", ["0", "3"]],
  ["etag", ['"abc"', ""]],
  ["last-modified", ["not a date", "Wed, 21 Oct 2015 07:28:00 GMT"]],
];

/**
 * A fetch that answers anything (statuses, broken JSON, network faults, odd
 * headers, bodies cut by a reset) and
 * reports, through `onProblem`, what a call put on the wire as
 * "[object …]" or as a body fetch would stringify.
 */
export function hostileFetch(
  rnd: () => number,
  onProblem: (problem: string) => void,
  onRequest: () => void = () => {},
): typeof globalThis.fetch {
  const { pick, answer } = generators(rnd);
  return ((input: RequestInfo | URL, init?: RequestInit) => {
    onRequest();
    const req = new Request(input, init);
    const wire = `${decodeURI(req.url.replace(/%(?![0-9A-F]{2})/gi, "%25"))} ${
      [...req.headers].join(" ")
    }`;
    // Only the stretch before it is shown: the headers hold the API key.
    const shown = /.{0,60}\[object [A-Za-z]+\]/.exec(wire);
    if (shown) onProblem(`the wire holds ${shown[0]}`);
    const body = init?.body;
    if (
      body != null && typeof body !== "string" && !(body instanceof Blob) &&
      !(body instanceof ReadableStream) && !(body instanceof ArrayBuffer) &&
      !ArrayBuffer.isView(body)
    ) {
      onProblem(
        `a body fetch would send as text (${Object.prototype.toString.call(body)})`,
      );
    }
    const status = pick([200, 200, 201, 204, 206, 400, 401, 404, 409, 416, 429, 500]);
    const k = rnd();
    if (k < 0.1) return Promise.reject(new TypeError("network down"));
    // Headers the clients read, now and then hostile (retry waits kept short).
    const headers = new Headers({
      "content-type": pick(["application/json", "application/json", "text/html", "text/csv"]),
    });
    for (const [name, values] of HEADERS) if (rnd() < 0.25) headers.set(name, pick(values));
    const text = k < 0.2 ? "{not json" : JSON.stringify(answer());
    // A connection reset halfway through the body.
    const answerBody = k > 0.93
      ? new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(text.slice(0, 5)));
          c.error(new TypeError("connection reset"));
        },
      })
      : text;
    return Promise.resolve(new Response(status === 204 ? null : answerBody, { status, headers }));
  }) as typeof globalThis.fetch;
}

export function leaks(text: string): boolean {
  return text.includes(SECRET) || text.includes("SECRETSIG");
}

/**
 * What is wrong with one call's outcome, or null: it may throw only a
 * TypeError or RangeError of the library's own ("Cannot …") that shows no
 * secret, reject only as `documented` allows, and resolve no failure that
 * reads like a crash or shows a secret.
 */
export async function check(
  call: () => unknown,
  documented: (rejection: unknown) => boolean,
): Promise<string | null> {
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
    return documented(e) ? null : `rejected ${String(e)}`;
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

/** One seeded run: its generators, a client over the hostile fetch, and `call`. */
export interface FuzzRun {
  rnd: () => number;
  pick: <T>(a: readonly T[]) => T;
  value: () => unknown;
  client: Client;
  manager: SessionManager;
  /**
   * Runs one call and records what is wrong with it, if anything (see
   * {@linkcode check}), or that it did not settle within 5 s.
   */
  call(where: string, f: () => unknown, documented: (e: unknown) => boolean): Promise<void>;
}

/**
 * Runs `body` over a client (auth, storage, database) and a session manager
 * whose fetch answers anything; returns every problem found (what a call put
 * on the wire, how it ended, a rejection nobody handled) and the counts.
 */
export async function fuzzRun(
  seed: number,
  body: (run: FuzzRun) => Promise<void>,
): Promise<{ problems: string[]; calls: number; requests: number }> {
  const rnd = prng(seed);
  const { pick, value } = generators(rnd);
  const problems: string[] = [];
  let where = "";
  let calls = 0;
  let requests = 0;
  const fetch = hostileFetch(rnd, (problem) => problems.push(`${where}: ${problem}`), () => {
    requests++;
  });
  const client = createClient("https://p.example", SECRET, {
    fetch,
    timeout: 1000,
    retry: { maxAttempts: 1 },
  });
  const manager = createSessionManager(client.auth, client, { autoRefresh: false });
  const onUnhandled = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    problems.push(`${where}: unhandled rejection ${String(e.reason)}`);
  };
  const call = async (at: string, f: () => unknown, documented: (e: unknown) => boolean) => {
    where = `${at} (seed ${seed})`;
    calls++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve("did not settle within 5 s"), 5000);
    });
    const problem = await Promise.race([check(f, documented), hung])
      .finally(() => clearTimeout(timer));
    if (problem) problems.push(`${where}: ${problem}`);
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  try {
    await body({ rnd, pick, value, client, manager, call });
    // Let late rejections surface.
    await new Promise((resolve) => setTimeout(resolve, 0));
  } finally {
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
    manager.dispose();
  }
  return { problems, calls, requests };
}

/** The names of an object's methods, from its prototype chain, sorted. */
export function methodsOf(o: object): string[] {
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
