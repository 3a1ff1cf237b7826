import { equal, ok } from "node:assert/strict";
import ajvModule from "ajv/2020";
import { parse } from "yaml";
import { renderPlanSchema } from "../scripts/gen_embeds.ts";
import { planSchema } from "../src/graph/plan_schema.ts";
import type { Infer } from "../src/graph/schema.ts";
import type { PlanFile } from "../src/graph/types.ts";
import { ROOT } from "./helpers/cli.ts";

// Type-level proof that the hand-written PlanFile and the schema describe exactly the same type (the
// "identical types" idiom: no extra or missing key, optional or not, at any depth), or this file does not
// type-check and `deno task test` fails.
type Equals<X, Y> = (<T>() => T extends X ? 1 : 2) extends (<T>() => T extends Y ? 1 : 2) ? true : false;
type Deep<T> = T extends (infer U)[] ? Deep<U>[] : T extends object ? { [K in keyof T]: Deep<T[K]> } : T;
const planFileMatchesSchema: Equals<Deep<PlanFile>, Deep<Infer<typeof planSchema>>> = true;

Deno.test("PlanFile and the plan schema describe the same type", () => {
  equal(planFileMatchesSchema, true);
});

Deno.test("scenarios/plan.schema.json is generated from the schema and up to date", async () => {
  equal(Deno.readTextFileSync(`${ROOT}scenarios/plan.schema.json`), await renderPlanSchema());
});

Deno.test("the JSON Schema accepts every shipped plan and rejects broken types", () => {
  const Ajv = (ajvModule as unknown as { default: typeof ajvModule }).default ?? ajvModule;
  const ajv = new (Ajv as unknown as new (
    o: object,
  ) => { compile(s: unknown): ((x: unknown) => boolean) & { errors?: unknown } })({
    allErrors: true,
    strict: false,
  });
  const validate = ajv.compile(JSON.parse(Deno.readTextFileSync(`${ROOT}scenarios/plan.schema.json`)));
  for (const d of Deno.readDirSync(`${ROOT}scenarios/plans`)) {
    const plan = parse(Deno.readTextFileSync(`${ROOT}scenarios/plans/${d.name}`));
    ok(validate(plan), `${d.name}: ${JSON.stringify(validate.errors)}`);
  }
  for (const name of ["02_unknown_keys", "03_wrong_types", "14_missing_required", "15_bad_enums"]) {
    const plan = parse(Deno.readTextFileSync(`${ROOT}tests/fixtures/broken/${name}.yaml`));
    ok(!validate(plan), `${name} should be rejected by the JSON Schema`);
  }
});
