import { createBaseClient } from "../../core/client.ts";
import { createDatabaseClient, type DatabaseClient } from "../../database/mod.ts";
import { type Recorder, recordingFetch, type Responder } from "../support/recording_fetch.ts";

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
