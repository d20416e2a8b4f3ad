/**
 * Apps checked with `exactOptionalPropertyTypes` (as `@tsconfig/strictest` sets it) forward values
 * that may be undefined to options: `{ signal: opts.signal }`. Every optional property of the
 * library's types says `| undefined`, so that such code compiles (the project itself is checked
 * with the flag on, `deno.json`), and every option given as undefined is the option left out,
 * which the calls below compare on the wire.
 */
import assert from "node:assert/strict";
import ts from "typescript";
import { createClient } from "../mod.ts";
import { decodeSession } from "../auth/models.ts";
import { createSessionManager, InMemorySessionStorage } from "../session/mod.ts";
import { jsonResponse, recordingFetch } from "./support/recording_fetch.ts";
import { eachNode, librarySources } from "./support/library_sources.ts";
import { BASE, KEY, sessionJson, withClock } from "./session/_helpers.ts";

/**
 * Whether a type node has `undefined` as a member of its top-level union, or is `unknown` or `any`
 * (which hold it), or `never` (a property that must be absent: `{ length?: never }`).
 */
function admitsUndefined(type: ts.TypeNode): boolean {
  const plain = [
    ts.SyntaxKind.UndefinedKeyword,
    ts.SyntaxKind.UnknownKeyword,
    ts.SyntaxKind.AnyKeyword,
    ts.SyntaxKind.NeverKeyword,
  ];
  if (plain.includes(type.kind)) return true;
  if (ts.isUnionTypeNode(type)) return type.types.some(admitsUndefined);
  if (ts.isParenthesizedTypeNode(type)) return admitsUndefined(type.type);
  return false;
}

/** Every interface's own property names and the interfaces it extends, by name. */
function interfaces(files: Map<string, ts.SourceFile>): Map<string, [string[], string[]]> {
  const out = new Map<string, [string[], string[]]>();
  for (const sf of files.values()) {
    eachNode(sf, (node) => {
      if (ts.isInterfaceDeclaration(node)) {
        const own = node.members.filter(ts.isPropertySignature).map((m) => m.name.getText(sf));
        const bases = (node.heritageClauses ?? []).flatMap((h) =>
          h.types.map((t) => t.expression.getText(sf))
        );
        out.set(node.name.text, [own, bases]);
      }
    });
  }
  return out;
}

const files = await librarySources();
const declared = interfaces(files);

/** The property names of an interface of the library, those of the ones it extends included. */
function keysOf(name: string): string[] {
  const found = declared.get(name);
  assert.ok(found, `no interface ${name}`);
  const [own, bases] = found;
  return [...bases.flatMap(keysOf), ...own];
}

/** An options object naming every property of `name`, each undefined. */
function allUndefined(name: string, except: string[] = []): Record<string, undefined> {
  const keys = keysOf(name).filter((k) => !except.includes(k));
  assert.ok(keys.length > 0, name);
  return Object.fromEntries(keys.map((k) => [k, undefined]));
}

Deno.test("every optional property of the library's types admits undefined (exactOptionalPropertyTypes)", () => {
  const missing: string[] = [];
  let checked = 0;
  for (const [path, sf] of files) {
    eachNode(sf, (node) => {
      if (ts.isPropertySignature(node) && node.questionToken && node.type) {
        checked++;
        if (!admitsUndefined(node.type)) {
          const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
          missing.push(`${path}:${line + 1} ${node.name.getText(sf)}`);
        }
      }
    });
  }
  assert.ok(checked > 400, `${checked} optional properties found`);
  assert.deepEqual(missing, [], "optional properties without | undefined");
});

/** What a request carried, for comparing two calls. */
async function wire(run: (fetch: typeof globalThis.fetch) => Promise<unknown>) {
  const rec = recordingFetch();
  await run(rec.fetch);
  return rec.requests.map((r) => ({
    method: r.method,
    url: r.url.href,
    headers: [...r.headers].filter(([k]) => k !== "x-client-info"),
    body: r.text,
  }));
}

