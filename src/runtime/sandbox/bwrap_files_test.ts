import { deepEqual, equal, ok } from "node:assert/strict";
import { bwrapLayout, MAX_SHADOWED_ENTRIES, shadowWrites, TOP_COPY } from "./bwrap.ts";
import { BWRAP, needs, NO_BWRAP } from "../../../tests/helpers/needs.ts";
import { tempDirs } from "../../../tests/helpers/temp.ts";

const ignored = needs("bwrap_files_test", "the sandbox cases", NO_BWRAP);

const { tempDir, cleanUp } = tempDirs("arrow-bwrap-files-test-");

/** A run whose scope `a` writes, with a $HOME and a project directory watched (not shared, so listed). */
function homeLayout(opts: { readOnly?: boolean; copyScope?: boolean } = {}) {
  const home = tempDir();
  const project = tempDir();
  const run = tempDir();
  Deno.writeTextFileSync(`${home}/.bashrc`, "export PS1=x\n");
  Deno.writeTextFileSync(`${home}/.netrc`, "machine example.com password hunter2\n");
  Deno.writeTextFileSync(`${home}/big.bin`, "x".repeat(TOP_COPY.file + 1));
  Deno.mkdirSync(`${home}/.config`);
  Deno.writeTextFileSync(`${project}/evaluate.py`, "print(0.5)\n");
  Deno.mkdirSync(`${run}/nodes/a`, { recursive: true });
  Deno.writeTextFileSync(`${run}/nodes/a/results.json`, `{"score": 0.5}`);
  const layout = bwrapLayout({
    runDir: run,
    runsDir: null,
    scope: `${run}/nodes/a`,
    readable: [],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/a.1`,
    scopes: ["a"],
    watched: [home, project],
    home,
    ...opts,
  });
  const sh = async (cmd: string) => {
    const out = await new Deno.Command(BWRAP!, {
      args: [...layout.args, "--", "sh", "-c", cmd],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  };
  const writes = () =>
    layout.shadows.flatMap((s) => shadowWrites(s).map((w) => `${w.op} ${s.shows}/${w.rel}`)).sort();
  return { ...layout, home, project, run, sh, writes };
}

Deno.test("bwrapLayout() gives small top-level files of $HOME and the project as copies, larger ones as binds", () => {
  const { args, shadows, home, project } = homeLayout();
  const homeShadow = shadows.find((s) => s.shows === home)!;
  deepEqual(Object.keys(homeShadow.baseline ?? {}), [".bashrc"]);
  deepEqual(Object.keys(shadows.find((s) => s.shows === project)!.baseline ?? {}), ["evaluate.py"]);
  ok(args.join(" ").includes(`--ro-bind-try ${home}/big.bin ${home}/big.bin`), "a large file stays a bind");
  ok(!args.includes(`${home}/.bashrc`), "a copied file is no mount");
  deepEqual(shadows.flatMap(shadowWrites), [], "an untouched layout has nothing to report");
  cleanUp();
});

Deno.test("bwrapLayout() never binds a secret file: it is an empty file of its own", () => {
  const { args, shadows, home } = homeLayout();
  const at = args.indexOf(`${home}/.netrc`);
  equal(args[at - 2], "--bind");
  ok(!args[at - 1]!.startsWith(home), "the secret is never the source of a mount");
  equal(Deno.readTextFileSync(args[at - 1]!), "", "what stands for it is empty");
  ok(shadows.find((s) => s.shows === home)!.ignore.includes(".netrc"), "its mount point is no write");
  cleanUp();
});

Deno.test({
  name: "bwrapLayout(): an edit of ~/.bashrc, of <project>/evaluate.py and a write to ~/.netrc are seen, " +
    "and the secret stays hidden",
  ignore: ignored,
}, async () => {
  const { sh, writes, home, project } = homeLayout();
  equal(await sh(`cat ${home}/.netrc; cat ${home}/.bashrc`), "export PS1=x\n", "the secret reads empty");
  equal(await sh("true"), "");
  deepEqual(writes(), [], "starting is no write");
  await sh(
    `echo 'alias ls=rm' >> ${home}/.bashrc; echo 'print(0.999)' > ${project}/evaluate.py; ` +
      `echo 'machine evil' > ${home}/.netrc; rm ${home}/.profile 2>/dev/null; true`,
  );
  deepEqual(
    writes(),
    [`write ${home}/.bashrc`, `write ${home}/.netrc`, `write ${project}/evaluate.py`].sort(),
  );
  equal(Deno.readTextFileSync(`${home}/.bashrc`), "export PS1=x\n", "the host's files are untouched");
  equal(Deno.readTextFileSync(`${home}/.netrc`), "machine example.com password hunter2\n");
  equal(Deno.readTextFileSync(`${project}/evaluate.py`), "print(0.5)\n");
  await sh(`rm ${home}/.bashrc`);
  ok(writes().includes(`delete ${home}/.bashrc`), "a removed file is a delete");
  cleanUp();
});

Deno.test({
  name: "bwrapLayout(): a read-only check given its scope as a copy writes it in vain, and is seen",
  ignore: ignored,
}, async () => {
  const { sh, writes, run, refusing } = homeLayout({ readOnly: true, copyScope: true });
  deepEqual(refusing, []);
  equal(await sh(`cat ${run}/nodes/a/results.json`), `{"score": 0.5}`);
  await sh(`echo '{"score": 0.999}' > ${run}/nodes/a/results.json`);
  deepEqual(writes(), ["write nodes/a/results.json"]);
  equal(Deno.readTextFileSync(`${run}/nodes/a/results.json`), `{"score": 0.5}`, "the scope is untouched");
  cleanUp();
});

Deno.test("bwrapLayout() names a read-only check's scope past COPY_LIMIT as refusing, and why", () => {
  const run = tempDir();
  Deno.mkdirSync(`${run}/nodes/a`, { recursive: true });
  Deno.writeTextFileSync(`${run}/nodes/a/model.bin`, "");
  Deno.truncateSync(`${run}/nodes/a/model.bin`, 65 << 20);
  const { refusing, args } = bwrapLayout({
    runDir: run,
    runsDir: null,
    scope: `${run}/nodes/a`,
    readable: [],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/a.1`,
    scopes: ["a"],
    watched: [],
    home: null,
    readOnly: true,
    copyScope: true,
  });
  deepEqual(refusing, [{ path: `${run}/nodes/a`, why: "more than 64 MiB (COPY_LIMIT)" }]);
  ok(args.join(" ").includes(`--ro-bind ${run}/nodes/a ${run}/nodes/a`), "bound read-only");
  cleanUp();
});

Deno.test("bwrapLayout() names a watched directory past MAX_SHADOWED_ENTRIES as refusing, and why", () => {
  const home = tempDir();
  const run = tempDir();
  for (let i = 0; i <= MAX_SHADOWED_ENTRIES; i++) Deno.writeTextFileSync(`${home}/f${i}`, "");
  Deno.mkdirSync(`${run}/nodes/a`, { recursive: true });
  const { refusing } = bwrapLayout({
    runDir: run,
    runsDir: null,
    scope: `${run}/nodes/a`,
    readable: [],
    writable: [],
    shadowRoot: `${run}/.arrow/shadow/a.1`,
    scopes: ["a"],
    watched: [home],
    home: null,
  });
  deepEqual(refusing, [{ path: home, why: "401 entries, more than 400 (MAX_SHADOWED_ENTRIES)" }]);
  cleanUp();
});
