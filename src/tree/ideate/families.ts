/**
 * Every hypothesis family, declared once: its name (the `Family` type is this table's keys), the library's
 * prior for trying it, whether it acts on a column the parent's residuals still vary with, whether an LLM
 * may name it, and the sentences an insight gives when it helped, hurt or changed nothing. The library
 * (priors, residual evidence), the insights, and the LLM prompt all read this table; a family's code is
 * written by `library_code.ts` and its candidates drawn by `library.ts`, both keyed by these names.
 *
 * To add a family: one entry here (the compiler then asks `library.ts` and `library_code.ts` for nothing
 * unless the family writes code or draws candidates of its own).
 *
 * @module
 */

export interface FamilyCard {
  /** The library's prior for a hypothesis of this family (0: only proposed by its own rule). */
  prior: number;
  /** A feature step on a column: ordered first where the parent's residuals still vary with that column. */
  onResiduals: boolean;
  /** An LLM ideator may name it for a module it writes (model moves and ensembles are Arrow's own). */
  llm: boolean;
  helped: string;
  hurt: string;
  /** Why no effect is expected of it, when there is a reason beyond noise. */
  neutral?: string;
}

export const FAMILIES = {
  missing_indicator: {
    prior: 0.25,
    onResiduals: true,
    llm: true,
    helped: "whether the value is missing carries signal beyond the trees' own routing of gaps",
    hurt: "the indicator repeated what missing-value routing already does, and added variance",
    neutral: "the trees already route missing values on their own",
  },
  log: {
    prior: 0.05,
    onResiduals: true,
    llm: true,
    helped: "the log scale moved the histogram bin edges to where the signal is",
    hurt: "the new bins cut the column worse than the old ones",
    neutral: "trees split on order, and a monotone transform leaves the order as it was",
  },
  ratio: {
    prior: 0.45,
    onResiduals: true,
    llm: true,
    helped: "the ratio is an interaction that shallow axis-aligned splits cannot build",
    hurt: "the interaction was noise, and one more column invited overfitting",
  },
  product: {
    prior: 0.35,
    onResiduals: true,
    llm: true,
    helped: "the product is an interaction that shallow axis-aligned splits cannot build",
    hurt: "the interaction was noise, and one more column invited overfitting",
  },
  binning: {
    prior: 0.15,
    onResiduals: true,
    llm: true,
    helped: "coarse bins smoothed a noisy column",
    hurt: "binning threw away resolution the trees were using",
  },
  rare_group: {
    prior: 0.3,
    onResiduals: true,
    llm: true,
    helped: "pooling rare levels stopped the model fitting levels it saw only a few times",
    hurt: "the rare levels were informative",
  },
  frequency_encode: {
    prior: 0.4,
    onResiduals: true,
    llm: true,
    helped: "how common a level is predicts the target",
    hurt: "level frequency is unrelated to the target and adds noisy split candidates",
  },
  target_encode: {
    prior: 0.6,
    onResiduals: true,
    llm: true,
    helped: "a smoothed out-of-fold target mean summarises many levels in one split",
    hurt: "target means over few rows per level are noisy",
  },
  text_features: {
    prior: 0.8,
    onResiduals: false,
    llm: true,
    helped: "the text holds structure (a title, a maker, a length) that the encoders drop",
    hurt: "the text features split the data too thin",
  },
  group_stats: {
    prior: 0.5,
    onResiduals: true,
    llm: true,
    helped: "a value relative to its group says more than the value alone",
    hurt: "the group statistic added noise",
  },
  date_parts: {
    prior: 0.7,
    onResiduals: true,
    llm: false,
    helped: "the calendar (a season, a weekday, an hour) carries signal that a date's text or order hides",
    hurt: "the calendar parts were noise the model fitted",
  },
  drop_column: {
    prior: 0.1,
    onResiduals: false,
    llm: true,
    helped: "the column was noise the model fitted",
    hurt: "the column carried signal",
    neutral: "the model barely used the column",
  },
  capacity: {
    prior: 0.55,
    onResiduals: false,
    llm: false,
    helped: "the model's capacity was off for this data",
    hurt: "the new capacity over- or under-fits",
  },
  // Another model family is the first thing an AutoML engineer tries (it wins on small, mostly additive
  // data, and errs on other rows than a GBDT: what an ensemble needs); insights retire it once it is known.
  linear_model: {
    prior: 0.9,
    onResiduals: false,
    llm: false,
    helped: "the signal is mostly additive, which a regularised linear model fits with less variance",
    hurt: "the signal has interactions or thresholds a linear model cannot fit",
  },
  ensemble: {
    prior: 0,
    onResiduals: false,
    llm: false,
    helped: "the members err on different rows, so their average errs less",
    hurt: "the members err on the same rows, and the weaker ones dilute the best",
  },
  llm: {
    prior: 0,
    onResiduals: false,
    llm: false,
    helped: "the generated feature carries signal its parent lacked",
    hurt: "the generated feature added noise",
  },
} as const satisfies Record<string, FamilyCard>;

export type Family = keyof typeof FAMILIES;

const card = (f: Family): FamilyCard => FAMILIES[f];

/** Every family's name, in the table's order. */
export const FAMILY_NAMES = Object.keys(FAMILIES) as Family[];

/** The families an LLM may name, in the table's order. */
export const LLM_FAMILIES: readonly Family[] = FAMILY_NAMES.filter((f) => card(f).llm);

export const priorOf = (f: Family): number => card(f).prior;
export const onResiduals = (f: Family): boolean => card(f).onResiduals;
export const helpedWhy = (f: Family): string => card(f).helped;
export const hurtWhy = (f: Family): string => card(f).hurt;
export const neutralWhy = (f: Family): string | undefined => card(f).neutral;
