/// <reference lib="dom" />
/**
 * Replay controls: to start, step back, play/pause, step, to end (or back to live), speed and a scrubber.
 * When playback pauses by itself on an incident that matters, a banner says which.
 *
 * @module
 */
import { type PlayerModel, SPEEDS } from "../models/player_model.ts";
import { Icon } from "./icons.tsx";

export function PlayerBar({ player }: { player: PlayerModel }) {
  const playing = player.playing.value;
  const frozen = player.frozenOn.value;
  const live = player.live.value;
  const following = player.follow.value;
  return (
    <div
      class="player"
      data-playing={String(playing)}
      data-tick={player.tick.value}
      data-following={String(following)}
      data-frozen={frozen?.type ?? ""}
    >
      <div class="controls" role="toolbar" aria-label="Replay player">
        <button
          type="button"
          data-act="start"
          title="To the first tick"
          onClick={player.toStart}
          aria-label="To the first tick"
        >
          <Icon name="start" />
        </button>
        <button
          type="button"
          data-act="back"
          title="Step back (←)"
          onClick={() => player.step(-1)}
          aria-label="Step back"
        >
          <Icon name="back" />
        </button>
        <button
          type="button"
          data-act="play"
          class="primary"
          title="Play / pause (space)"
          onClick={player.toggle}
        >
          <Icon name={playing ? "pause" : "play"} /> {playing ? "pause" : "play"}
        </button>
        <button
          type="button"
          data-act="step"
          title="Step forward (→)"
          onClick={() => player.step(1)}
          aria-label="Step forward"
        >
          <Icon name="step" />
        </button>
        <button
          type="button"
          data-act="end"
          class={live && following ? "live on" : live ? "live" : ""}
          title={live ? "Follow the live run" : "To the last tick"}
          onClick={player.toEnd}
        >
          {live ? "● live" : <Icon name="end" />}
        </button>
        <label class="speed">
          speed{" "}
          <select
            value={String(player.speed.value)}
            onChange={(e) => player.setSpeed(Number((e.currentTarget as HTMLSelectElement).value))}
          >
            {SPEEDS.map((s) => <option key={s} value={String(s)}>{s}×</option>)}
          </select>
        </label>
        <input
          type="range"
          class="scrubber"
          aria-label="Tick"
          min={0}
          max={player.last.value}
          value={player.cursor.value}
          onInput={(e) => player.seek(Number((e.currentTarget as HTMLInputElement).value))}
        />
        <span class="tickno">tick {player.tick.value} / {player.lastTick.value}</span>
      </div>
      {frozen && (
        <p class="frozen" role="status">
          Paused on <strong>{frozen.type}</strong> ({frozen.node}, tick {frozen.tick}) — press play to go on.
        </p>
      )}
    </div>
  );
}
