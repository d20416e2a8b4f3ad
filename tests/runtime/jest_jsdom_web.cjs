// @ts-nocheck -- a Jest environment, loaded by Jest, not type-checked by Deno
// Jest's jsdom environment with the web APIs that Node has and jsdom lacks handed in (fetch and
// its classes, streams, TextEncoder/TextDecoder, AbortController, WebCrypto with `subtle`):
// without them a web app's tests cannot call any fetch-based client. The README shows it; tests/runtime/node_test.ts
// runs tests/runtime/jest_flow.js in it.
const { TestEnvironment } = require("jest-environment-jsdom");

const WEB = [
  "fetch",
  "Request",
  "Response",
  "Headers",
  "FormData",
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "TextEncoder",
  "TextDecoder",
  "AbortController",
  "AbortSignal",
  "crypto",
  "structuredClone",
];

module.exports = class extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    // jsdom's own `crypto` has no `subtle`, and is a getter: Node's is defined over it.
    for (const name of WEB) {
      Object.defineProperty(this.global, name, {
        value: globalThis[name],
        configurable: true,
        writable: true,
      });
    }
  }
};
