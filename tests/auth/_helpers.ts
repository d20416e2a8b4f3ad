import { createBaseClient } from "../../core/client.ts";
import { type AuthClient, createAuthClient } from "../../auth/mod.ts";
import {
  jsonResponse,
  type Recorder,
  recordingFetch,
  type Responder,
} from "../support/recording_fetch.ts";

export const BASE = "https://project.example.com";
export const KEY = "anon-key-0123456789";
export const TOKEN = "user-access-token-xyz";

export const SESSION = {
  access_token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.sig",
  refresh_token: "refresh-abc",
  expires_in: 3600,
  expires_at: 1_900_000_000,
  token_type: "bearer",
  user: { id: "u1", email: "ada@example.com", factors: [], identities: [] },
};

export function makeAuth(
  script?: Responder | Array<Response | Responder>,
): { auth: AuthClient; rec: Recorder } {
  const rec = recordingFetch(script ?? (() => jsonResponse(SESSION)));
  return { auth: createAuthClient(createBaseClient(BASE, KEY, { fetch: rec.fetch })), rec };
}
