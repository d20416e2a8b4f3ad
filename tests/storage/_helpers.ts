import { createBaseClient } from "../../core/client.ts";
import { createStorageClient, type StorageClient } from "../../storage/mod.ts";
import { type Recorder, recordingFetch, type Responder } from "../support/recording_fetch.ts";

export const BASE = "https://project.example.com";
export const KEY = "anon-key-0123456789";

export function makeStorage(
  script?: Responder | Array<Response | Responder>,
): { storage: StorageClient; rec: Recorder } {
  const rec = recordingFetch(script);
  return { storage: createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch })), rec };
}
