/**
 * Measures what importing the package adds to an empty Node or Deno start,
 * beside `@supabase/supabase-js`, side by side (median of N runs each,
 * interleaved). Node imports the npm build (built into a temp dir first and
 * linked as `node_modules/fetchbase`).
 * Deno imports the JSR package by its `jsr:` name, served by a local registry
 * (`scripts/_jsr_registry.ts`; jsr.io is out of reach here) into a Deno cache
 * of its own; two more rows show Deno importing the npm build's JavaScript by
 * path (what `npm:fetchbase` loads, without Deno's npm resolution, which an
 * installed package adds once per process) and the TypeScript sources by path
 * (what a package publishing its sources would cost: a cached transpile per
 * module).
 *
 * Two views of the same cost: the wall-clock difference between whole
 * processes that only import the package, by its name, as an app does (the
 * target's definition, but an empty Node start varies by ±10 ms here, so its
 * ratio is noisy), and the time the `import()` itself takes inside each
 * process (timed with `performance.now()` in separate runs, far steadier).
 *
 * The table goes to bench/results/cold_start.md and into the cold-start
 * section of bench/README.md.
 *
 * Run: deno task coldstart [runs=21]
 */

import { serveJsrPackage } from "./_jsr_registry.ts";
import { replaceSection } from "./_readme_section.ts";

const root = new URL("..", import.meta.url).pathname;
const runs = Number(Deno.args[0] ?? 21);
const tmp = await Deno.makeTempDir({ dir: root, prefix: ".cold-" });

const build = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", `${root}scripts/build_npm.ts`, `${tmp}/pkg`],
}).output();
if (build.code !== 0) throw new Error("npm build failed");
const jsrBuild = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", `${root}scripts/build_jsr.ts`, `${tmp}/jsr`],
}).output();
if (jsrBuild.code !== 0) throw new Error("JSR build failed");
const registry = await serveJsrPackage(`${tmp}/jsr`);
const jsrName = JSON.parse(await Deno.readTextFile(`${tmp}/jsr/deno.json`)).name;

// Each case runs two files: one that only imports the package (`import "…"`, as an app does), whose
// whole process is timed from outside, and one that times its `import()` inside and prints it.
// They are kept apart because the timing itself costs: a dynamic `import()` and the first
// `console.error` add about 9 ms to a Node start, the same for every package, which would weigh
// on the ratio of the wall-clock differences.
const timed = (specifier: string) =>
  `const t0 = performance.now(); await import(${
    JSON.stringify(specifier)
  }); console.error("IMPORT_MS " + (performance.now() - t0));`;
const plain = (specifier: string) => `import ${JSON.stringify(specifier)};\n`;
const files: Record<string, string> = {
  "empty.mjs": "",
  "fetchbase.mjs": plain("fetchbase"),
  "fetchbase_timed.mjs": timed("fetchbase"),
  "supabase.mjs": plain("@supabase/supabase-js"),
  "supabase_timed.mjs": timed("@supabase/supabase-js"),
  "empty.ts": "",
  "supabase.ts": plain("@supabase/supabase-js"),
  "supabase_timed.ts": timed("@supabase/supabase-js"),
  "fetchbase_npm.ts": plain(`${tmp}/pkg/esm/mod.js`),
  "fetchbase_npm_timed.ts": timed(`${tmp}/pkg/esm/mod.js`),
  "fetchbase.ts": plain(`${root}mod.ts`),
  "fetchbase_timed.ts": timed(`${root}mod.ts`),
};
for (const [name, code] of Object.entries(files)) await Deno.writeTextFile(`${tmp}/${name}`, code);
// Node imports the npm build by its name, as an installed package (its `exports` map read), like
// `@supabase/supabase-js`.
await Deno.mkdir(`${tmp}/node_modules`);
await Deno.symlink(`${tmp}/pkg`, `${tmp}/node_modules/fetchbase`);
// The JSR import runs outside this repository, under a configuration of its own: inside it, Deno
// would take `jsr:@fetchbase/fetchbase` for the workspace's own package, the sources.
const jsrApp = await Deno.makeTempDir({ prefix: "fetchbase-cold-jsr-" });
await Deno.writeTextFile(`${jsrApp}/deno.json`, "{}\n");
await Deno.writeTextFile(`${jsrApp}/fetchbase_jsr.ts`, plain(`jsr:${jsrName}`));
await Deno.writeTextFile(`${jsrApp}/fetchbase_jsr_timed.ts`, timed(`jsr:${jsrName}`));

