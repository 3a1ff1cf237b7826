/**
 * The text of `arrow tree --help`: what tree mode does, every flag, the files a run leaves, the exit codes.
 *
 * @module
 */
import { GATE_ALPHA } from "../tree/mod.ts";

export const help = `Usage: arrow tree --data FILE.csv --target COLUMN [options]
       arrow tree --resume RUN [--json] [--serve]
       arrow tree predict RUN|latest NEW.csv [-o OUT.csv] [--delimiter C] [--runs-dir DIR]

Grows a tree of feature-engineering hypotheses on your CSV, Arbor-style. The data is cut once, seeded and
stratified, into dev rows (k-fold cross-validation: all any hypothesis ever sees), held-out rows (read only by
the merge gate) and final-test rows (scored once, at the end, for the starting and the best artifact).

Each cycle: pick a node to expand (UCB over dev gain with visit counts), ideate hypotheses under it (missing
indicators, log/ratio/product, binning, rare levels, frequency and out-of-fold target encoding, text features,
group statistics, a date column's calendar (year, month, weekday, …), dropping a column, whole-model settings,
a regularised linear model with its strength chosen by inner cross-validation or fixed, ensembles of
evaluated nodes — or an LLM's own module), screen
three times as many as there are executors on one or two dev folds and keep those whose gain the held-out
rows are likeliest to confirm (--screen), run each in its own sandboxed executor (a Deno child that can
read only its dev rows and its scope and write only its scope; under bubblewrap the rest of the data is not
even there),
recompute its claimed dev score from its artifact (and which columns it relies on), distil an insight
(helped / hurt / neutral / failed: the node's out-of-fold per-row losses paired with its parent's on every
dev row, labelled only beyond their noise) and pass it up the tree, and once the cycles are spent, send the
node the held-out rows are likeliest to confirm to the merge gate (of those whose dev score beats the
start's, the one whose out-of-fold per-row loss promises the largest gain those rows can confirm; with
--gate-at cycle, each cycle's best newcomer that beats the incumbent on the same folds beyond noise):
admitted only if its held-out score
beats the incumbent's by ACCEPT_EPS (0.003) and a paired test over the held-out rows' losses (the mean
difference's z) clears a bar set so that, over all of the run's planned queries, a
candidate with no real effect is admitted at most ${GATE_ALPHA * 100} % of the time (Bonferroni; a gain within
the held-out part's noise is not admitted). Each fold runs an LLM's (or any untrusted) code in a fresh worker,
so nothing it remembers reaches the next fold; the library's own modules, checked by content hash, run beside
the model. A child that goes silent is stopped and blamed. Failing code becomes a failed-informative node with
its lesson. Everything is persisted in SQLite every step: after a crash, --resume continues with nothing lost.

Options:
  --data <file.csv>        The data, UTF-8 or UTF-16 with its byte-order mark, or gzip-compressed (.csv.gz)
                           (header line; missing: empty, NA, ?, NaN; in a numeric column, a few stray
                           texts such as inf or unknown are read as missing, and said; $1,200.50, (300)
                           and 12% are read as 1200.5, -300 and 12, and said; row names as R's write.csv
                           or pandas' to_csv write them are set aside). A workbook (.xlsx, .xls) or a
                           Parquet file is refused with what to save instead
  --delimiter <c>          What separates its columns: , ; \\t (or tab) | (default ,); with any but a comma,
                           numbers written with a decimal comma (0,5, as R's write.csv2 and spreadsheets in
                           such locales save them) are read as numbers, and said; a first line sep=;
                           (as Excel reads it) declares the delimiter itself
  --target <column>        The column to predict (task inferred: regression, binary, multiclass);
                           a class target needs about two rows a class or more (a name per row is refused)
  --metric <m>             accuracy | auc | logloss (classification), r2 | rmse | mae (regression);
                           default accuracy or r2
  --cycles <n>             Cycles to run (default 10)
  --executors <p>          Hypotheses tested per cycle, in parallel (default 2)
  --seed <s>               Seed of the splits, the model and every random choice (default 0)
  --ideator library|llm    Where hypotheses come from (default library: offline, deterministic). llm uses
                           ARROW_LLM_BASE_URL, ARROW_LLM_API_KEY, ARROW_LLM_MODEL (or --model)
  --model <name>           The LLM model (with --ideator llm)
  --search tree|random|greedy
                           tree: UCB over the tree (default); random: uniform parent and hypothesis, same
                           budget; greedy: always extend the incumbent
  --start default|weak|<artifact.json>
                           The starting artifact: default (the toolkit's default model on the raw columns),
                           weak (10 stages of depth-1 stumps, so a benchmark can show a climb), or an
                           artifact.json ({"format":"arrow-tree-artifact/1","steps":["steps/x.ts"],
                           "model":{…}}, its steps beside it; they run as untrusted code)
  --no-insights            Ideate without the branch's insights (the ablation)
  --screen <k>             Successive halving (tree search, library ideator): each cycle screens k ×
                           executors candidates on one or two dev folds and measures the best executors of
                           them in full (default 3; 1 screens nothing)
  --heldout-budget <n>     Most held-out queries, the baseline's included (default 2; with --gate-at
                           cycle, cycles + 1)
  --gate-at end|cycle      When the merge gate is asked: end (default): once the cycles are spent, for the
                           node whose dev rows beat the start's most steadily (then the next while
                           queries remain) — one comparison, so the strictest bar is the lowest; cycle:
                           after each cycle, for that cycle's best newcomer, the incumbent moving as nodes
                           are admitted
  --observe-every <s>      Observation pace of every child (executor, recomputation, gate) in seconds; a fold
                           with no sign of life for 3 observations = hung (default 10)
  --budget-seconds <s>     Wall budget of one executor attempt (default 600)
  --runtime local|slurm    Where executors run (default local). slurm: each executor attempt is a batch job
                           on the cluster $SLURM_CONF names, watched through the shared filesystem with the
                           same hang rule and budget; screens, recomputation, merge gate and final test stay
                           local
  --runs-dir <dir>         Where run directories go (default ./runs)
  --resume <run>           Continue an interrupted run (a path, or a run id in the runs directory)
  --unsandboxed            Allow LLM-written code to run without bubblewrap (Deno permissions only)
  --serve                  Serve the live dashboard (tree view) while the run goes
  --port <n>, --host <h>   Dashboard address with --serve (default 127.0.0.1:8765)
  --json                   Print one JSON object at the end: {"mode":"tree","run_dir","metric","direction",
                           "verdict","cycles","node_count","nodes":[{id,parent,status,hypothesis,dev,
                           heldout}…],"heldout_queries","start":{…},"best":{…},"references":{start,
                           admitted,admitted_refit,strong_default,trivial},"flags","warnings",
                           "dropped_columns","splits" (splits.json),"model" (model/model.json),
                           "incidents":[…]}
  -h, --help

After the search the admitted artifact is refit on dev + held-out (sandboxed, like every child) and scored
once on the final test beside the start, its dev-only fit, a strong default (GBDT: 300 stages, lr 0.05,
depth 5, subsample 0.8, min leaf 20, on dev + held-out) and a trivial baseline (class shares or the mean);
the run is flagged when the admitted result does not beat the trivial baseline or falls below the strong
default. An id-like column (a consecutive integer counter, or unique space-free values that are not
dates) is left out; a date on every row (a daily series) is kept and read by the date family.

arrow tree predict: the run's saved model (model/) predicts every row of NEW.csv with the same columns and
encoders (CSV: row, any id column, prediction, and p_<class> per class). A missing column is an error that
names it; extra columns are ignored (said on stderr). It runs in-process because it runs only Arrow's code:
a model with a step the library did not write is refused.

Files: runs/<id>/tree.db (SQLite, the authority), tree/replay.jsonl (one line per step), incidents.jsonl,
state.json, report/report.md, splits.json (the rows of each part), model/ (the refit model), nodes/<id>/
(each executor's scope: artifact.json, steps/, metrics.jsonl, results.json), logs/.

Exit codes: 0 the run completed (whatever it found), 1 usage or input error, 2 internal failure,
130 interrupted (continue with --resume).`;
