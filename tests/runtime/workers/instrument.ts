// Installed before the library's modules are evaluated: records any timer, random draw, key
// generation, network call or environment read that happens while they load (or in a task they
// leave behind), and snapshots the globals and the built-in prototypes to compare afterwards.
const calls: string[] = [];
const g = globalThis as unknown as Record<string, unknown>;
(g as { __importCalls: string[] }).__importCalls = calls;
const wrap = (owner: Record<string, unknown>, name: string, label: string) => {
  const original = owner[name] as (...args: unknown[]) => unknown;
  if (typeof original !== "function") return;
  owner[name] = function (this: unknown, ...args: unknown[]) {
    // Not the library's: workerd's own Node modules under nodejs_compat (its `process` sets up a
    // stdin stream that queues microtasks). The library imports none of them.
    if (!/^\s+at .*\(node-internal:/m.test(new Error().stack?.split("\n")[2] ?? "")) {
      calls.push(label);
    }
    return original.apply(this, args);
  };
};
for (const name of ["setTimeout", "setInterval", "queueMicrotask", "fetch"]) wrap(g, name, name);
wrap(Math as unknown as Record<string, unknown>, "random", "Math.random");
const c = crypto as unknown as Record<string, unknown>;
wrap(c, "getRandomValues", "crypto.getRandomValues");
wrap(c, "randomUUID", "crypto.randomUUID");
const subtle = crypto.subtle as unknown as Record<string, unknown>;
for (
  const name of [
    "generateKey",
    "importKey",
    "exportKey",
    "digest",
    "sign",
    "verify",
    "encrypt",
    "decrypt",
    "deriveBits",
    "deriveKey",
  ]
) {
  wrap(subtle, name, `crypto.subtle.${name}`);
}

/** An environment whose every read is recorded (Node's `process.env`, Deno's `Deno.env`). */
const recordedEnv = (label: string) =>
  new Proxy({}, {
    get(_target, key) {
      calls.push(`${label}.${String(key)}`);
      return undefined;
    },
    has(_target, key) {
      calls.push(`${label}.${String(key)}`);
      return false;
    },
    ownKeys() {
      calls.push(`${label} (keys)`);
      return [];
    },
  });
if (g.process === undefined) g.process = { env: recordedEnv("process.env") };
else {
  // nodejs_compat's own `process`: its `env` replaced by the recording one.
  Object.defineProperty(g.process, "env", {
    value: recordedEnv("process.env"),
    configurable: true,
  });
}
if (g.Deno === undefined) {
  const env = recordedEnv("Deno.env");
  g.Deno = {
    env: {
      get: (k: string) => (env as Record<string, unknown>)[k],
      has: (k: string) => k in env,
      toObject: () => ({ ...env }),
    },
  };
}

/** Own property names and symbols of an object, as text. */
const keysOf = (o: object) => Reflect.ownKeys(o).map(String).sort();
/** The globals (enumerable or not) and what each holds, taken before the library loads. */
export const globalsBefore: Map<string, unknown> = new Map(
  Reflect.ownKeys(globalThis).map((k) => [String(k), (g as Record<PropertyKey, unknown>)[k]]),
);
/** Built-ins whose prototypes (and statics) a module must not change. */
export const builtins: Record<string, { value: object; keys: string[]; proto: string[] }> = {};
for (
  const name of [
    "Object",
    "Array",
    "String",
    "Number",
    "Boolean",
    "Function",
    "Promise",
    "Map",
    "Set",
    "Date",
    "RegExp",
    "Error",
    "JSON",
    "Math",
    "Uint8Array",
    "ArrayBuffer",
    "Response",
    "Request",
    "Headers",
    "URL",
    "URLSearchParams",
    "ReadableStream",
    "Blob",
    "AbortSignal",
    "AbortController",
    "TextEncoder",
    "TextDecoder",
  ]
) {
  const value = g[name] as { prototype?: object } | undefined;
  if (!value) continue;
  builtins[name] = {
    value,
    keys: keysOf(value),
    proto: value.prototype ? keysOf(value.prototype) : [],
  };
}
export { keysOf };
