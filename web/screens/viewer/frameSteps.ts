/** Moving a video to an analysed frame (the scene strip, the frame keys): seek to it, or step by a number of frames. */
import type { RefObject } from 'preact';
import { seconds, type Frame, type MediaItem } from './types';

export function frameSteps(
  media: MediaItem,
  frame: Frame | undefined,
  video: RefObject<HTMLVideoElement | null>,
  setTime: (t: number) => void,
) {
  const seek = (f: Frame) => {
    if (video.current) video.current.currentTime = seconds(f);
    setTime(seconds(f));
  };
  const step = (delta: number) => {
    const at = frame ? media.frames.indexOf(frame) : 0;
    const next = media.frames[Math.min(media.frames.length - 1, Math.max(0, at + delta))];
    if (next) seek(next);
  };
  return { seek, step };
}
