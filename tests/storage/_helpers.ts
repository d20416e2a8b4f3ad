import { StorageAnalyticsClient, StorageClient as TheirStorage } from "@supabase/storage-js";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient, type StorageClient } from "../../storage/mod.ts";
import {
  jsonResponse,
  type RecordedRequest,
  type Recorder,
  recordingFetch,
  type Responder,
} from "../support/recording_fetch.ts";

export const BASE = "https://project.example.com";
export const KEY = "anon-key-0123456789";

export function makeStorage(
  script?: Responder | Array<Response | Responder>,
): { storage: StorageClient; rec: Recorder } {
  const rec = recordingFetch(script);
  return { storage: createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch })), rec };
}

/** What a conformance test compares of a Storage API request. */
export function shape(r: RecordedRequest) {
  let body: unknown = null;
  if (r.text) {
    try {
      body = JSON.parse(r.text);
    } catch {
      body = r.text;
    }
  }
  return {
    method: r.method,
    path: decodeURIComponent(r.url.pathname),
    query: [...r.url.searchParams.entries()].sort(),
    apikey: r.headers.get("apikey"),
    authorization: r.headers.get("authorization"),
    upsert: r.headers.get("x-upsert"),
    cacheControl: r.headers.get("cache-control"),
    metadata: r.headers.get("x-metadata"),
    contentType: r.text ? r.headers.get("content-type")?.split(";")[0] ?? null : null,
    range: r.headers.get("range"),
    body,
  };
}

/**
 * storage-js's analytics client (iceberg-js under `from(bucket)`) and fetchbase's storage client,
 * each over a recording fetch that answers with `answer`.
 */
export function analyticsPair(answer: Responder): {
  them: Recorder;
  theirs: StorageAnalyticsClient;
  storage: StorageClient;
  rec: Recorder;
} {
  const them = recordingFetch(answer);
  const theirs = new StorageAnalyticsClient(`${BASE}/storage/v1/iceberg`, {
    apikey: KEY,
    Authorization: `Bearer ${KEY}`,
  }, them.fetch);
  return { them, theirs, ...makeStorage(answer) };
}

/** An Iceberg schema both catalogs are given. */
export const CATALOG_SCHEMA = {
  type: "struct" as const,
  "schema-id": 0,
  fields: [{ id: 1, name: "id", type: "long", required: true }],
};

/**
 * Answers as an Iceberg REST catalog whose config names the route prefix `lake`; a table is
 * answered with `tableMetadata`.
 */
export function icebergAnswer(tableMetadata: unknown): (r: RecordedRequest) => Response {
  return (r) => {
    const p = r.url.pathname;
    if (p.endsWith("/v1/config")) {
      return jsonResponse({ defaults: {}, overrides: { prefix: "lake" } });
    }
    if (r.method === "DELETE") return new Response(null, { status: 204 });
    if (p.endsWith("/namespaces") && r.method === "GET") return jsonResponse({ namespaces: [] });
    if (p.endsWith("/tables") && r.method === "GET") return jsonResponse({ identifiers: [] });
    if (p.endsWith("/namespaces")) return jsonResponse({ namespace: ["a"], properties: {} });
    if (p.includes("/tables")) {
      return jsonResponse({ "metadata-location": "s3://m", metadata: tableMetadata });
    }
    return jsonResponse({ namespace: ["a"], properties: { k: "v" } });
  };
}

/** A storage-js client with the project's key over a recording fetch answered by `answer`. */
export function storageJs(answer: Responder): { client: TheirStorage; rec: Recorder } {
  const rec = recordingFetch(answer);
  const client = new TheirStorage(`${BASE}/storage/v1`, {
    apikey: KEY,
    Authorization: `Bearer ${KEY}`,
  }, rec.fetch);
  return { client, rec };
}

/** A URL as origin, decoded path and sorted decoded query. */
export function urlShape(u: string): { origin: string; path: string; query: string[][] } {
  const x = new URL(u);
  return {
    origin: x.origin,
    path: decodeURIComponent(x.pathname),
    query: [...x.searchParams.entries()].sort(),
  };
}
