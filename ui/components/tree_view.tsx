/// <reference lib="dom" />
/**
 * A tree-mode run: the hypothesis tree (fill = status, the admitted path drawn bold), a node's hypothesis,
 * insight, scores and module on click, the incidents, a chart of dev and held-out gain over cycles, and a
 * replay player over the steps. Every string that came from an ideator, an LLM or a CSV is rendered as
 * text, never as HTML.
 *
 * @module
 */
import { narrate } from "../../src/record/narrate.ts";
import type { TreeEvent, TreeNode, TreeState } from "../../src/tree/types.ts";
import {
  admittedPath,
  chartPoints,
  layoutTree,
  TREE_STATUS_LOOK,
  type TreeModel,
} from "../models/tree_model.ts";
import { Icon } from "./icons.tsx";
import { LlmUse } from "./llm_use.tsx";

const f4 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(4));
const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + "…" : s);
const R = 22;

function Tree({ s, model }: { s: TreeState; model: TreeModel }) {
  const l = layoutTree(s);
  const pos = new Map(l.nodes.map((p) => [p.id, p]));
  const path = admittedPath(s);
  const picked = model.selected.value;
  return (
    <svg
      class="tree"
      viewBox={`0 0 ${l.width} ${l.height}`}
      style={{ width: "100%", maxHeight: "60vh" }}
      role="img"
    >
      {l.edges.map((e) => {
        const a = pos.get(e.from)!, b = pos.get(e.to)!;
        return (
          <line
            key={`${e.from}-${e.to}`}
            class={`tedge${e.admitted ? " admitted" : ""}`}
            x1={a.x}
            y1={a.y + R}
            x2={b.x}
            y2={b.y - R}
            stroke={e.admitted ? "#15803d" : "#94a3b8"}
            stroke-width={e.admitted ? 4 : 1.5}
          />
        );
      })}
      {l.nodes.map((p) => {
        const n = s.nodes[p.id]!;
        const look = TREE_STATUS_LOOK[n.status];
        const onPath = path.has(n.id);
        return (
          <g
            key={n.id}
            class="tnode"
            data-node={n.id}
            data-status={n.status}
            data-admitted={String(onPath)}
            transform={`translate(${p.x},${p.y})`}
            style={{ cursor: "pointer" }}
            onClick={() => model.select(n.id)}
          >
            <title>{`${n.id}: ${n.hypothesis?.text ?? "the starting artifact"} (${n.status})`}</title>
            <circle
              r={R}
              fill={look.fill}
              stroke={n.id === picked ? "#1d4ed8" : onPath ? "#14532d" : "#1e293b"}
              stroke-width={n.id === picked || onPath ? 4 : 1.5}
            />
            <text y={-3} fill={look.ink} text-anchor="middle" font-size="12" font-weight="700">{n.id}</text>
            <text y={11} fill={look.ink} text-anchor="middle" font-size="9">
              {n.dev ? n.dev.mean.toFixed(3) : n.status === "failed-informative" ? "failed" : "…"}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function Chart({ s }: { s: TreeState }) {
  const pts = chartPoints(s);
  if (pts.length < 2) return <p class="quiet">The chart fills in as cycles end.</p>;
  const w = 520, h = 180, pad = 30;
  const ys = pts.flatMap((p) => [p.dev, p.heldout, 0]);
  const lo = Math.min(...ys), hi = Math.max(...ys);
  const span = hi - lo || 1;
  const maxC = Math.max(...pts.map((p) => p.cycle), 1);
  const x = (c: number) => pad + ((w - 2 * pad) * c) / maxC;
  const y = (v: number) => h - pad - ((h - 2 * pad) * (v - lo)) / span;
  const line = (k: "dev" | "heldout") => pts.map((p) => `${x(p.cycle)},${y(p[k])}`).join(" ");
  return (
    <svg class="tree-chart" viewBox={`0 0 ${w} ${h}`} style={{ width: "100%" }} role="img">
      <line x1={pad} x2={w - pad} y1={y(0)} y2={y(0)} stroke="#cbd5e1" />
      <polyline data-series="dev" points={line("dev")} fill="none" stroke="#2563eb" stroke-width={2} />
      <polyline
        data-series="heldout"
        points={line("heldout")}
        fill="none"
        stroke="#16a34a"
        stroke-width={2}
      />
      <text x={pad} y={14} font-size="11" fill="#2563eb">best dev gain</text>
      <text x={pad + 110} y={14} font-size="11" fill="#16a34a">incumbent held-out gain</text>
      <text x={w - pad} y={h - 8} font-size="10" text-anchor="end" fill="#64748b">cycle {maxC}</text>
      <text x={4} y={y(hi) + 4} font-size="10" fill="#64748b">{hi.toFixed(3)}</text>
      <text x={4} y={y(lo) + 4} font-size="10" fill="#64748b">{lo.toFixed(3)}</text>
    </svg>
  );
}

function Details({ s, n }: { s: TreeState; n: TreeNode }) {
  const h = n.hypothesis;
  const source = h?.step?.source ?? null;
  return (
    <div class="tree-details" data-node={n.id}>
      <h3>
        {n.id} <small>{n.status}</small>
      </h3>
      <p class="hyp-text">{h?.text ?? "The starting artifact: the raw columns and the default model."}</p>
      <dl>
        <dt>family</dt>
        <dd>
          {h ? `${h.family}${h.columns.length ? ` (${h.columns.join(", ")})` : ""} — ${h.source}` : "—"}
        </dd>
        <dt>dev</dt>
        <dd>{n.dev ? `${f4(n.dev.mean)} ± ${f4(n.dev.std)} over ${n.dev.folds.length} folds` : "—"}</dd>
        <dt>claimed</dt>
        <dd>{f4(n.claimed)}</dd>
        <dt>held-out</dt>
        <dd>{`${f4(n.heldout)}${n.gate ? ` (${n.gate})` : ""}`}</dd>
        <dt>test</dt>
        <dd>{f4(n.test)}</dd>
        <dt>visits</dt>
        <dd>{n.visits}</dd>
      </dl>
      {n.insight && <p class="insight-text">{n.insight.sentence}</p>}
      {n.lesson && <p class="lesson-text">Lesson: {n.lesson}</p>}
      {n.summary && <p class="summary-text">{n.summary}</p>}
      {s.incumbent === n.id && <p>This is the incumbent: the artifact the merge gate last admitted.</p>}
      {source && (
        <details>
          <summary>module ({h!.step!.path})</summary>
          <pre class="module-source">{source}</pre>
        </details>
      )}
    </div>
  );
}

function said(s: TreeState, ev: TreeEvent | undefined): string {
  if (!ev) return "";
  switch (ev.e) {
    case "init":
      return `Started: ${s.dataset.rows} rows, ${s.dataset.dev} dev in ${s.dataset.folds} folds; measuring the starting artifact.`;
    case "proposed":
      return `Cycle ${s.cycle}: expanding ${ev.parent} with ${ev.hypotheses.length} hypothesis(es).`;
    case "executed":
      return ev.results.map((r) => {
        const n = s.nodes[r.node]!;
        return `${n.id} ${n.status}${n.dev ? ` (dev ${f4(n.dev.mean)})` : ""}`;
      }).join(", ");
    case "gated":
      return `Merge gate on ${ev.node}: held-out ${f4(ev.score)} → ${s.nodes[ev.node]!.gate}.`;
    case "verdict":
      return `${s.verdict}: final test ${f4(s.final?.start)} → ${f4(s.final?.best)}.`;
  }
}

export function TreeView({ model, id }: { model: TreeModel; id: string }) {
  const phase = model.phase.value;
  if (phase === "missing") {
    return (
      <main class="run-page">
        <p class="error">Cannot open this tree run: {model.error.value}</p>
        <a href="/">All runs</a>
      </main>
    );
  }
  const s = model.state.value;
  const at = model.at.value;
  const picked = s && model.selected.value ? s.nodes[model.selected.value] : undefined;
  const line = s ? model.incidents.value : [];
  return (
    <main class="run-page tree-page" data-phase={phase} data-at={at}>
      <header class="top">
        <a class="home" href="/">← runs</a>
        <h1>
          {s?.scenario ?? "…"} <small>{id}</small>
        </h1>
        <span class={`phase phase-${phase}`}>{phase}</span>
        <span class={`verdict${s?.verdict ? " final" : ""}`} data-verdict={s?.verdict ?? ""}>
          {s?.verdict ?? "no verdict yet"}
        </span>
        <LlmUse
          u={model.llm.value}
          title="The LLM ideator's use so far: calls, tokens, cost as the API reported it"
        />
      </header>
      {s && (
        <p class="question">
          {`Target ${s.dataset.target} (${s.dataset.task}), metric ${s.config.metric}; search ${s.config.search}, ` +
            `ideator ${s.config.ideator}, insights ${
              s.config.insights ? "on" : "off"
            }; ${s.order.length} nodes, ` +
            `held-out queries ${s.heldout.used}/${s.heldout.budget}.`}
        </p>
      )}
      <section class="narration">
        <p class="now">{s ? said(s, model.lastEvent(at)) : "Loading…"}</p>
      </section>
      <section class="graph-panel" aria-label="Hypothesis tree">
        {s ? <Tree s={s} model={model} /> : <p class="graph-empty">Loading the tree…</p>}
        <div class="player" data-at={at}>
          <div class="controls" role="toolbar" aria-label="Replay">
            <button
              type="button"
              data-act="start"
              onClick={() => model.seek(0)}
              aria-label="To the first step"
            >
              <Icon name="start" />
            </button>
            <button type="button" data-act="back" onClick={() => model.stepBy(-1)} aria-label="Step back">
              <Icon name="back" />
            </button>
            <button type="button" data-act="play" class="primary" onClick={model.toggle}>
              <Icon name={model.playing.value ? "pause" : "play"} /> {model.playing.value ? "pause" : "play"}
            </button>
            <button type="button" data-act="step" onClick={() => model.stepBy(1)} aria-label="Step forward">
              <Icon name="step" />
            </button>
            <button
              type="button"
              data-act="end"
              onClick={() => model.seek(null)}
              aria-label="To the newest step"
            >
              <Icon name="end" />
            </button>
            <input
              class="scrubber"
              type="range"
              min={0}
              max={Math.max(0, model.last.value)}
              value={Math.max(0, at)}
              onInput={(e) => model.seek(Number((e.target as HTMLInputElement).value))}
              aria-label="Step"
            />
            <span class="tickno">step {s?.tick ?? 0}</span>
          </div>
        </div>
        <p class="legend">
          {Object.entries(TREE_STATUS_LOOK).map(([k, v]) => (
            <span key={k} style={{ marginRight: "0.8rem" }}>
              <svg width="12" height="12" style={{ verticalAlign: "-1px", marginRight: "0.25rem" }}>
                <circle cx="6" cy="6" r="5" fill={v.fill} stroke="#1e293b" />
              </svg>
              {k}
            </span>
          ))}
          <span>— bold: the admitted path</span>
        </p>
      </section>
      <section class="incident-panel" aria-label="Node">
        <h2>Node</h2>
        {s && picked
          ? <Details s={s} n={picked} />
          : <p class="quiet">Click a node to see its hypothesis and insight.</p>}
        <h2>Incidents</h2>
        <ul class="incidents">
          {line.map(({ incident }, k) => (
            <li key={k} class="incident" data-incident-type={incident.type} data-node={incident.node}>
              <span class="itick">{incident.tick}</span>
              <span class="itype">{incident.type}</span>
              <span class="itext">{narrate(incident)}</span>
            </li>
          ))}
        </ul>
      </section>
      <section class="metrics-panel" aria-label="Gain over cycles">
        <h2>Gain over cycles</h2>
        {s && <Chart s={s} />}
      </section>
      <section class="report-panel" aria-label="Insights">
        <h2>Insights</h2>
        <ul>
          {s?.order.map((nid) => s.nodes[nid]!).filter((n) => n.insight).map((n) => (
            <li key={n.id} data-node={n.id}>
              <b>{n.id}</b> {clip(n.insight!.sentence, 400)}
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
