import { equal, match, ok } from "node:assert/strict";
import { benchArgs, DEFAULT_DATASETS, HELP } from "../scripts/bench/tree_args.ts";

Deno.test("bench:tree's options: defaults, and --help names every option it parses", () => {
  const v = benchArgs([], "/tmp/out.json");
  equal(v.datasets, DEFAULT_DATASETS);
  equal(v.out, "/tmp/out.json");
  equal(v.cycles, undefined, "bench_tree.ts picks 8 (2 with --quick)");
  for (const name of Object.keys(v)) ok(HELP.includes(`--${name}`), `--help does not list --${name}`);
});

Deno.test("bench:tree: an unknown option is one line and exit 1, not a stack trace", async () => {
  const script = new URL("../scripts/bench_tree.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", script, "--no-such-option"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(out.code, 1);
  const err = new TextDecoder().decode(out.stderr).trim();
  match(err, /^bench_tree: Unknown option '--no-such-option' \(--help lists the options\)$/);
});

Deno.test("bench:tree: --keep names where each ended run's state.json is copied", () => {
  const v = benchArgs(["--keep", "/tmp/kept"], "/tmp/out.json");
  equal(v.keep, "/tmp/kept");
  ok(HELP.includes("--keep DIR"));
});
