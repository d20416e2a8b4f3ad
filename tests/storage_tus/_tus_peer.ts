/**
 * A real TUS peer for the resumable-upload tests: @tus/server with
 * @tus/file-store on a random loopback port, and the data helpers its tests
 * share.
 */
import { createServer } from "node:http";
import { Server } from "@tus/server";
import { FileStore } from "@tus/file-store";

/** Where the peer serves uploads, as the Storage API does. */
export const TUS_PATH = "/storage/v1/upload/resumable";

/** A running peer. */
export interface TusPeer {
  /** Its origin, `http://127.0.0.1:<port>`. */
  url: string;
  /** The bytes the peer holds for an upload URL. */
  bytesOf(location: string): Promise<Uint8Array>;
  /** The peer's own view of an upload (a HEAD sent around the client under test). */
  head(
    location: string,
  ): Promise<{ offset: string | null; length: string | null; deferred: string | null }>;
  /** Stops it and deletes its files. */
  close(): Promise<void>;
}

/** Hooks of the peer (@tus/server's own options). */
export interface TusPeerOptions {
  /** Runs when an upload has all its bytes (the Storage API creates the object here). */
  onUploadFinish?: ConstructorParameters<typeof Server>[0]["onUploadFinish"] | undefined;
}

/** Starts a peer storing its uploads in a temporary directory. */
export async function tusPeer(options: TusPeerOptions = {}): Promise<TusPeer> {
  const dir = await Deno.makeTempDir();
  const tus = new Server({
    path: TUS_PATH,
    datastore: new FileStore({ directory: dir }),
    ...(options.onUploadFinish ? { onUploadFinish: options.onUploadFinish } : {}),
  });
  const http = createServer((req, res) => tus.handle(req, res));
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  const port = (http.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    bytesOf: (location) => Deno.readFile(`${dir}/${location.split("/").pop()}`),
    async head(location) {
      const r = await fetch(location, { method: "HEAD", headers: { "Tus-Resumable": "1.0.0" } });
      return {
        offset: r.headers.get("upload-offset"),
        length: r.headers.get("upload-length"),
        deferred: r.headers.get("upload-defer-length"),
      };
    },
    async close() {
      await new Promise((r) => http.close(r));
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Runs `fn` with a fresh peer, closed afterwards whatever happens. */
export async function withPeer(
  fn: (peer: TusPeer) => Promise<void>,
  options: TusPeerOptions = {},
): Promise<void> {
  const peer = await tusPeer(options);
  try {
    await fn(peer);
  } finally {
    await peer.close();
  }
}

/** `n` pseudo-random bytes (xorshift): no period, so a chunk sent at the wrong offset shows. */
export function bytes(n: number, seed = 0x9e3779b9): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

/** A (non-byte) stream of `b` in pieces of `piece` bytes. */
export function asStream(b: Uint8Array, piece = 1000): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= b.length) return c.close();
      c.enqueue(b.slice(i, i + piece));
      i += piece;
    },
  });
}
