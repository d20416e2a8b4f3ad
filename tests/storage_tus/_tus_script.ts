/**
 * A scripted TUS server for the resumable-upload tests: POST creates (taking
 * an `application/offset+octet-stream` body, as creation-with-upload), PATCH
 * advances, HEAD reports the offset and any declared length. Hooks answer a
 * request instead, for faults.
 */
import type { RecordedRequest } from "../support/recording_fetch.ts";

export const BASE = "https://project.example.com";
export const KEY = "anon-key-0123456789";
/** Where the script's uploads live. */
export const LOCATION = `${BASE}/storage/v1/upload/resumable/id1`;

/** The scripted server's state, for faults that accept part of a chunk. */
export interface ScriptState {
  offset: number;
  /** The declared Upload-Length, if any. */
  length: string | null;
}

/** A hook that may answer a request instead of the script (null: the script answers). */
export type Inject = (req: RecordedRequest, n: number, state: ScriptState) => Response | null;

/** Options of {@linkcode tusScript}. */
export interface TusScriptOptions {
  location?: string | undefined;
  /** Answer 201 without Upload-Offset, as a server without creation-with-upload. */
  ignorePostBody?: boolean | undefined;
  /** Any request, numbered from 0 across methods. */
  onAny?: Inject | undefined;
  /** POSTs, numbered from 1. */
  onPost?: Inject | undefined;
  /** PATCHes, numbered from 1. */
  onPatch?: Inject | undefined;
}

/** The script, as a responder for `recordingFetch`. */
export function tusScript(
  opts: TusScriptOptions = {},
): (req: RecordedRequest, index?: number) => Response {
  const state: ScriptState = { offset: 0, length: null };
  let posts = 0;
  let patches = 0;
  return (req, index = 0) => {
    const any = opts.onAny?.(req, index, state);
    if (any) return any;
    if (req.method === "POST") {
      posts++;
      const injected = opts.onPost?.(req, posts, state);
      if (injected) return injected;
      state.offset = 0;
      state.length = req.headers.get("upload-length");
      const headers: Record<string, string> = { location: opts.location ?? LOCATION };
      const withBody = req.headers.get("content-type") === "application/offset+octet-stream";
      if (withBody && !opts.ignorePostBody) {
        state.offset = req.bytes?.length ?? 0;
        headers["upload-offset"] = String(state.offset);
      }
      return new Response(null, { status: 201, headers });
    }
    if (req.method === "HEAD") {
      const headers: Record<string, string> = { "upload-offset": String(state.offset) };
      if (state.length !== null) headers["upload-length"] = state.length;
      return new Response(null, { status: 200, headers });
    }
    patches++;
    const injected = opts.onPatch?.(req, patches, state);
    if (injected) return injected;
    state.length = req.headers.get("upload-length") ?? state.length;
    state.offset += req.bytes?.length ?? 0;
    return new Response(null, { status: 204, headers: { "upload-offset": String(state.offset) } });
  };
}

/**
 * The URL store key `UploadUrlStore` documents, computed independently: the client's URL, the
 * bucket and path, the size (`stream` while unknown) and a base64url SHA-256: for bytes, of the
 * SHA-256s of every 1 MiB piece; for a stream, of its first chunk (given as `data`).
 */
export async function fingerprintOf(
  clientUrl: string,
  bucket: string,
  path: string,
  data: Uint8Array,
  size: number | "stream" = data.length,
): Promise<string> {
  const sha = async (b: Uint8Array) =>
    new Uint8Array(await crypto.subtle.digest("SHA-256", b.slice() as Uint8Array<ArrayBuffer>));
  let digest: Uint8Array;
  if (size === "stream") {
    digest = await sha(data); // a stream's first chunk
  } else {
    // Bytes: the digest of the digests of every 1 MiB piece.
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < data.length; at += 1_048_576) {
      pieces.push(await sha(data.subarray(at, at + 1_048_576)));
    }
    const all = new Uint8Array(pieces.length * 32);
    pieces.forEach((p, i) => all.set(p, i * 32));
    digest = await sha(all);
  }
  const b64 = btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
  return `${clientUrl}|${bucket}/${path}|${size}|${b64}`;
}
