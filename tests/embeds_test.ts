import { equal } from "node:assert/strict";
import { renderAll } from "../scripts/gen_embeds.ts";
import { ROOT } from "./helpers/cli.ts";

Deno.test("generated embed modules are up to date (run `deno task gen` after editing their sources)", async () => {
  for (const [path, text] of Object.entries(await renderAll())) {
    equal(Deno.readTextFileSync(`${ROOT}${path}`), text, `${path} is stale`);
  }
});
