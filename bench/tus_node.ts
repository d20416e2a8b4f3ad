/**
 * Resumable-upload throughput and memory on Node: fetchbase (npm build) vs a
 * hand-written TUS loop over fetch and one over node:http, each upload in
 * its own Node process against the same @tus/server process, for 256 MiB
 * and 1 GiB generated streams, and fetchbase from a file-backed Blob of the
 * same sizes. Writes bench/results/tus_node.md.
 *
 * Fairness: one untimed warm-up upload per mode first (the server process
 * is cold at the start and slowed whichever upload came first), then the
 * order of the modes rotates every round.
 *
 * Run: deno run --allow-all bench/tus_node.ts [rounds=3]
 */

const root = new URL("..", import.meta.url).pathname;
const rounds = Number(Deno.args[0] ?? 3);
const tmp = await Deno.makeTempDir({ prefix: "fetchbase-tus-node-" });
const build = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", `${root}scripts/build_npm.ts`, `${tmp}/pkg`],
}).output();
if (build.code !== 0) throw new Error("npm build failed");
await Deno.mkdir(`${tmp}/files`);
const server = new Deno.Command("node", {
  args: [`${root}bench/node/tus_server.mjs`, `${tmp}/files`],
  cwd: root,
  stdin: "piped",
  stdout: "piped",
})
  .spawn();
const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
let seen = "";
while (!seen.includes("READY")) seen += (await reader.read()).value ?? "";
reader.releaseLock();
const base = `http://127.0.0.1:${/READY (\d+)/.exec(seen)![1]}`;

type Result = { mode: string; mib: number; mibps: number; peakAboveBaselineMiB: number };
async function one(mode: string, mib: number): Promise<Result> {
  const out = await new Deno.Command("node", {
    args: [
      "--expose-gc",
      `${root}bench/node/tus_upload.mjs`,
      mode,
      String(mib),
      base,
      `${tmp}/pkg`,
    ],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(new TextDecoder().decode(out.stderr));
  for (const f of Deno.readDirSync(`${tmp}/files`)) Deno.removeSync(`${tmp}/files/${f.name}`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

const modes = ["fetchbase", "fetchbase-blob", "fetchloop", "httploop"];
const results: Record<string, Result[]> = {};
for (const mode of modes) await one(mode, 64);
for (const mib of [256, 1024]) {
  for (let i = 0; i < rounds; i++) {
    const order = modes.map((_, k) => modes[(k + i) % modes.length]);
    for (const mode of order) (results[`${mode}@${mib}`] ??= []).push(await one(mode, mib));
  }
}
await server.stdin.close();
await server.status;
await server.stdout.cancel().catch(() => {});
await Deno.remove(tmp, { recursive: true });

const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stat = (mode: string, mib: number) => {
  const rs = results[`${mode}@${mib}`];
  return { mibps: med(rs.map((r) => r.mibps)), mem: med(rs.map((r) => r.peakAboveBaselineMiB)) };
};
const lines = [
  `## Resumable uploads on Node ${
    Deno.env.get("NODE_VERSION") ?? ""
  }(npm build; each upload in its own process; median of ${rounds})`,
  "",
  "| Size | fetchbase | fetch loop | node:http loop | fetchbase / fetch loop | fetch loop / node:http | Peak RSS above idle: fetchbase, fetch loop, node:http |",
  "| --- | --- | --- | --- | --- | --- | --- |",
];
for (const mib of [256, 1024]) {
  const f = stat("fetchbase", mib), l = stat("fetchloop", mib), h = stat("httploop", mib);
  lines.push(
    `| ${mib} MiB | ${f.mibps.toFixed(0)} MiB/s | ${l.mibps.toFixed(0)} MiB/s | ${
      h.mibps.toFixed(0)
    } MiB/s | ${(f.mibps / l.mibps).toFixed(2)}x | ${(l.mibps / h.mibps).toFixed(2)}x | ${
      f.mem.toFixed(0)
    }, ${l.mem.toFixed(0)}, ${h.mem.toFixed(0)} MiB |`,
  );
}
const f256 = stat("fetchbase", 256).mem,
  f1g = stat("fetchbase", 1024).mem,
  l1g = stat("fetchloop", 1024).mem;
lines.push(
  "",
  `Memory: fetchbase 1 GiB vs 256 MiB differ by ${
    (f1g - f256).toFixed(0)
  } MiB (one chunk is 6 MiB); fetchbase vs the fetch loop at 1 GiB: ${(f1g - l1g).toFixed(0)} MiB.`,
  "",
  // Peak RSS depends on when V8 collects each chunk's garbage: show the spread the medians hide.
  `Per round, fetchbase peak RSS above idle: 256 MiB ${
    results["fetchbase@256"].map((r) => r.peakAboveBaselineMiB.toFixed(0)).join(", ")
  }; 1 GiB ${
    results["fetchbase@1024"].map((r) => r.peakAboveBaselineMiB.toFixed(0)).join(", ")
  } MiB.`,
  "",
  `From a file-backed Blob (\`fs.openAsBlob\`, made before the baseline): 256 MiB ${
    stat("fetchbase-blob", 256).mibps.toFixed(0)
  } MiB/s, peak RSS above idle ${stat("fetchbase-blob", 256).mem.toFixed(0)} MiB; 1 GiB ${
    stat("fetchbase-blob", 1024).mibps.toFixed(0)
  } MiB/s, ${stat("fetchbase-blob", 1024).mem.toFixed(0)} MiB (per round: ${
    results["fetchbase-blob@256"].map((r) => r.peakAboveBaselineMiB.toFixed(0)).join(", ")
  }; ${results["fetchbase-blob@1024"].map((r) => r.peakAboveBaselineMiB.toFixed(0)).join(", ")}).`,
  "",
);
// The same round's uploads run back to back: their ratio shows the spread that medians hide.
for (const mib of [256, 1024]) {
  const f = results[`fetchbase@${mib}`], l = results[`fetchloop@${mib}`];
  lines.push(
    `Per round, ${mib} MiB: fetchbase / fetch loop ${
      f.map((r, i) => (r.mibps / l[i].mibps).toFixed(2)).join(", ")
    }; fetchbase ${f.map((r) => r.mibps.toFixed(0)).join(", ")} MiB/s.`,
    "",
  );
}
const table = lines.join("\n");
console.log(table);
await Deno.writeTextFile(`${root}bench/results/tus_node.md`, table);
