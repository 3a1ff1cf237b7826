import { deepEqual, equal } from "node:assert/strict";
import { bwrapLayout } from "./bwrap.ts";
import { BWRAP, needs, NO_BWRAP } from "../../tests/helpers/needs.ts";

const ignored = needs("bwrap_test", "the sandbox start case", NO_BWRAP);

/** Temporary directories these tests made: removed after each test (a leak here fills /tmp run by run). */
const made: string[] = [];
function tempDir(): string {
  const d = Deno.makeTempDirSync({ prefix: "arrow-bwrap-test-" });
  made.push(d);
  return d;
}
function cleanUp() {
  for (const d of made.splice(0)) Deno.removeSync(d, { recursive: true });
}

function layoutOver(watched: string) {
  const run = tempDir();
  Deno.mkdirSync(`${run}/nodes/a`, { recursive: true });
  return bwrapLayout({
    runDir: run,
    runsDir: null,
    scope: `${run}/nodes/a`,
    readable: [],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/a.1`,
    scopes: ["a"],
    watched: [watched],
    home: null,
  });
}

Deno.test("bwrapLayout() binds a shared directory's entries so that one vanishing does not abort the start", () => {
  const shared = tempDir();
  Deno.mkdirSync(`${shared}/d`);
  Deno.symlinkSync("/nonexistent", `${shared}/l`);
  const { args, shadows } = layoutOver(shared);
  const at = args.indexOf(`${shared}/d`);
  equal(args[at - 1], "--ro-bind-try");
  deepEqual(args.slice(args.indexOf(`${shared}/l`) - 2, args.indexOf(`${shared}/l`) + 1), [
    "--symlink",
    "/nonexistent",
    `${shared}/l`,
  ]);
  deepEqual(shadows[0]!.ignore.sort(), ["d", "l"]);
  cleanUp();
});

Deno.test({
  name:
    "bwrapLayout(): a worker still starts when an entry of a watched directory is removed before bwrap runs",
  ignore: ignored,
}, async () => {
  const shared = tempDir();
  for (let i = 0; i < 5; i++) Deno.mkdirSync(`${shared}/gone${i}`);
  const { args } = layoutOver(shared);
  for (let i = 0; i < 5; i++) Deno.removeSync(`${shared}/gone${i}`);
  const out = await new Deno.Command(BWRAP!, { args: [...args, "--", "true"], stderr: "piped" }).output();
  cleanUp();
  equal(out.success, true, new TextDecoder().decode(out.stderr));
});
