// Installed before the library's modules are evaluated: records any timer, random draw,
// environment read or global write that happens while they load.
const calls: string[] = [];
const g = globalThis as unknown as Record<string, unknown>;
(g as { __importCalls: string[] }).__importCalls = calls;
const wrap = (owner: Record<string, unknown>, name: string, label: string) => {
  const original = owner[name] as (...args: unknown[]) => unknown;
  owner[name] = function (this: unknown, ...args: unknown[]) {
    calls.push(label);
    return original.apply(this, args);
  };
};
wrap(g, "setTimeout", "setTimeout");
wrap(g, "setInterval", "setInterval");
wrap(g, "queueMicrotask", "queueMicrotask");
wrap(Math as unknown as Record<string, unknown>, "random", "Math.random");
wrap(crypto as unknown as Record<string, unknown>, "getRandomValues", "crypto.getRandomValues");
wrap(crypto as unknown as Record<string, unknown>, "randomUUID", "crypto.randomUUID");
export const before: string[] = Object.keys(g);
