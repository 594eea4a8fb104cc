/**
 * A Live Photo's movie over its still (the server keeps the movie on the still: `livePhoto.motionUrl`):
 * a "Live" button in the corner; while the pointer is on it, or it is held down (mouse, touch, Space or Enter),
 * the movie plays muted over the picture, and the still shows again when it ends or is let go.
 */
import { useState } from 'preact/hooks';

export function LiveMotion(props: { motionUrl: string; label: string }) {
  const [playing, setPlaying] = useState(false);
  const start = () => setPlaying(true);
  const stop = () => setPlaying(false);
  const isHoldKey = (e: KeyboardEvent) => e.key === ' ' || e.key === 'Enter';
  return (
    <>
      {playing && (
        <video
          class="live-motion"
          src={props.motionUrl}
          autoPlay
          muted
          playsInline
          aria-label={`Live Photo movie: ${props.label}`}
          onEnded={stop}
        />
      )}
      <button
        type="button"
        class="live-badge"
        aria-pressed={playing}
        title="Live Photo: hover or hold to play its movie"
        onPointerEnter={start}
        onPointerLeave={stop}
        onPointerDown={start}
        onPointerUp={stop}
        onKeyDown={(e) => {
          if (!isHoldKey(e)) return;
          e.preventDefault();
          start();
        }}
        onKeyUp={(e) => isHoldKey(e) && stop()}
      >
        Live
      </button>
    </>
  );
}
