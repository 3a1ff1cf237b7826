import { deepEqual, equal, ok } from "node:assert/strict";
import { type Layout, shadowPath, shadowWrites } from "./bwrap.ts";
import { type Unshare, watchLayout } from "./namespace.ts";
import { needs, NO_UNSHARE, UNSHARE } from "../../../tests/helpers/needs.ts";
import { tempDirs } from "../../../tests/helpers/temp.ts";

const ignored = needs("namespace_test", "the cases that run a program in a namespace", NO_UNSHARE);
const { tempDir, cleanUp } = tempDirs("arrow-namespace-test-");

/**
 * A shared directory (like /tmp) holding the runs, one run among others, and a home with a small top-level
 * file and a subdirectory: the watch-only layout of a program of this run.
 */
function fixture(u: Unshare, runsAt = "proj/runs") {
  const shared = tempDir();
  const home = tempDir();
  const runs = `${shared}/${runsAt}`;
  const run = `${runs}/this`;
  const scope = `${run}/nodes/a`;
  Deno.mkdirSync(scope, { recursive: true });
  Deno.mkdirSync(`${runs}/other/nodes`, { recursive: true });
  Deno.mkdirSync(`${shared}/stranger`);
  Deno.mkdirSync(`${shared}/tool`);
  Deno.writeTextFileSync(`${shared}/tool/run.sh`, "echo tool ran\n");
  Deno.mkdirSync(`${home}/sub`);
  Deno.writeTextFileSync(`${home}/.bashrc`, "# rc\n");
  const layout: Layout = {
    runDir: run,
    runsDir: runs,
    scope,
    readable: [],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/a.1`,
    scopes: ["a"],
    watched: [shared, home],
    lean: [shared],
    needed: [`${shared}/tool/run.sh`],
    home,
  };
  return { shared, home, runs, run, scope, layout, watched: watchLayout(u, layout) };
}

/** What landed in the shadows, as evidence paths (run-relative inside the run, else absolute). */
const seen = (shadows: ReturnType<typeof watchLayout>["shadows"]) =>
  shadows.flatMap((s) => shadowWrites(s).map((w) => `${w.op} ${shadowPath(s, w.rel)}`)).sort();

Deno.test({
  name:
    "watchLayout(): writes to the shared directory, the home's top level and beside the run land in shadows, " +
    "are seen and never reach the host; the rest stays the host's, writable",
  ignore: ignored,
}, async () => {
  const f = fixture(UNSHARE!);
  const script = [
    `sh ${f.shared}/tool/run.sh`,
    `echo x > ${f.shared}/evil.txt`,
    `test ! -e ${f.shared}/stranger || echo stranger visible`,
    `echo y > ${f.home}/new.txt`,
    `echo '# edited' >> ${f.home}/.bashrc`,
    `echo z > ${f.home}/sub/deep.txt`,
    `echo f > ${f.runs}/forged.txt`,
    `test ! -e ${f.runs}/other || echo other run visible`,
    `echo ok > ok.txt`,
    // No handle on a covered directory is left open for the program to go around its shadow with.
    `for n in 3 4 5 6 7 8 9; do [ -e /proc/$$/fd/$n ] && echo "fd $n open"; done; true`,
  ].join("\n");
  const out = await new Deno.Command(f.watched.prefix[0]!, {
    args: [...f.watched.prefix.slice(1), "sh", "-c", script],
    cwd: f.scope,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  equal(out.success, true, new TextDecoder().decode(out.stderr));
  equal(text, "tool ran\n");
  deepEqual(
    seen(f.watched.shadows),
    [
      `write ${f.home}/.bashrc`,
      `write ${f.home}/new.txt`,
      `write ${f.runs}/forged.txt`,
      `write ${f.shared}/evil.txt`,
    ].sort(),
  );
  ok(f.watched.shadows.every((s) => s.by === "namespace-shadow"));
  // Nothing caught reached the host; what is bound back (the scope, a home subdirectory) is the host's.
  for (const p of [`${f.shared}/evil.txt`, `${f.home}/new.txt`, `${f.runs}/forged.txt`]) {
    equal(exists(p), false, p);
  }
  equal(Deno.readTextFileSync(`${f.home}/.bashrc`), "# rc\n");
  equal(Deno.readTextFileSync(`${f.home}/sub/deep.txt`), "z\n");
  equal(Deno.readTextFileSync(`${f.scope}/ok.txt`), "ok\n");
  cleanUp();
});

Deno.test({
  name:
    "watchLayout(): a program in the namespace runs as its own user, in its scope, and a clean one leaves " +
    "the shadows empty (the runs directory a top-level entry of the shared directory)",
  ignore: ignored,
}, async () => {
  const f = fixture(UNSHARE!, "runs");
  const out = await new Deno.Command(f.watched.prefix[0]!, {
    args: [
      ...f.watched.prefix.slice(1),
      "sh",
      "-c",
      `id -u; /bin/pwd; mktemp -p "$TMPDIR" >/dev/null; ls ${f.runs}`,
    ],
    cwd: f.scope,
    env: { TMPDIR: f.scope },
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(out.success, true, new TextDecoder().decode(out.stderr));
  // The run is there; the other run is not.
  equal(new TextDecoder().decode(out.stdout), `${Deno.uid()}\n${f.scope}\nthis\n`);
  deepEqual(seen(f.watched.shadows), []);
  cleanUp();
});

Deno.test("watchLayout() never lists a lean shared directory: its script is the same at 10 and 5,000 entries", () => {
  const fake: Unshare = {
    prefix: ["/usr/bin/unshare", "--mount", "--"],
    mount: "/usr/bin/mount",
    sh: "/bin/sh",
    remap: null,
  };
  const shared = tempDir();
  Deno.mkdirSync(`${shared}/run/nodes/a`, { recursive: true });
  const at = (n: number) => {
    for (let i = 0; i < n; i++) Deno.mkdirSync(`${shared}/other${i}`, { recursive: true });
    return watchLayout(fake, {
      runDir: `${shared}/run`,
      runsDir: null,
      scope: `${shared}/run/nodes/a`,
      readable: [],
      writable: [],
      shadowRoot: `${shared}/run/.arrow/shadow/a.${n}`,
      scopes: ["a"],
      watched: [shared],
      lean: [shared],
      home: null,
    }).prefix.map((a) => a.replaceAll(/a\.\d+/g, "a.N"));
  };
  const small = at(10);
  deepEqual(at(5_000), small);
  // One cover, and only the run bound back.
  equal(small.at(-2)!.split("\n").filter((l) => l.includes("--bind")).length, 2);
  cleanUp();
});

function exists(p: string): boolean {
  try {
    Deno.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
