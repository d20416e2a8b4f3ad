// A runtime without `navigator` is not taken for Node when its `Request` refuses
// `redirect: "error"`: a Worker whose compatibility date is before 2022-03-21 (or that sets
// `no_global_navigator`) has no `navigator`, and workerd refuses that mode outright, so every
// resumable upload request failed there. tests/runtime/workers_tus_test.ts runs that case in
// workerd.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload } from "../../storage/mod.ts";
import { recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, tusScript } from "./_tus_script.ts";

/** Runs `fn` with no `navigator`, and with a `Request` refusing `redirect: "error"` if `edge`. */
async function withoutNavigator<T>(edge: boolean, fn: () => Promise<T>): Promise<T> {
  const nav = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  const request = Object.getOwnPropertyDescriptor(globalThis, "Request")!;
  Object.defineProperty(globalThis, "navigator", { value: undefined, configurable: true });
  if (edge) {
    const Base = globalThis.Request;
    // As workerd's own: "Invalid redirect value, must be one of "follow" or "manual" ...".
    class EdgeRequest extends Base {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        if (init?.redirect === "error") throw new TypeError("Invalid redirect value");
        super(input, init);
      }
    }
    Object.defineProperty(globalThis, "Request", { value: EdgeRequest, configurable: true });
  }
  try {
    return await fn();
  } finally {
    if (nav) Object.defineProperty(globalThis, "navigator", nav);
    else delete (globalThis as { navigator?: unknown }).navigator;
    Object.defineProperty(globalThis, "Request", request);
  }
}

/** Uploads 10 bytes in chunks of 4; the redirect modes its requests carried, and the result. */
function upload(edge: boolean) {
  return withoutNavigator(edge, async () => {
    const rec = recordingFetch(tusScript());
    const modes: unknown[] = [];
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      modes.push(init?.redirect);
      // As workerd's fetch: the mode is refused before anything is sent.
      if (edge && init?.redirect === "error") {
        return Promise.reject(new TypeError("Invalid redirect value"));
      }
      return rec.fetch(input, init);
    };
    const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 } });
    const up = createResumableUpload(client, "b", "p", new Uint8Array(10), {
      chunkSize: 4,
      maxAttempts: 1,
    });
    return { result: await up.await(), modes, bodies: rec.requests.map((r) => r.bytes?.length) };
  });
}

Deno.test("without navigator, a runtime whose Request refuses redirect 'error' (workerd) uploads with 'manual'", async () => {
  const { result, modes, bodies } = await upload(true);
  assert.equal(result.ok, true, result.ok ? "" : result.error.message);
  assert.deepEqual(modes, ["manual", "manual", "manual"]);
  assert.deepEqual(bodies, [4, 4, 2]);
});

Deno.test("without navigator and with a Request taking redirect 'error' (Node before 21), uploads keep 'error'", async () => {
  const { result, modes } = await upload(false);
  assert.equal(result.ok, true);
  assert.deepEqual(modes, ["error", "error", "error"]);
});
