/**
 * The public dataset catalog: what the benchmark's issue asks of it (names, sources outside the R packages
 * kept for the independent check, a documented row per dataset), and the Rscript conversion of an R
 * package's lazy-load database with its clear refusal when Rscript is missing.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { DATASETS } from "../scripts/datasets/catalog.ts";
import { rdaToCsv } from "../scripts/datasets/prepare.ts";
import { readTable } from "../src/tabular/mod.ts";
import { ROOT } from "./helpers/cli.ts";
import { needs, onPath } from "./helpers/needs.ts";

const FILE = "tabular_catalog_test";
const NO_R = onPath("Rscript") ? null : "Rscript is not installed (apt-get install -y r-base-core)";

Deno.test("the catalog's datasets are unique, documented and kept off the independent-check packages", () => {
  const names = DATASETS.map((d) => d.name);
  equal(new Set(names).size, names.length);
  ok(names.length >= 6, `${names.length} datasets`);
  const readme = Deno.readTextFileSync(`${ROOT}scripts/datasets/README.md`);
  for (const d of DATASETS) {
    ok(readme.includes(`| \`${d.name}\``), `README.md has no table row for ${d.name}`);
    ok(readme.includes(`**${d.name}**`), `README.md has no source paragraph for ${d.name}`);
    ok(d.source && d.licence, `${d.name} lacks a source or licence`);
    if (d.origin.kind === "deb") {
      ok(!["r-cran-modeldata", "r-cran-stablelearner"].includes(d.origin.pkg), `${d.name}: ${d.origin.pkg}`);
    }
    if (d.format === "rda") {
      ok(d.origin.file.endsWith(".rdb") && d.object, `${d.name}: rda needs .rdb + object`);
    }
  }
});

Deno.test("rdaToCsv() refuses a source that is not a .rdb file", async () => {
  await rejects(rdaToCsv("/tmp/x.rda", "X"), /an "rda" source is an R package's \.rdb file/);
});

Deno.test("rdaToCsv() says Rscript is missing, with the package to install, when it is not on PATH", async () => {
  const path = Deno.env.get("PATH") ?? "";
  Deno.env.set("PATH", "/nonexistent");
  try {
    await rejects(rdaToCsv("/tmp/x.rdb", "X"), /Rscript is missing \(apt-get install r-base-core\)/);
  } finally {
    Deno.env.set("PATH", path);
  }
});

Deno.test({
  name: "rdaToCsv() writes a data frame's factors as labels and NA as an empty cell",
  ignore: needs(FILE, "the Rscript conversion", NO_R),
  fn: async () => {
    const tmp = Deno.makeTempDirSync({ prefix: "arrow-rda-" });
    try {
      // A lazy-load database like an R package's data/Rdata.rdb, made with R's own tool.
      const make = [
        "e <- new.env()",
        "e$Mini <- data.frame(g = factor(c('lo', NA, 'hi')), x = c(1.5, 2, NA), n = c(1L, 2L, 3L))",
        `tools:::makeLazyLoadDB(e, '${tmp}/Rdata')`,
      ].join("; ");
      const out = new Deno.Command("Rscript", { args: ["-e", make], stdout: "null", stderr: "piped" })
        .outputSync();
      ok(out.success, new TextDecoder().decode(out.stderr));
      const csv = await rdaToCsv(`${tmp}/Rdata.rdb`, "Mini");
      equal(csv, '"g","x","n"\n"lo",1.5,1\n,2,2\n"hi",,3\n');
      const t = readTable(csv, "mini.csv");
      deepEqual(t.columns.map((c) => c.kind), ["categorical", "numeric", "numeric"]);
      await rejects(rdaToCsv(`${tmp}/Rdata.rdb`, "Other"), /no data frame Other/);
    } finally {
      Deno.removeSync(tmp, { recursive: true });
    }
  },
});
