/**
 * Blobs of any realm or implementation, as uploads take them: this realm's, or one to read
 * before sending (`isBlobToRead` in `core/_realm.ts`: another realm's, or one without `stream()`).
 *
 * @module
 */

import { isBlobToRead } from "../core/_realm.ts";

/** Whether `value` is a Blob: this realm's, or one to read first (`isBlobToRead`). */
export function isAnyBlob(value: unknown): value is Blob {
  return (typeof Blob !== "undefined" && value instanceof Blob) || isBlobToRead(value);
}

/** The type a Blob of any realm or implementation says it has; `""` for none or no Blob. */
export function blobType(value: unknown): string {
  const type = isAnyBlob(value) ? value.type : "";
  return typeof type === "string" ? type : "";
}
