/**
 * Importing any subpath touches no web API: with every one of them taken away (only the
 * language's own built-ins left), each subpath loads. `core/encoding.ts` built its TextEncoder at
 * import, so where there is none (Jest's jsdom environment) `import "fetchbase"` threw
 * "TextEncoder is not defined" before a test could run. This file imports nothing of the library
 * statically, so that its modules are evaluated after the globals are gone.
 */
import assert from "node:assert/strict";

/** Web APIs, and what Deno, Node and the browsers add beside them. */
const WEB = [
  "TextEncoder",
  "TextDecoder",
  "TextEncoderStream",
  "TextDecoderStream",
  "fetch",
  "Request",
  "Response",
  "Headers",
  "FormData",
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "ReadableStreamDefaultReader",
  "ReadableStreamBYOBReader",
  "CompressionStream",
  "DecompressionStream",
  "Blob",
  "File",
  "AbortController",
  "AbortSignal",
  "crypto",
  "Crypto",
  "CryptoKey",
  "SubtleCrypto",
  "atob",
  "btoa",
  "URLSearchParams",
  "URLPattern",
  "structuredClone",
  "DOMException",
  "Event",
  "EventTarget",
  "CustomEvent",
  "navigator",
  "localStorage",
  "sessionStorage",
  "performance",
  "BroadcastChannel",
  "WebSocket",
  "Deno",
  "process",
  "Buffer",
];

Deno.test("every subpath loads with no web API at all (only the language's built-ins)", async () => {
  const exports = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  ).exports as Record<string, string>;
  const specifiers = Object.values(exports).map((f) => new URL(`../../${f}`, import.meta.url).href);
  const g = globalThis as Record<string, unknown>;
  const saved = new Map<string, PropertyDescriptor>();
  for (const name of WEB) {
    const d = Object.getOwnPropertyDescriptor(g, name);
    if (d) {
      saved.set(name, d);
      delete g[name];
    }
  }
  const failures: string[] = [];
  let loaded = 0;
  try {
    assert.equal(typeof g.TextEncoder, "undefined");
    for (const specifier of specifiers) {
      try {
        const m = await import(specifier);
        if (Object.keys(m).length > 0) loaded++;
      } catch (error) {
        failures.push(`${specifier}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    for (const [name, d] of saved) Object.defineProperty(g, name, d);
  }
  assert.deepEqual(failures, []);
  assert.equal(loaded, specifiers.length);
  assert.ok(saved.size >= 30, `${saved.size} globals taken away`);
});
