/**
 * Edge-safe by construction: a Worker that imports every subpath of
 * `deno.json`'s exports runs in miniflare (workerd forbids timers and random
 * values at global scope), and instrumentation installed first records any
 * timer, random draw, key operation, network call or environment read while
 * the modules load or in a task they leave behind, and any global or
 * built-in prototype they add, remove or replace.
 */
import assert from "node:assert/strict";

import { startWorker } from "./support.ts";

const root = new URL("../../", import.meta.url).pathname;

/** A Worker importing every subpath (after the instrumentation) and reporting what it saw. */
async function entryFor(tmp: string): Promise<string> {
  const exports = JSON.parse(await Deno.readTextFile(`${root}deno.json`)).exports as Record<
    string,
    string
  >;
  const subpaths = Object.entries(exports);
  const lines = [
    `import { builtins, globalsBefore, keysOf } from "${root}tests/runtime/workers/instrument.ts";`,
    ...subpaths.map(([, file], i) =>
      `import * as m${i} from "${root}${file.replace(/^\.\//, "")}";`
    ),
    `const loaded = { ${
      subpaths.map(([name], i) => `${JSON.stringify(name)}: m${i}`).join(", ")
    } };`,
    `export default {
  fetch() {
    const g = globalThis;
    const now = new Map(Reflect.ownKeys(g).map((k) => [String(k), g[k]]));
    const changed = [];
    for (const [k, v] of now) {
      if (k === "__importCalls") continue;
      if (!globalsBefore.has(k)) changed.push("added " + k);
      else if (!Object.is(globalsBefore.get(k), v)) changed.push("replaced " + k);
    }
    for (const k of globalsBefore.keys()) if (!now.has(k)) changed.push("removed " + k);
    for (const [name, b] of Object.entries(builtins)) {
      if (keysOf(b.value).join() !== b.keys.join()) changed.push(name + " statics");
      if (b.value.prototype && keysOf(b.value.prototype).join() !== b.proto.join()) {
        changed.push(name + ".prototype");
      }
    }
    return Response.json({
      calls: g.__importCalls,
      changed,
      exports: Object.fromEntries(Object.entries(loaded).map(([k, m]) => [k, Object.keys(m).length])),
    });
  },
};`,
  ];
  const file = `${tmp}/entry.js`;
  await Deno.writeTextFile(file, lines.join("\n"));
  return file;
}

/** Imports every subpath in a Worker at `compatibility` (the runner's date when undefined). */
async function importsCleanly(compatibility: string | undefined): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "fetchbase-edge-safety-" });
  try {
    const worker = await startWorker(
      await entryFor(tmp),
      tmp,
      "http://127.0.0.1:9",
      "unused-key",
      compatibility,
    );
    try {
      const base = worker.url;
      const report = await fetch(base).then((r) => r.json()) as {
        calls: string[];
        changed: string[];
        exports: Record<string, number>;
      };
      // Read when the first request comes: a task the import left behind has run by then.
      assert.deepEqual(report.calls, [], "nothing called during or after import");
      assert.deepEqual(report.changed, [], "no global or built-in changed");
      const subpaths = Object.keys(JSON.parse(await Deno.readTextFile(`${root}deno.json`)).exports);
      assert.deepEqual(Object.keys(report.exports), subpaths, "every subpath imported");
      for (const [name, count] of Object.entries(report.exports)) {
        assert.ok(count > 5, `${name} exports ${count} names`);
      }
    } finally {
      await worker.stop();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

Deno.test("importing every subpath under workerd runs no timer, no random draw, no key operation, no fetch, reads no environment and changes no global", async () => {
  await importsCleanly(undefined);
});

Deno.test("the same holds with nodejs_compat, whose process.env is there to read", async () => {
  await importsCleanly("2026-08-01+nodejs_compat");
});
