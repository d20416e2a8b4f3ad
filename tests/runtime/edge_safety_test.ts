/**
 * Edge-safe by construction: a Worker that imports every subpath runs in
 * miniflare (workerd forbids timers and random values at global scope), and
 * instrumentation installed first records any timer, random draw or new
 * global while the modules load.
 */
import assert from "node:assert/strict";

import { spawnUntil } from "./support.ts";

const root = new URL("../../", import.meta.url).pathname;

Deno.test("importing every subpath under workerd runs no timer, draws no random value and adds no global", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "fetchbase-edge-safety-" });
  try {
    const bundle = await new Deno.Command(`${root}node_modules/.bin/esbuild`, {
      args: [
        `${root}tests/runtime/workers/import_entry.ts`,
        "--bundle",
        "--format=esm",
        "--platform=browser",
        `--outfile=${tmp}/w.js`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(bundle.code, 0, new TextDecoder().decode(bundle.stderr));
    const worker = await spawnUntil(
      "node",
      [
        `${root}tests/runtime/workers/run_miniflare.mjs`,
        `${tmp}/w.js`,
        "http://127.0.0.1:9",
        "unused-key",
      ],
      "READY",
      { env: { TMPDIR: tmp } }, // miniflare's own temp dir goes inside ours
    );
    try {
      const base = /READY (\S+)/.exec(worker.output)?.[1];
      assert.ok(base, `the bundle did not start in workerd: ${worker.output}`);
      const report = await fetch(base).then((r) => r.json()) as {
        calls: string[];
        added: string[];
        exports: Record<string, number>;
      };
      assert.deepEqual(report.calls, [], "no timer or random value during import");
      assert.deepEqual(report.added, [], "no global added during import");
      for (const [name, count] of Object.entries(report.exports)) {
        assert.ok(count > 5, `${name} exports ${count} names`);
      }
    } finally {
      await worker.stop();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