const inProcess: Record<string, number[]> = {};
async function time(
  name: string,
  cmd: string,
  args: string[],
  env?: Record<string, string>,
): Promise<number> {
  const start = performance.now();
  const out = await new Deno.Command(cmd, {
    args,
    env: env ?? {},
    cwd: root,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  const elapsed = performance.now() - start;
  const stderr = new TextDecoder().decode(out.stderr);
  if (out.code !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${stderr}`);
  const ms = /IMPORT_MS (\S+)/.exec(stderr)?.[1];
  if (ms !== undefined) (inProcess[name] ??= []).push(Number(ms));
  return elapsed;
}

// Every Deno case runs with one Deno cache of its own (warmed, like every case, by a first run),
// which the local registry's package goes to; no lock file records that package.
const denoEnv = { JSR_URL: registry.url, DENO_DIR: `${tmp}/deno_dir` };
const denoRun = ["run", "-A", "--no-check"];
const jsrRun = [...denoRun, "--no-lock", `--config=${jsrApp}/deno.json`];
// Each case: the command, the arguments of its plain run and of its timed run (none for an empty
// start), and its environment.
const cases: Record<string, [string, string[], string[] | null, Record<string, string>?]> = {
  "node empty": ["node", [`${tmp}/empty.mjs`], null],
  "node fetchbase": ["node", [`${tmp}/fetchbase.mjs`], [`${tmp}/fetchbase_timed.mjs`]],
  "node supabase-js": ["node", [`${tmp}/supabase.mjs`], [`${tmp}/supabase_timed.mjs`]],
  "deno empty": [Deno.execPath(), [...denoRun, `${tmp}/empty.ts`], null, denoEnv],
  "deno fetchbase": [
    Deno.execPath(),
    [...jsrRun, `${jsrApp}/fetchbase_jsr.ts`],
    [...jsrRun, `${jsrApp}/fetchbase_jsr_timed.ts`],
    denoEnv,
  ],
  "deno supabase-js": [
    Deno.execPath(),
    [...denoRun, `${tmp}/supabase.ts`],
    [...denoRun, `${tmp}/supabase_timed.ts`],
    denoEnv,
  ],
  "deno (npm build) fetchbase": [
    Deno.execPath(),
    [...denoRun, `${tmp}/fetchbase_npm.ts`],
    [...denoRun, `${tmp}/fetchbase_npm_timed.ts`],
    denoEnv,
  ],
  "deno (TypeScript sources) fetchbase": [
    Deno.execPath(),
    [...denoRun, `${tmp}/fetchbase.ts`],
    [...denoRun, `${tmp}/fetchbase_timed.ts`],
    denoEnv,
  ],
};
const samples: Record<string, number[]> = Object.fromEntries(
  Object.keys(cases).map((k) => [k, []]),
);
// A first round warms the caches.
for (const [name, [cmd, args, timedArgs, env]] of Object.entries(cases)) {
  await time(name, cmd, args, env);
  if (timedArgs) await time(name, cmd, timedArgs, env);
}
for (const name of Object.keys(inProcess)) inProcess[name] = [];
for (let i = 0; i < runs; i++) {
  for (const [name, [cmd, args, timedArgs, env]] of Object.entries(cases)) {
    samples[name].push(await time(name, cmd, args, env));
    if (timedArgs) await time(name, cmd, timedArgs, env);
  }
}
await registry.close();
await Deno.remove(tmp, { recursive: true });
await Deno.remove(jsrApp, { recursive: true });
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
// A cost at or below zero is noise (the empty start varied more than the import cost): its ratio
// says nothing, and is not reported as met.
const verdict = (fb: number, sb: number) =>
  `${(fb / sb).toFixed(2)} (${fb <= 0 || sb <= 0 ? "noise" : fb / sb <= 0.25 ? "met" : "not met"})`;
const added = (ms: number) => `${ms < 0 ? "-" : "+"}${Math.abs(ms).toFixed(0)} ms`;
// The last rows: Deno importing the npm build's JavaScript or the TypeScript sources by path.
const row = (rt: string, against = rt) => {
  const base = m[`${against} empty`];
  // What each import adds is the median of its differences with the empty start of the same
  // round: the machine's drift between rounds cancels out of each difference.
  const paired = (name: string) =>
    median(samples[name].map((ms, i) => ms - samples[`${against} empty`][i]));
  const fb = paired(`${rt} fetchbase`);
  const sb = paired(`${against} supabase-js`);
  const fbIn = median(inProcess[`${rt} fetchbase`]);
  const sbIn = median(inProcess[`${against} supabase-js`]);
  return `| ${rt} | ${base.toFixed(0)} ms | ${added(fb)} | ${added(sb)} | ${verdict(fb, sb)} | ${
    fbIn.toFixed(1)
  } ms | ${sbIn.toFixed(1)} ms | ${verdict(fbIn, sbIn)} |`;
};
const table = [
  `## Cold start (median of ${runs} runs each, interleaved)`,
  "",
  "| Runtime | Empty start | + fetchbase | + @supabase/supabase-js | Ratio (target <= 0.25) | import() fetchbase | import() supabase-js | Ratio |",
  "| --- | --- | --- | --- | --- | --- | --- | --- |",
  row("node"),
  row("deno"),
  row("deno (npm build)", "deno"),
  row("deno (TypeScript sources)", "deno"),
  "",
].join("\n");
console.log(table);
await Deno.writeTextFile(`${root}bench/results/cold_start.md`, table);
// The table, without its heading, into bench/README.md.
await replaceSection(
  `${root}bench/README.md`,
  "cold-start",
  table.slice(table.indexOf("| Runtime")),
);
