/**
 * Browser: Debian's WebKitGTK MiniBrowser (WebKit with JavaScriptCore, Safari's engine) on a
 * virtual display (Xvfb), with a fresh home, loads the page of `browser/_harness.ts` (PKCE
 * generation, local ES256 verification, a fetch to the local server, resumable (TUS) uploads of
 * bytes, a Blob and a stream in several chunks, downloaded and compared), as the Chromium and
 * Firefox tests do. Skipped only when the MiniBrowser (Debian's libwebkit2gtk-4.1-0) or Xvfb is
 * not installed (.ci/run installs them).
 */
import assert from "node:assert/strict";
import { installed, runPage } from "./browser/_harness.ts";

const miniBrowser = installed([
  `/usr/lib/${Deno.build.arch}-linux-gnu/webkit2gtk-4.1/MiniBrowser`,
  `/usr/lib/${Deno.build.arch}-linux-gnu/webkit2gtk-4.0/MiniBrowser`,
]);
const xvfb = installed(["/usr/bin/Xvfb"]);

Deno.test({
  name:
    "a WebKit page generates PKCE, verifies an ES256 token locally, fetches and uploads resumably",
  ignore: miniBrowser === undefined || xvfb === undefined,
  async fn() {
    await runPage({
      name: "webkit",
      async launch(page, tmp) {
        const env = { HOME: tmp, TMPDIR: tmp, XDG_RUNTIME_DIR: tmp };
        // Xvfb picks a free display and prints its number.
        const display = new Deno.Command(xvfb!, {
          args: ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "1280x800x24"],
          env,
          stdout: "piped",
          stderr: "null",
        }).spawn();
        const reader = display.stdout.pipeThrough(new TextDecoderStream()).getReader();
        let printed = "";
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), 10_000)));
        while (!printed.includes("\n")) {
          const read = await Promise.race([reader.read(), late]);
          if (read === "late" || read.done) break;
          printed += read.value;
        }
        clearTimeout(timer);
        await reader.cancel();
        const number = /^\d+\n/.exec(printed)?.[0].trim();
        if (number === undefined) {
          display.kill("SIGKILL");
          await display.status;
          throw new Error(`Xvfb printed no display number: ${JSON.stringify(printed)}`);
        }
        try {
          const browser = new Deno.Command(miniBrowser!, {
            args: [page],
            env: { ...env, DISPLAY: `:${number}` },
            stdout: "null",
            stderr: "null",
          }).spawn();
          return [browser, display];
        } catch (error) {
          display.kill("SIGKILL");
          await display.status;
          throw error;
        }
      },
      async check({ report, stored }) {
        assert.match(report.userAgent, /AppleWebKit\/[\d.]+ .*Safari/);
        // WebKit's Request takes a ReadableStream body but its fetch refuses to send it: a plain
        // upload of a stream and `streamChunks: true` fail at their first request, NETWORK, with
        // nothing stored. A resumable upload of a stream (above) sends its chunks as bytes.
        const refused = "NETWORK: Network error: ReadableStream uploading is not supported";
        assert.deepEqual(report.probes, {
          plainStream: refused,
          frameStream: refused,
          streamChunks: refused,
        });
        for (const path of ["plain/stream.bin", "plain/frame-stream.bin", "tus/streamChunks.bin"]) {
          const object = await stored(path);
          assert.equal(object.status, 404, `${path}: ${await object.text()}`);
        }
      },
    });
  },
});
