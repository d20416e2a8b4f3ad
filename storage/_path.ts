/**
 * Object-path rules: bucket-relative keys, URL-encoded per segment with `/`
 * kept. Leading slashes are dropped (as the service's own clients do); empty,
 * `.` and `..` segments are refused, because proxies and browsers collapse
 * them and the resulting key could not be reached through a URL.
 */

import { type Failure, failure } from "../core/result.ts";
import { encodeComponent } from "../core/_uri.ts";
import { showValue } from "../core/_show.ts";

/** Returns the normalised key, or an error message. */
export function checkObjectPath(path: string): { key: string } | { error: string } {
  if (typeof path !== "string") {
    return {
      error: `Cannot use the object path as it must be a string: current value is ${
        showValue(path)
      }`,
    };
  }
  const key = path.replace(/^\/+/, "");
  if (key === "") return { error: "Cannot use the object path as it is empty" };
  for (const segment of key.split("/")) {
    if (segment === "") {
      return { error: `Cannot use the object path ${showValue(path)} as it has an empty segment` };
    }
    if (segment === "." || segment === "..") {
      return {
        error: `Cannot use the object path ${showValue(path)} as it has a '${segment}' segment`,
      };
    }
  }
  return { key };
}

/**
 * Encodes a bucket id as one path segment, as a key segment (the single-path signing route signs
 * `decodeURI` of its path, bucket included); throws TypeError when blank.
 */
export function encodeBucket(bucket: string): string {
  // `.` and `..` would be dot segments: URL parsers resolve them into another route.
  if (
    typeof bucket !== "string" || bucket.trim() === "" || bucket.includes("/") ||
    bucket === "." || bucket === ".."
  ) {
    throw new TypeError(
      `Cannot use the bucket id as it must be a non-blank string without '/': current value is ${
        showValue(bucket)
      }`,
    );
  }
  return encodeSegment(bucket);
}

/** Characters legal in a path segment (RFC 3986 sub-delims, `:` and `@`) that stay literal. */
const PCHAR_ESCAPES = /%(?:3A|40|26|3D|2B|24|2C|3B)/g;

/**
 * One key segment for a URL path: percent-encoded, except `: @ & = + $ , ;`,
 * which a path may hold as they are. The Storage API signs the path as it
 * arrives and checks downloads against the decoded key, so a key such as
 * `a+b.txt` only gets a working signed URL when sent literally, as the
 * service's own clients do.
 */
function encodeSegment(segment: string): string {
  return encodeComponent(segment).replace(PCHAR_ESCAPES, decodeURIComponent);
}

/** `bucket/encoded/key`; throws TypeError for a bad bucket or path. */
export function encodeObjectPath(bucket: string, path: string): string {
  const checked = checkObjectPath(path);
  if ("error" in checked) throw new TypeError(checked.error);
  return `${encodeBucket(bucket)}/${checked.key.split("/").map(encodeSegment).join("/")}`;
}

/** Like {@linkcode encodeObjectPath} but returns a Failure instead of throwing. */
export function objectPathOrFailure(bucket: string, path: string): string | Failure {
  try {
    return encodeObjectPath(bucket, path);
  } catch (e) {
    return failure({ message: (e as Error).message, category: "INVALID_ARGUMENT" });
  }
}

/** One key or a list of keys (the document's list-or-vararg parameters) as a list. */
export function pathList(paths: string | readonly string[]): readonly string[] {
  if (typeof paths === "string") return [paths];
  if (!Array.isArray(paths)) {
    throw new TypeError("Cannot use the paths as they must be an object key or a list of keys");
  }
  return paths;
}
