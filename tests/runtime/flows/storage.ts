/**
 * The storage flow, runtime-neutral (see `helpers.ts`): plain uploads (bytes, a Blob and a string,
 * and whatever else the runtime can upload); downloads as text, bytes and a stream read to its
 * end; ranges (bytes and a stream); a signed URL fetched without credentials; an update then
 * downloads (the new bytes, not an answer read before); info, list and removal. What a runtime
 * sees of the answers' headers (on another origin, a browser only those the service exposes) is
 * for its expectations (`expected.ts`).
 */
import type { StorageClient } from "../../../storage/client.ts";
import { type Json, readAll, said, same } from "./helpers.ts";

/** The bytes uploaded as `files/bytes.bin`, which the downloads and ranges read. */
export const BYTES: Uint8Array<ArrayBuffer> = new Uint8Array(3000).map((_, i) =>
  (i * 13 + 5) % 256
);

/** What an upload sends. */
export type UploadData = Parameters<StorageClient["upload"]>[2];

/** One plain upload of the flow. */
export interface Upload {
  /** The object's path, under `files/`. */
  path: string;
  data: UploadData;
  options?: Parameters<StorageClient["upload"]>[3];
  /** The bytes it should store: when given, downloaded and compared (`uploadedBack`). */
  readBack?: Uint8Array;
}

/** The text uploaded as `files/string.txt`. */
const TEXT = "héllo ✓ string\n";
/** The text of the Blob uploaded as `files/blob.txt`. */
const BLOB_TEXT = "blob: ünïcode\n";
/** The object the flow updates, then removes on its own. */
const STRING_PATH = "files/string.txt";

/** The uploads every runtime makes, by name: `bytes`, `blob` and `string`. */
export function commonUploads(): Record<string, Upload> {
  return {
    bytes: { path: "files/bytes.bin", data: BYTES },
    blob: { path: "files/blob.txt", data: new Blob([BLOB_TEXT], { type: "text/plain" }) },
    // Kept an hour by whoever reads it (storage-js's default): a browser's HTTP cache too.
    string: {
      path: STRING_PATH,
      data: TEXT,
      options: { contentType: "text/plain; charset=utf-8", cacheControl: 3600 },
    },
  };
}

/** Options of {@linkcode storageFlow}. */
export interface StorageFlowOptions {
  /** The storage client of a signed-in user. */
  storage: StorageClient;
  bucket: string;
  /** The plain uploads, in order, by name: {@linkcode commonUploads} and the runtime's own. */
  uploads: Record<string, Upload>;
}

/** Runs the flow. */
export async function storageFlow({ storage: st, bucket, uploads }: StorageFlowOptions): Promise<
  Json
> {
  const out: Json = {};
  const uploaded: Json = {};
  for (const [name, u] of Object.entries(uploads)) {
    uploaded[name] = said(await st.upload(bucket, u.path, u.data, u.options));
  }
  out.upload = uploaded;
  const back = async (path: string, expected: Uint8Array) => {
    const r = await st.downloadBytes(bucket, path);
    return r.ok ? same(r.value, expected) : said(r);
  };
  const readBack = Object.entries(uploads).filter(([, u]) => u.readBack !== undefined);
  if (readBack.length > 0) {
    const compared: Json = {};
    for (const [name, u] of readBack) compared[name] = await back(u.path, u.readBack!);
    out.uploadedBack = compared;
  }
  const asText = await st.download(bucket, STRING_PATH);
  out.downloadText = asText.ok ? asText.value === TEXT : said(asText);
  const blobBack = await st.download(bucket, "files/blob.txt");
  out.downloadBlob = blobBack.ok ? blobBack.value === BLOB_TEXT : said(blobBack);
  const info = await st.info(bucket, "files/blob.txt");
  out.blobInfo = info.ok ? { size: info.value.size, type: info.value.contentType } : said(info);
  out.downloadBytes = await back("files/bytes.bin", BYTES);
  const streamed = await st.downloadStream(bucket, "files/bytes.bin");
  out.downloadStream = streamed.ok
    ? { status: streamed.value.status, same: same(await readAll(streamed.value.stream), BYTES) }
    : said(streamed);
  const range = await st.downloadBytes(bucket, "files/bytes.bin", {
    range: { start: 1000, end: 1009 },
  });
  out.range = range.ok ? same(range.value, BYTES.subarray(1000, 1010)) : said(range);
  const rangeStream = await st.downloadStream(bucket, "files/bytes.bin", {
    range: { start: 2990 },
  });
  if (rangeStream.ok) {
    const got = new Uint8Array(await new Response(rangeStream.value.stream).arrayBuffer());
    out.rangeStream = {
      status: rangeStream.value.status,
      contentRange: rangeStream.value.contentRange,
      same: same(got, BYTES.subarray(2990)),
    };
  } else out.rangeStream = said(rangeStream);
  const signed = await st.createSignedUrl(bucket, "files/bytes.bin", 60, {
    download: true,
    fileName: "ré sumé.bin",
  });
  if (signed.ok) {
    // A plain fetch, no credentials: the URL carries its own proof.
    const answer = await fetch(signed.value);
    out.signedUrl = {
      status: answer.status,
      same: same(new Uint8Array(await answer.arrayBuffer()), BYTES),
      disposition: answer.headers.get("content-disposition"),
    };
  } else out.signedUrl = said(signed);
  // Its info read before the update and again after it (a browser keeps the info answer for the
  // object's `max-age` too), then asked for once it is gone: the current object each time.
  const before = await st.info(bucket, STRING_PATH);
  out.infoBeforeUpdate = before.ok ? before.value.size : said(before);
  // Replaced, then read again: the current bytes, not the answer read before.
  out.update = said(
    await st.update(bucket, STRING_PATH, "second version", { cacheControl: 3600 }),
  );
  const reread = await st.download(bucket, STRING_PATH);
  out.downloadAfterUpdate = reread.ok ? reread.value : said(reread);
  const rebytes = await st.downloadBytes(bucket, STRING_PATH);
  out.bytesAfterUpdate = rebytes.ok ? new TextDecoder().decode(rebytes.value) : said(rebytes);
  const reinfo = await st.info(bucket, STRING_PATH);
  out.infoAfterUpdate = reinfo.ok ? reinfo.value.size : said(reinfo);
  const listed = await st.list(bucket, { prefix: "files" });
  out.list = listed.ok ? listed.value.map((f) => f.name) : said(listed);
  const others = Object.values(uploads).map((u) => u.path).filter((p) => p !== STRING_PATH);
  const removed = await st.deleteObjects(bucket, others);
  out.removeMany = removed.ok ? removed.value.map((f) => f.name).sort() : said(removed);
  out.removeOne = said(await st.deleteObject(bucket, STRING_PATH));
  const removedOne = await st.exists(bucket, STRING_PATH);
  out.existsAfterRemove = removedOne.ok ? removedOne.value : said(removedOne);
  const gone = await st.exists(bucket, "files/bytes.bin");
  out.existsAfter = gone.ok ? gone.value : said(gone);
  const after = await st.list(bucket, { prefix: "files" });
  out.listAfter = after.ok ? after.value.map((f) => f.name) : said(after);
  return out;
}
