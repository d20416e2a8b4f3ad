import { PostgrestClient } from "@supabase/postgrest-js";
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import type { ServiceResult } from "../../core/result.ts";
import { createDatabaseClient, type DatabaseClient } from "../../database/mod.ts";
import {
  type RecordedRequest,
  type Recorder,
  recordingFetch,
  type Responder,
} from "../support/recording_fetch.ts";

export const BASE = "https://project.example.com";
export const KEY = "anon-key-0123456789";

export function makeDb(
  script?: Responder | Array<Response | Responder>,
): { db: DatabaseClient; rec: Recorder } {
  const rec = recordingFetch(
    script ?? (() => new Response("[]", { headers: { "content-type": "application/json" } })),
  );
  return { db: createDatabaseClient(createBaseClient(BASE, KEY, { fetch: rec.fetch })), rec };
}

/** Query pairs of a recorded URL, decoded. */
export function pairs(url: URL): Array<[string, string]> {
  return [...url.searchParams.entries()];
}

export function q(url: URL, key: string): string | null {
  return url.searchParams.get(key);
}

/** What a conformance test compares of a PostgREST request (see docs/CONFORMANCE.md). */
export function shape(r: RecordedRequest) {
  // Deliberate (docs/CONFORMANCE.md): fetchbase always states `return=minimal`; postgrest-js leaves it to the server default.
  const prefer = (r.headers.get("prefer") ?? "").split(",").map((s) => s.trim())
    .filter((s) => s !== "" && s !== "return=minimal").sort();
  const query = [...r.url.searchParams.entries()].sort((a, b) =>
    (a[0] + a[1]).localeCompare(b[0] + b[1])
  );
  return {
    method: r.method,
    path: r.url.pathname,
    query,
    accept: r.headers.get("accept"),
    prefer,
    acceptProfile: r.headers.get("accept-profile"),
    contentProfile: r.headers.get("content-profile"),
    contentType: r.text ? r.headers.get("content-type")?.split(";")[0] ?? null : null,
    body: r.text
      ? (() => {
        try {
          return JSON.parse(r.text!);
        } catch {
          return r.text;
        }
      })()
      : null,
    apikey: r.headers.get("apikey"),
    authorization: r.headers.get("authorization"),
  };
}

/**
 * Asserts that an operation resolved `Failure(INVALID_ARGUMENT)` (the
 * document returns malformed requests; only its Limits throw), with a
 * message matching `message` when given.
 */
export async function assertInvalid(
  result: Promise<ServiceResult<unknown>>,
  message?: RegExp,
  label?: string,
): Promise<void> {
  const r = await result;
  assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", label);
  if (message) assert.match(r.errorOrNull()?.message ?? "", message, label);
}

/** A postgrest-js client with the project's key over a recording fetch answered by `answer`. */
export function postgrestJs(answer: Responder): { client: PostgrestClient; rec: Recorder } {
  const rec = recordingFetch(answer);
  const client = new PostgrestClient(`${BASE}/rest/v1`, {
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}` },
    fetch: rec.fetch,
  });
  return { client, rec };
}
