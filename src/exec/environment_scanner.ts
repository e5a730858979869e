/**
 * A long-lived reader of the processes' environments for the marker sweep: one `perl` process per
 * run, started once, asked one line per sweep round. Starting a reader per round (`sh` + `grep`,
 * or `ps`) costs a process start each time, 2 – 3 times a bare `Deno.Command("true")`; asking
 * this one costs a pipe round trip and the reads of `/proc/<pid>/environ` (Deno reads `/proc`
 * only with --allow-all, which the CLI never has).
 *
 * It fails closed to the per-round readers: the scanner carries a random sentinel entry in its own
 * environment and answers `error` unless it read it back in the same scan; a scanner that died
 * (killed by a command of the same user), stopped answering (stopped) within the time limit, or
 * answered anything else is killed and never asked again, and the round uses the next reader.
 *
 * @module
 */

/** The scanner: `x <entry>` finds whole entries, `p <entry start>` entries starting so. */
const SCRIPT = String.raw`
$| = 1;
my $sentinel = "\0KAGENT_RUN_READER=$ENV{KAGENT_RUN_READER}\0";
while (my $request = <STDIN>) {
  chomp $request;
  my ($mode, $needle) = split / /, $request, 2;
  # Each entry of an environ file ends with NUL: with one in front, an entry is "\0<entry>\0".
  my $wanted = $mode eq "x" ? "\0$needle\0" : "\0$needle";
  my ($self, @found) = (0);
  for my $file (glob "/proc/[0-9]*/environ") {
    open(my $handle, "<", $file) or next;
    my $environment = do { local $/; <$handle> };
    close $handle;
    next unless defined $environment;
    my ($pid) = $file =~ m{^/proc/(\d+)/};
    if ($pid == $$) { $self = 1 if index("\0$environment", $sentinel) >= 0; next; }
    push @found, $pid if index("\0$environment", $wanted) >= 0;
  }
  print $self ? "ok @found
" : "error
";
}
`;

/** How long one scan may take before the scanner counts as broken, in milliseconds. */
const SCAN_LIMIT_MS = 5000;

/**
 * One `perl` process that lists the pids whose environment holds an entry, on request. Requests
 * are answered one at a time, in order. Never throws: a broken scanner answers null.
 *
 * @example
 * ```ts
 * import { EnvironmentScanner } from "./environment_scanner.ts";
 * const scanner = EnvironmentScanner.start("/usr/bin/perl");
 * const pids = await scanner?.scan("KAGENT_RUN_CALL=no-such-run/call_1", false);
 * console.assert(pids === undefined || pids === null || pids.length === 0);
 * scanner?.close();
 * ```
 */
export class EnvironmentScanner {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #pending = "";
  #queue: Promise<unknown> = Promise.resolve();
  #broken = false;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#reader = child.stdout.getReader();
    // Neither the scanner nor its pipes keep this process alive.
    child.unref();
    child.status.then(() => this.#broken = true, () => this.#broken = true);
  }

  /**
   * Starts the scanner, with an empty environment but its sentinel.
   *
   * @param perlPath Absolute path of `perl` (5.x; only its core is used).
   * @returns The scanner, or null when `perl` cannot be started.
   */
  static start(perlPath: string): EnvironmentScanner | null {
    try {
      return new EnvironmentScanner(
        new Deno.Command(perlPath, {
          args: ["-e", SCRIPT],
          clearEnv: true,
          env: { KAGENT_RUN_READER: crypto.randomUUID() },
          stdin: "piped",
          stdout: "piped",
          stderr: "null",
        }).spawn(),
      );
    } catch {
      return null;
    }
  }

  /**
   * Pids (never the scanner's) whose environment holds `entry` as a whole entry, or an entry
   * starting with it when `prefix` is true.
   *
   * @param entry `NAME=value`, without white space.
   * @returns The pids, or null when the scanner is broken (then it is stopped for good).
   */
  scan(entry: string, prefix: boolean): Promise<number[] | null> {
    const answer = this.#queue.then(() => this.#ask(`${prefix ? "p" : "x"} ${entry}\n`));
    this.#queue = answer;
    return answer;
  }

  /** The scanner's process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Stops the scanner. */
  close(): void {
    this.#broken = true;
    this.#writer.close().catch(() => {});
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Exited already.
    }
  }

  async #ask(request: string): Promise<number[] | null> {
    if (this.#broken || /\s/.test(request.slice(2, -1))) return null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), SCAN_LIMIT_MS);
    });
    try {
      await this.#writer.write(new TextEncoder().encode(request));
      const line = await Promise.race([this.#line(), expired]);
      const found = line === null ? null : /^ok((?: \d+)*) ?$/.exec(line);
      if (found === null) {
        this.close();
        return null;
      }
      return (found[1] ?? "").split(" ").filter((pid) => pid !== "").map(Number);
    } catch {
      this.close();
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The next answer line, or null at the end of the scanner's output. */
  async #line(): Promise<string | null> {
    const decoder = new TextDecoder();
    for (;;) {
      const end = this.#pending.indexOf("\n");
      if (end !== -1) {
        const line = this.#pending.slice(0, end);
        this.#pending = this.#pending.slice(end + 1);
        return line;
      }
      const { done, value } = await this.#reader.read();
      if (done) return null;
      this.#pending += decoder.decode(value);
    }
  }
}
