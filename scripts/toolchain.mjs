// Runs after `npm install` (the root package's postinstall). Deno comes from the npm package
// `deno`, whose bin link `node_modules/.bin/deno` points at the native binary; `deno task`
// mistakes that link for a JavaScript bin and fails. So the link is moved to `.tools/bin/deno`,
// which the package.json scripts and .ci/run put on PATH.
import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
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
