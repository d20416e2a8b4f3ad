/**
 * Deno runtime, as a JSR user gets it: builds the JSR package, checks that
 * `deno publish --dry-run` takes it, serves it from a local registry (`JSR_URL`;
 * jsr.io is out of reach here) and, in a temporary project with a fresh Deno
 * cache, imports it by its `jsr:` name: a TypeScript consumer type-checks
 * against its declarations, every subpath loads with shared classes, and
 * `deno test` runs the same flows as Node and Bun against the embedded local
 * backend.
 */
import assert from "node:assert/strict";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serveJsrPackage } from "../../scripts/_jsr_registry.ts";
import { serve } from "../support/serve.ts";
import { run } from "./support.ts";

const root = new URL("../../", import.meta.url).pathname;

/** Runs Deno; with `env`, in that environment alone (its own cache and registry). */
const deno = (args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) =>
  run(Deno.execPath(), args, { ...opts, clearEnv: opts.env !== undefined });

Deno.test("JSR package: publishes, installs by name from a registry, type-checks and runs real flows in Deno", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "fetchbase-jsr-" });
  const backend = await createLocalBackend();
  const server = await serve(backend.app.fetch);
  try {
    const build = await deno(["run", "-A", `${root}scripts/build_jsr.ts`, `${tmp}/pkg`]);
    assert.equal(build.code, 0, build.text);
    const source = JSON.parse(await Deno.readTextFile(`${root}deno.json`));
    const manifest = JSON.parse(await Deno.readTextFile(`${tmp}/pkg/deno.json`));
    assert.equal(manifest.name, source.name);
    assert.equal(manifest.version, source.version);
    // The sources' subpaths, each a JavaScript file that names its declarations.
    assert.deepEqual(Object.keys(manifest.exports), Object.keys(source.exports));
    for (const [sub, file] of Object.entries(manifest.exports as Record<string, string>)) {
      assert.equal(file, source.exports[sub].replace(/\.ts$/, ".js"));
      const js = await Deno.readTextFile(`${tmp}/pkg/${file}`);
      const types = /^\/\/ @ts-self-types="(\.\/[^"]+\.d\.ts)"\n/.exec(js)?.[1];
      assert.ok(types, `${file} names no declarations`);
      const dts = await Deno.readTextFile(new URL(types, `file://${tmp}/pkg/${file}`));
      // JSR's documentation of the subpath comes from there: its module docs with an example.
      assert.match(dts, /^\/\*\*\n[^]*?@example[^]*?@module\n \*\/\n/, file);
      // Declarations import declarations: Deno resolves a specifier as written.
      assert.ok(!/from "\.[^"]*(?<!\.d)\.(ts|js)"/.test(dts), dts);
    }

    const publish = await deno(["publish", "--dry-run"], { cwd: `${tmp}/pkg` });
    assert.equal(publish.code, 0, publish.text);
    assert.match(publish.text, /Dry run complete/);
    assert.match(publish.text, /\/_bundle\.js /);

    await using registry = await serveJsrPackage(`${tmp}/pkg`);
    const spec = `jsr:${source.name}@${source.version}`;
    await Deno.mkdir(`${tmp}/app`);
    await Deno.writeTextFile(
      `${tmp}/app/deno.json`,
      JSON.stringify({
        imports: Object.fromEntries(
          Object.keys(source.exports).map((sub) => [
            sub.replace(/^\./, "fetchbase"),
            sub.replace(/^\./, spec),
          ]),
        ),
      }),
    );
    const env = {
      DENO_DIR: `${tmp}/deno_dir`,
      JSR_URL: registry.url,
      NO_COLOR: "1",
      FETCHBASE_URL: server.url,
      FETCHBASE_KEY: backend.apiKey,
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? tmp,
    };

    // A strict TypeScript consumer of every subpath, checked against the package's declarations.
    await Deno.copyFile(`${root}tests/runtime/npm_consumer.mts`, `${tmp}/app/consumer.mts`);
    const check = await deno(["check", "consumer.mts"], { cwd: `${tmp}/app`, env });
    assert.equal(check.code, 0, check.text);
    // The check is real: a wrong argument type fails it.
    await Deno.writeTextFile(
      `${tmp}/app/wrong.ts`,
      `import { createClient } from "fetchbase";\ncreateClient("https://p.example", 42);\n`,
    );
    const wrong = await deno(["check", "wrong.ts"], { cwd: `${tmp}/app`, env });
    assert.notEqual(wrong.code, 0, wrong.text);
    assert.match(wrong.text, /TS2345/);

    // Every subpath loads; a name two subpaths export is one value (one bundle behind them).
    await Deno.writeTextFile(
      `${tmp}/app/shared.ts`,
      `const subs = ${
        JSON.stringify(Object.keys(source.exports).map((s) => s.replace(/^\./, "fetchbase")))
      };
const mods: Record<string, unknown>[] = await Promise.all(subs.map((s) => import(s)));
let compared = 0;
for (const m of mods.slice(1)) for (const [k, v] of Object.entries(m)) {
  if (k in mods[0]) { compared++; if (mods[0][k] !== v) throw new Error("two values for " + k); }
}
if (mods.some((m) => Object.keys(m).length === 0)) throw new Error("an empty subpath");
// A class prints by its name (\`Success { ok: true, … }\`): the bundle keeps every exported one.
for (const m of mods) for (const [k, v] of Object.entries(m)) {
  if (typeof v === "function" && Function.prototype.toString.call(v).startsWith("class ") && v.name !== k) {
    throw new Error("class " + k + " is named " + v.name);
  }
}
console.log("compared " + compared);
`,
    );
    const shared = await deno(["run", "--no-check", "shared.ts"], { cwd: `${tmp}/app`, env });
    assert.equal(shared.code, 0, shared.text);
    assert.ok(Number(/compared (\d+)/.exec(shared.text)?.[1]) >= 100, shared.text);

    await Deno.copyFile(`${root}tests/runtime/package_flow.mjs`, `${tmp}/app/flow.test.mjs`);
    const flows = await deno(["test", "-A", "flow.test.mjs"], { cwd: `${tmp}/app`, env });
    assert.equal(flows.code, 0, flows.text);
    assert.match(flows.text, /ok \| 10 passed \| 0 failed/);

    // What Deno fetched and ran is the built JavaScript and its declarations, never the sources.
    assert.ok(registry.requested.includes("/_bundle.js"), registry.requested.join(" "));
    assert.deepEqual(
      registry.requested.filter((p) => p.startsWith("/src/") || /(?<!\.d)\.ts$/.test(p)),
      [],
    );
  } finally {
    await server.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
