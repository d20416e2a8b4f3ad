/**
 * Local URL building for storage: no I/O.
 */

import type { ImageTransformOptions } from "./models.ts";
import { encodeComponent } from "../core/_uri.ts";
import { showValue } from "../core/_show.ts";

/** Transform fields as render query pairs; null fields are omitted. */
export function transformQuery(t: ImageTransformOptions): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  // The options' wrapper passed where its transform belongs (`{ transform: { width } }` to a
  // render URL) would sign or build a URL with no transform at all.
  if ((t as { transform?: unknown }).transform != null) {
    throw new TypeError(
      "Cannot transform as 'transform' is not a transform field: pass the transform's own fields (width, height, resize, format, quality)",
    );
  }
  const num = (name: "width" | "height" | "quality") => {
    const v = t[name];
    if (v === null || v === undefined) return;
    if (!Number.isSafeInteger(v) || v <= 0) {
      throw new RangeError(
        `Cannot transform as '${name}' must be a positive integer: current value is ${
          showValue(v)
        }`,
      );
    }
    out.push([name, String(v)]);
  };
  num("width");
  num("height");
  const resize = t.resize;
  if (resize) {
    if (resize !== "cover" && resize !== "contain" && resize !== "fill") {
      throw new TypeError(
        `Cannot transform as 'resize' must be cover, contain or fill: current value is ${
          showValue(resize)
        }`,
      );
    }
    out.push(["resize", resize]);
  }
  if (t.format) {
    // Server-defined names (origin, webp, avif, ...): a word, nothing to escape.
    if (typeof t.format !== "string" || !/^[a-z0-9]+$/i.test(t.format)) {
      throw new TypeError(
        `Cannot transform as 'format' must be a format name such as webp: current value is ${
          showValue(t.format)
        }`,
      );
    }
    out.push(["format", t.format]);
  }
  num("quality");
  return out;
}

/** Appends pairs to a URL. */
export function withQuery(url: string, pairs: ReadonlyArray<readonly [string, string]>): string {
  if (pairs.length === 0) return url;
  const q = pairs.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join("&");
  return url + (url.includes("?") ? "&" : "?") + q;
}
