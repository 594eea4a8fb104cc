/**
 * A video's analysed frames under the player: thumbnail, timestamp and caption; choosing one seeks the
 * video there. The frame being played is marked (aria-current) and scrolled into view.
 */
import { useEffect, useRef } from 'preact/hooks';
import { clock } from '../search/ResultTile';
import { seconds, thumbOf, type Frame } from './types';

export function SceneStrip(props: { frames: Frame[]; currentId: string | null; onSeek: (frame: Frame) => void }) {
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const el = list.current?.querySelector<HTMLElement>('[aria-current="true"]');
    el?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [props.currentId]);
  return (
    <ol class="scene-strip" ref={list} aria-label="Analysed frames">
      {props.frames.map((f) => {
        const caption = f.captions[0]?.text ?? '';
        return (
          <li key={f.id}>
            <button
              type="button"
              class="scene"
              data-frame-id={f.id}
              data-seconds={seconds(f)}
              aria-current={props.currentId === f.id ? 'true' : undefined}
              onClick={() => props.onSeek(f)}
            >
              <img src={thumbOf(f)} alt="" loading="lazy" />
              <span class="scene-time">{clock(seconds(f))}</span>
              <span class="scene-caption">{caption || 'No caption'}</span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}
