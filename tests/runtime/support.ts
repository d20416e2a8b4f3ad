/** Helpers shared by the runtime tests. */

/** Options of {@linkcode run}. */
export interface RunOptions {
  cwd?: string;
  /** Variables for the child; with `clearEnv`, its only ones. */
  env?: Record<string, string>;
  clearEnv?: boolean;
}

/**
 * Runs a command to its end and returns its exit code and output (stdout, then stderr). Bounded:
 * a step that hangs (an install waiting on the registry) is killed after 3 minutes and fails with
 * its output instead of holding the suite.
 */
export async function run(
  cmd: string,
  args: string[],
  opts: RunOptions = {},
): Promise<{ code: number; text: string }> {
  const limit = 180_000;
  const out = await new Deno.Command(cmd, {
    args,
    ...opts,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(limit),
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) +
    (out.signal === "SIGTERM" ? `\n(killed after ${limit} ms)` : "");
  return { code: out.code, text };
}

/** A child process started by {@linkcode spawnUntil}. */
export interface Started {
  /** The captured output up to and including the marker. */
  output: string;
  /** Its stdout since the marker, then its stderr: the last 64 KiB of each. */
  logs(): string;
  /**
   * Stops the process (closes stdin, sends SIGTERM) and waits for it to exit. A process still
   * running `exitWithinMs` later is killed and the call throws: a server whose shutdown hangs
   * fails its test instead of holding the suite.
   */
  stop(exitWithinMs?: number): Promise<void>;
}

/** Options of {@linkcode spawnUntil}. */
export interface SpawnOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** How long the marker may take to appear; the process is killed past it. Default 60 s. */
  startWithinMs?: number;
}

/**
 * Spawns a process and waits until its stdout contains `marker`. Its stderr is read all along
 * (a full pipe would stall the child) and quoted when it exits or stalls before the marker.
 */
export async function spawnUntil(
  cmd: string,
  args: string[],
  marker: string,
  options: SpawnOptions = {},
): Promise<Started> {
  const { startWithinMs: _, ...command } = options;
  const child = new Deno.Command(cmd, {
    args,
    ...command,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  })
    .spawn();
  let stderr = "";
  const stderrDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(text) {
        stderr = (stderr + text).slice(-65536);
      },
    }),
  ).catch(() => {});
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  let output = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<"stalled">((resolve) => {
    timer = setTimeout(() => resolve("stalled"), options.startWithinMs ?? 60_000);
  });
  try {
    while (!output.includes(marker)) {
      const read = await Promise.race([reader.read(), stalled]);
      if (read === "stalled" || read.done) {
        kill();
        await reader.cancel().catch(() => {});
        await child.status;
        await stderrDone;
        throw new Error(
          `${cmd} ${read === "stalled" ? "did not print" : "exited before printing"} ` +
            `'${marker}'\n--- stdout\n${output}\n--- stderr\n${stderr}`,
        );
      }
      output += read.value;
    }
  } finally {
    clearTimeout(timer);
  }
  // Whatever the process prints later is read (and its tail kept), so that it never blocks on a
  // pipe.
  let later = "";
  const stdoutDone = (async () => {
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        later = (later + r.value).slice(-65536);
      }
    } catch {
      // cancelled
    }
  })();
  return {
    output,
    logs: () => later + stderr,
    async stop(exitWithinMs = 20_000) {
      await child.stdin.close().catch(() => {});
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => {
        deadline = setTimeout(() => resolve("late"), exitWithinMs);
      });
      const ended = await Promise.race([child.status, late]);
      clearTimeout(deadline);
      if (ended === "late") kill();
      await child.status;
      await stdoutDone;
      await stderrDone;
      if (ended === "late") {
        throw new Error(
          `${cmd} was still running ${exitWithinMs} ms after SIGTERM\n--- stderr\n${stderr}`,
        );
      }
    },
  };
}

/** A Worker running in workerd, started by {@linkcode startWorker}. */
export interface RunningWorker {
  /** Where it answers. */
  url: string;
  /** Stops miniflare. */
  stop(): Promise<void>;
  /** What miniflare and workerd printed since the Worker started (the Worker's console too). */
  logs(): string;
}

/**
 * Bundles the Worker `entry` with esbuild (ESM, browser platform) into `tmp` and runs it in
 * miniflare (the real workerd runtime), with `FETCHBASE_URL` and `FETCHBASE_KEY` bound; miniflare's
 * own temporary files go inside `tmp` too. `compatibilityDate` replaces the runner's default (a
 * current date). Throws with esbuild's or miniflare's output when either fails.
 */
export async function startWorker(
  entry: string,
  tmp: string,
  fetchbaseUrl: string,
  fetchbaseKey: string,
  compatibilityDate?: string,
): Promise<RunningWorker> {
  const root = new URL("../../", import.meta.url).pathname;
  const out = await new Deno.Command(`${root}node_modules/.bin/esbuild`, {
    args: [entry, "--bundle", "--format=esm", "--platform=browser", `--outfile=${tmp}/worker.js`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) {
    throw new Error(`esbuild could not bundle ${entry}: ${new TextDecoder().decode(out.stderr)}`);
  }
  const worker = await spawnUntil(
    "node",
    [
      `${root}tests/runtime/workers/run_miniflare.mjs`,
      `${tmp}/worker.js`,
      fetchbaseUrl,
      fetchbaseKey,
      ...(compatibilityDate === undefined ? [] : [compatibilityDate]),
    ],
    "READY",
    { env: { TMPDIR: tmp } },
  );
  const url = /READY (\S+)/.exec(worker.output)?.[1];
  if (url === undefined) {
    await worker.stop();
    throw new Error(`the Worker did not start in workerd: ${worker.output}`);
  }
  return { url, stop: () => worker.stop(), logs: () => worker.logs() };
}
