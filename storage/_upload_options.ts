/**
 * Internal: the options simple and resumable uploads share, checked before
 * anything is sent.
 *
 * @module
 */

import { showValue } from "../core/_show.ts";
import { describeThrown } from "../core/_thrown.ts";
import { isPlainObject } from "./_plain.ts";
import { jsonLossAt } from "../core/_json_loss.ts";

/**
 * The options every upload shares, checked (`TypeError`/`RangeError`): an `upsert` that is no
 * boolean went out as `x-upsert: [object Object]` (read as false), a `contentType` or a
 * `cacheControl` of another type crashed in encoding, `metadata` JSON cannot write threw
 * JSON's own message, and metadata that is no plain object (a Date, a Map), or holds a Map or a
 * Set at any depth, went out as a string or as `{}`. Returns the metadata as JSON text, or null.
 */
export function checkUploadOptions(o: {
  upsert?: unknown;
  contentType?: unknown;
  cacheControl?: unknown;
  metadata?: unknown;
}): string | null {
  const { upsert, contentType, cacheControl, metadata } = o;
  if (upsert != null && typeof upsert !== "boolean") {
    throw new TypeError(
      `Cannot upload as 'upsert' must be a boolean: current value is ${showValue(upsert)}`,
    );
  }
  if (contentType != null && typeof contentType !== "string") {
    throw new TypeError(
      `Cannot upload as 'contentType' must be a string: current value is ${showValue(contentType)}`,
    );
  }
  if (
    cacheControl != null && !(Number.isSafeInteger(cacheControl) && (cacheControl as number) >= 0)
  ) {
    throw new RangeError(
      `Cannot upload as 'cacheControl' must be a non-negative integer: current value is ${
        showValue(cacheControl)
      }`,
    );
  }
  if (!metadata) return null;
  let json: string | undefined;
  try {
    json = isPlainObject(metadata) ? JSON.stringify(metadata) : undefined;
  } catch (cause) {
    throw new TypeError(
      `Cannot upload as 'metadata' cannot be written as JSON: ${describeThrown(cause)}`,
      { cause },
    );
  }
  if (json === undefined) {
    throw new TypeError(
      `Cannot upload as 'metadata' must be a JSON object: current value is ${showValue(metadata)}`,
    );
  }
  const loss = jsonLossAt(metadata, "metadata");
  if (loss) throw new TypeError(`Cannot upload as '${loss[0]}' must be JSON, not a ${loss[1]}`);
  return json;
}
