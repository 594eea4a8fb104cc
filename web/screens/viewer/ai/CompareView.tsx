/**
 * Before and after, one over the other: the edited picture shows right of the split, the original left of it.
 * The split is a range input (arrow keys move it); "Show original" / "Show edit" flip it fully.
 */
import { useState } from 'preact/hooks';

export function CompareView(props: { before: string; after: string; label: string; ratio: number }) {
  const [split, setSplit] = useState(50);
  return (
    <div class="ai-compare-wrap">
      <div class="ai-compare" style={{ aspectRatio: `${props.ratio}` }}>
        <img class="ai-before" src={props.before} alt={`${props.label}, before editing`} />
        <img
          class="ai-after"
          src={props.after}
          alt={`${props.label}, after editing`}
          style={{ clipPath: `inset(0 0 0 ${split}%)` }}
        />
        <span class="ai-split" aria-hidden="true" style={{ left: `${split}%` }} />
      </div>
      <label class="ai-slider">
        <span>Before / after</span>
        <input
          type="range"
          min={0}
          max={100}
          value={split}
          aria-valuetext={`${100 - split}% of the picture shows the edit`}
          onInput={(e) => setSplit(Number(e.currentTarget.value))}
        />
      </label>
      <div class="ai-actions">
        <button type="button" aria-pressed={split === 100} onClick={() => setSplit(100)}>
          Show original
        </button>
        <button type="button" aria-pressed={split === 0} onClick={() => setSplit(0)}>
          Show edit
        </button>
      </div>
    </div>
  );
}
