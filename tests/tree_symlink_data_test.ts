/**
 * A user's CSV reached through a symlinked directory inside the project directory (a data folder linked
 * into a checkout): the tree's sandbox used to mask the link's path, which bubblewrap cannot mount over, so
 * every executor failed to start ("Can't create file at …") and the run ended with NO VERDICT. The data is
 * now hidden at its real place — which hides it through the link too — and the child starts.
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import { BWRAP, needs, NO_BWRAP } from "./helpers/needs.ts";
import { treeBwrapArgs } from "../src/tree/execute/sandbox.ts";

const noBwrap = needs("tree_symlink_data_test", "the bubblewrap case", NO_BWRAP);

Deno.test({
  name: "a CSV in a symlinked folder of the project is hidden from a tree child, which still starts",
  ignore: noBwrap,
  fn: async () => {
    const tmp = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "arrow-tree-symlink-" }));
    const cwd = Deno.cwd();
    try {
      Deno.mkdirSync(`${tmp}/real`);
      Deno.writeTextFileSync(`${tmp}/real/data.csv`, "x,label\n1,SECRET-LABEL\n");
      Deno.mkdirSync(`${tmp}/project`);
      Deno.symlinkSync(`${tmp}/real`, `${tmp}/project/linked`);
      for (const d of ["run/data", "run/nodes/n1", "run/audit"]) {
        Deno.mkdirSync(`${tmp}/${d}`, { recursive: true });
      }
      // The project directory is the working directory: its top level is a shadow, the link inside it.
      Deno.chdir(`${tmp}/project`);
      const ctx = {
        runDir: `${tmp}/run`,
        runsDir: tmp,
        dataDir: `${tmp}/run/data`,
        taskFile: `${tmp}/run/data/task.json`,
        devFile: `${tmp}/run/data/dev.csv`,
        userCsv: `${tmp}/project/linked/data.csv`,
        bwrap: BWRAP,
      };
      const { args } = treeBwrapArgs(ctx, `${tmp}/run/nodes/n1`, true, [], `${tmp}/run/audit/a.jsonl`);
      const script =
        `echo started; cat ${tmp}/project/linked/data.csv ${tmp}/real/data.csv 2>/dev/null; true`;
      const out = await new Deno.Command(BWRAP!, {
        args: [...args, "--", "/bin/sh", "-c", script],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout), stderr = new TextDecoder().decode(out.stderr);
      equal(out.code, 0, stderr);
      ok(stdout.includes("started"), `the child started: ${stderr}`);
      ok(!stdout.includes("SECRET-LABEL"), "the labels are hidden through the link and at the target");
    } finally {
      Deno.chdir(cwd);
      Deno.removeSync(tmp, { recursive: true });
    }
  },
});
