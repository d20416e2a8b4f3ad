/**
 * Browser: Debian's Chromium, headless, loads the page of `browser/_harness.ts` (PKCE
 * generation, local ES256 verification, a fetch to the local server, resumable (TUS) uploads of
 * bytes, a Blob and a stream in several chunks, downloaded and compared). Skipped only when
 * Chromium is not installed (.ci/run installs it).
 */
import assert from "node:assert/strict";
import { installed, runPage } from "./browser/_harness.ts";

const chromium = installed(["/usr/bin/chromium", "/usr/bin/chromium-browser"]);

Deno.test({
  name:
    "a headless Chromium page generates PKCE, verifies an ES256 token locally, fetches and uploads resumably",
  ignore: chromium === undefined,
  async fn() {
    await runPage({
      name: "chromium",
      launch: (page, tmp) =>
        Promise.resolve([
          new Deno.Command(chromium!, {
            args: [
              "--headless",
              "--no-sandbox",
              "--disable-gpu",
              "--disable-quic",
              "--no-first-run",
              "--disable-background-networking",
              "--disable-component-update",
              "--disable-sync",
              "--disable-dev-shm-usage",
              `--user-data-dir=${tmp}/profile`,
              "--remote-debugging-port=0",
              page,
            ],
            // Chromium's own temp files go inside ours.
            env: { TMPDIR: tmp },
            stdout: "null",
            stderr: "null",
          }).spawn(),
        ]),
      async check({ report, stored }) {
        // Chromium sends a ReadableStream body only over HTTP/2; over this HTTP/1.1 server its
        // fetch rejects ("Failed to fetch"), a NETWORK failure with nothing stored.
        assert.match(report.probes!.plainStream, /^NETWORK: /);
        assert.equal(report.probes!.frameStream, report.probes!.plainStream);
        assert.match(report.probes!.streamChunks, /^NETWORK: /);
        for (const path of ["plain/stream.bin", "plain/frame-stream.bin", "tus/streamChunks.bin"]) {
          const object = await stored(path);
          assert.equal(object.status, 404, `${path}: ${await object.text()}`);
        }
      },
    });
  },
});
