/// <reference lib="dom" />
/**
 * The narration bar: the latest event in one plain sentence, with the few before it fading out above.
 *
 * @module
 */
import { LADDER_LOOK, STATUS_LOOK } from "../lib/palette.ts";
import type { Sentence } from "../lib/narration.ts";
import type { ViewModel } from "../models/view_model.ts";

function accent(s: Sentence): string {
  if (s.kind === "incident" || s.kind === "spawn") {
    return LADDER_LOOK[s.tone as keyof typeof LADDER_LOOK]?.fill ?? "#475569";
  }
  if (s.kind === "status") return STATUS_LOOK[s.tone as keyof typeof STATUS_LOOK]?.fill ?? "#475569";
  return s.kind === "verdict" ? "#0f172a" : "#475569";
}

export function NarrationBar({ view }: { view: ViewModel }) {
  const all = view.narration.value;
  const latest = all.at(-1);
  return (
    <section class="narration" aria-live="polite" aria-label="Narration">
      <ol class="earlier">
        {all.slice(0, -1).map((s, k) => <li key={`${s.tick}-${k}-${s.text}`}>t{s.tick} · {s.text}</li>)}
      </ol>
      <p
        class={`now kind-${latest?.kind ?? "none"}`}
        style={{ borderLeftColor: latest ? accent(latest) : undefined }}
      >
        {latest
          ? (
            <>
              <span class="ntick">t{latest.tick}</span> {latest.text}
            </>
          )
          : "Waiting for the run to start…"}
      </p>
    </section>
  );
}
