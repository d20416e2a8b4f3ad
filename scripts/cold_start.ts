/**
 * Measures what importing the package adds to an empty Node or Deno start,
 * beside `@supabase/supabase-js`, side by side (median of N runs each,
 * interleaved). Node imports the npm build (built into a temp dir first).
 *
 * Run: deno task coldstart [runs=15]
 */

const root = new URL("..", import.meta.url).pathname;
const runs = Number(Deno.args[0] ?? 15);
const tmp = await Deno.makeTempDir({ dir: root, prefix: ".cold-" });

const build = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", `${root}scripts/build_npm.ts`, `${tmp}/pkg`],
}).output();
if (build.code !== 0) throw new Error("npm build failed");

const files: Record<string, string> = {
  "empty.mjs": "",
  "fetchbase.mjs": `await import(${JSON.stringify(`${tmp}/pkg/esm/mod.js`)});`,
  "supabase.mjs": `await import("@supabase/supabase-js");`,
  "empty.ts": "",
  "fetchbase.ts": `await import(${JSON.stringify(`${root}mod.ts`)});`,
  "supabase.ts": `await import("@supabase/supabase-js");`,
};
for (const [name, code] of Object.entries(files)) await Deno.writeTextFile(`${tmp}/${name}`, code);

async function time(cmd: string, args: string[]): Promise<number> {
  const start = performance.now();
  const out = await new Deno.Command(cmd, { args, cwd: root, stdout: "null", stderr: "piped" })
    .output();
  if (out.code !== 0) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return performance.now() - start;
}

const cases: Record<string, [string, string[]]> = {
  "node empty": ["node", [`${tmp}/empty.mjs`]],
  "node fetchbase": ["node", [`${tmp}/fetchbase.mjs`]],
  "node supabase-js": ["node", [`${tmp}/supabase.mjs`]],
  "deno empty": [Deno.execPath(), ["run", "-A", "--no-check", `${tmp}/empty.ts`]],
  "deno fetchbase": [Deno.execPath(), ["run", "-A", "--no-check", `${tmp}/fetchbase.ts`]],
  "deno supabase-js": [Deno.execPath(), ["run", "-A", "--no-check", `${tmp}/supabase.ts`]],
};
const samples: Record<string, number[]> = Object.fromEntries(
  Object.keys(cases).map((k) => [k, []]),
);
for (const [cmd, args] of Object.values(cases)) await time(cmd, args); // warm caches
for (let i = 0; i < runs; i++) {
  for (const [name, [cmd, args]] of Object.entries(cases)) {
    samples[name].push(await time(cmd, args));
  }
}
await Deno.remove(tmp, { recursive: true });
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
const row = (rt: string) => {
  const base = m[`${rt} empty`];
  const fb = m[`${rt} fetchbase`] - base;
  const sb = m[`${rt} supabase-js`] - base;
  return `| ${rt} | ${base.toFixed(0)} ms | +${fb.toFixed(0)} ms | +${sb.toFixed(0)} ms | ${
    (fb / sb).toFixed(2)
  } | ${fb <= sb / 4 ? "met" : "not met"} |`;
};
const table = [
  `## Cold start (median of ${runs} runs each, interleaved)`,
  "",
  "| Runtime | Empty start | + fetchbase | + @supabase/supabase-js | Ratio | Target (<= 1/4) |",
  "| --- | --- | --- | --- | --- | --- |",
  row("node"),
  row("deno"),
  "",
].join("\n");
console.log(table);
await Deno.writeTextFile(`${root}bench/results/cold_start.md`, table);
