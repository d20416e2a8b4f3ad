/**
 * Browser: Debian's Firefox ESR (Gecko), headless with a fresh profile, loads the page of
 * `browser/_harness.ts` (PKCE generation, local ES256 verification, a fetch to the local server,
 * resumable (TUS) uploads of bytes, a Blob and a stream in several chunks, downloaded and
 * compared), as the Chromium test does. Skipped only when Firefox is not installed (.ci/run
 * installs it).
 */
import assert from "node:assert/strict";
import { installed, runPage } from "./browser/_harness.ts";

const firefox = installed(["/usr/bin/firefox-esr", "/usr/bin/firefox"]);

/**
 * The fresh profile's preferences: no first-run pages, no default-browser check, no telemetry,
 * no update or safe-browsing traffic, nothing fetched for the new-tab page.
 */
const PREFS = {
  "browser.shell.checkDefaultBrowser": false,
  "browser.startup.homepage_override.mstone": "ignore",
  "browser.aboutwelcome.enabled": false,
  "browser.newtabpage.enabled": false,
  "browser.safebrowsing.malware.enabled": false,
  "browser.safebrowsing.phishing.enabled": false,
  "browser.safebrowsing.downloads.enabled": false,
  "datareporting.policy.dataSubmissionEnabled": false,
  "datareporting.healthreport.uploadEnabled": false,
  "toolkit.telemetry.reportingpolicy.firstRun": false,
  "app.update.enabled": false,
  "app.normandy.enabled": false,
  "extensions.update.enabled": false,
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
};

Deno.test({
  name:
    "a headless Firefox page generates PKCE, verifies an ES256 token locally, fetches and uploads resumably",
  ignore: firefox === undefined,
  async fn() {
    await runPage({
      name: "firefox",
      async launch(page, tmp) {
        await Deno.mkdir(`${tmp}/profile`);
        await Deno.writeTextFile(
          `${tmp}/profile/user.js`,
          Object.entries(PREFS).map(([k, v]) => `user_pref("${k}", ${JSON.stringify(v)});\n`).join(
            "",
          ),
        );
        return [new Deno.Command(firefox!, {
          args: ["--headless", "--no-remote", "--profile", `${tmp}/profile`, page],
          // Its home (a Downloads folder) and temp files go inside ours; no crash helper.
          env: { HOME: tmp, TMPDIR: tmp, MOZ_CRASHREPORTER_DISABLE: "1" },
          stdout: "null",
          stderr: "null",
        }).spawn()];
      },
      async check({ report, stored }) {
        assert.match(report.userAgent, /Firefox\/\d+/);
        // Firefox sends no ReadableStream request body (it would send the text
        // "[object ReadableStream]"): a plain upload of a stream is refused before any request,
        // and `streamChunks: true` throws at creation. A resumable upload of a stream (above)
        // sends its chunks as bytes.
        const text = `this runtime, which sends a ReadableStream request body as the text ` +
          `"[object ReadableStream]" (Firefox; a resumable upload reads a stream in chunks)`;
        assert.equal(
          report.probes!.plainStream,
          `INVALID_ARGUMENT: Cannot upload as 'data' must be bytes, a Blob or a string in ${text}: current value is a ReadableStream`,
        );
        // An iframe's stream too (before realms were told apart, it was refused as "an object":
        // no `instanceof` the page's ReadableStream).
        assert.equal(report.probes!.frameStream, report.probes!.plainStream);
        assert.equal(
          report.probes!.streamChunks,
          `threw TypeError: Cannot upload with 'streamChunks' as this runtime sends a ReadableStream request body as the text "[object ReadableStream]" (Firefox)`,
        );
        for (const path of ["plain/stream.bin", "plain/frame-stream.bin", "tus/streamChunks.bin"]) {
          const object = await stored(path);
          assert.equal(object.status, 404, `${path}: ${await object.text()}`);
        }
      },
    });
  },
});