Deno.test("client options given as undefined are the defaults", () => {
  const given = allUndefined("ClientOptions");
  assert.deepEqual(Object.keys(given).sort(), [
    "accessToken",
    "fetch",
    "headers",
    "retry",
    "timeout",
  ]);
  const client = createClient("https://p.example", "anon-key", given);
  const plain = createClient("https://p.example", "anon-key");
  assert.equal(client.timeout, plain.timeout);
  assert.deepEqual(client.retry, plain.retry);
  assert.deepEqual(client.headers, plain.headers);
  assert.equal(client.accessToken, null);
  const retry = createClient("https://p.example", "anon-key", {
    retry: allUndefined("RetryPolicy"),
  });
  assert.deepEqual(retry.retry, plain.retry);
});

Deno.test("call options given as undefined send what no options send: select, rpc, upload, signed URL, resumable upload", async () => {
  const calls: Array<[string, (c: ReturnType<typeof createClient>) => Promise<unknown>[]]> = [
    ["select", (c) => [
      c.database.select("todos", allUndefined("SelectOptions")),
      c.database.select("todos"),
    ]],
    ["insert", (c) => [
      c.database.insert("todos", '{"title":"a"}', allUndefined("InsertOptions")),
      c.database.insert("todos", '{"title":"a"}'),
    ]],
    ["rpc", (c) => [
      c.database.rpc("add", allUndefined("RpcOptions")),
      c.database.rpc("add"),
    ]],
    ["upload", (c) => [
      c.storage.upload("docs", "a.txt", "x", allUndefined("UploadOptions")),
      c.storage.upload("docs", "a.txt", "x"),
    ]],
    ["createSignedUrl", (c) => [
      c.storage.createSignedUrl("docs", "a.txt", 60, allUndefined("SignedUrlOptions")),
      c.storage.createSignedUrl("docs", "a.txt", 60),
    ]],
    ["createResumableUpload", (c) => [
      c.storage.createResumableUpload(
        "docs",
        "b.bin",
        new Uint8Array(3),
        allUndefined("ResumableUploadOptions"),
      ).await(),
      c.storage.createResumableUpload("docs", "b.bin", new Uint8Array(3)).await(),
    ]],
  ];
  for (const [name, call] of calls) {
    const [withUndefined, without] = await Promise.all(
      [0, 1].map((i) =>
        wire((fetch) => call(createClient("https://p.example", "anon-key", { fetch }))[i])
      ),
    );
    assert.ok(without.length > 0, name);
    assert.deepEqual(withUndefined, without, name);
  }
});

Deno.test("session config given as undefined is the default config: storage, project tag, refresh time", async () => {
  await withClock(async (clock) => {
    const runs = [];
    // One after the other: both tick the one clock.
    for (const undefinedConfig of [true, false]) {
      const refreshes: number[] = [];
      const rec = recordingFetch((req) => {
        if (req.url.pathname.endsWith("/token")) refreshes.push(clock.now);
        return jsonResponse(sessionJson(2));
      });
      const client = createClient(BASE, KEY, { fetch: rec.fetch });
      const storage = new InMemorySessionStorage();
      const manager = createSessionManager(
        client.auth,
        client,
        undefinedConfig ? { ...allUndefined("SessionConfig", ["storage"]), storage } : { storage },
      );
      try {
        await manager.saveSession(decodeSession(sessionJson(1, { expires_in: 100 })));
        // As stored, less the times (the second run starts 41 s later).
        const { expiresAt: _e, obtainedAt: _o, ...stored } = (await storage.load()) as object as {
          expiresAt: unknown;
          obtainedAt: unknown;
        };
        await clock.tickAsync(39_000);
        const early = refreshes.length;
        await clock.tickAsync(2_000);
        runs.push({ stored, early, refreshed: refreshes.length, token: manager.accessToken });
      } finally {
        manager.dispose();
      }
    }
    // Refreshed 60 s (the default buffer) before the token's 100 s end, and stored alike.
    assert.equal(runs[1].early, 0);
    assert.equal(runs[1].refreshed, 1);
    assert.equal(runs[1].token, "access-2");
    assert.deepEqual(runs[0], runs[1]);
  });
});
