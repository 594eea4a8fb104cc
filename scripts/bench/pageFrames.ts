/**
 * The frames a search page shows, read two ways over the same items (part of
 * the search-api section): only the frames shown (storage.media.pickFrames,
 * what GET /api/search does) against every frame of each item with its
 * captions and objects (storage.media.frames). Twenty video results of 300
 * frames each (the sampling cap for a long video), each frame with a caption
 * and two objects, in an in-memory library of 200 such videos.
 */
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { measure, type BenchRow } from './harness.js';

const VIDEOS = 200;
const FRAMES = 300;
const PAGE = 20;

export async function measurePageFrames(reps: number): Promise<BenchRow> {
  const s = openSqliteStorage(':memory:');
  try {
    const db = s.db;
    db.pragma('foreign_keys = OFF'); // items only: no organization or collection rows needed for these reads
    const at = new Date().toISOString();
    const media = db.prepare(
      `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, mime_type, width, height, size_bytes,
         processing_status, root_id, is_current, created_at, updated_at, created_by)
       VALUES (?, 'ds', 'org', ?, '/', 'video', 'clip.mp4', 'k', 'video/mp4', 640, 480, 1, 'ready', ?, 1, ?, ?, 'bench')`,
    );
    const frame = db.prepare(
      `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, metadata, created_at, updated_at, created_by)
       VALUES (?, ?, ?, ?, 'fk', 640, 480, '{}', ?, ?, 'bench')`,
    );
    const caption = db.prepare(
      `INSERT INTO captions (id, frame_id, media_id, text, model, source, created_at, updated_at, created_by) VALUES (?, ?, ?, 'a dog on a beach', 'm', 'model', ?, ?, 'model')`,
    );
    const object = db.prepare(
      `INSERT INTO detected_objects (id, frame_id, media_id, type, label, blob_key, polygon, confidence, model, similarity_model, source, created_at, updated_at)
       VALUES (?, ?, ?, 'object', 'dog', 'b', '[]', 0.5, 'det', 'objects', 'model', ?, ?)`,
    );
    const hex = (kind: number, n: number) => kind.toString(16).padStart(8, '0') + n.toString(16).padStart(24, '0');
    db.transaction(() => {
      let n = 0;
      for (let v = 0; v < VIDEOS; v++) {
        const m = hex(1, v);
        media.run(m, `/${m}`, m, at, at);
        for (let f = 0; f < FRAMES; f++) {
          const id = hex(2, v * FRAMES + f);
          frame.run(id, m, String(f * 10), f * 10, at, at);
          caption.run(hex(3, n++), id, m, at, at);
          object.run(hex(4, n++), id, m, at, at);
          object.run(hex(4, n++), id, m, at, at);
        }
      }
    })();
    // A page: one frame from the middle of each of 20 videos spread over the library.
    const page = Array.from({ length: PAGE }, (_, i) => {
      const v = Math.floor((i * VIDEOS) / PAGE);
      return { mediaId: hex(1, v), frameId: hex(2, v * FRAMES + FRAMES / 2) };
    });
    const picked = await s.media.pickFrames(page);
    const all = await s.media.frames(page.map((p) => p.mediaId));
    const same = page.every(
      (p, i) => JSON.stringify(picked[i]) === JSON.stringify(all.get(p.mediaId)?.find((f) => f.id === p.frameId)),
    );
    return {
      id: 'search-api.pageFrames',
      label: `a search page's frames: ${PAGE} video results (${FRAMES} frames each), only the frames shown (pickFrames)`,
      ours: await measure(() => s.media.pickFrames(page), { reps, warmup: 3 }),
      baseline: {
        label: 'every frame of each item (frames())',
        stats: await measure(() => s.media.frames(page.map((p) => p.mediaId)), { reps, warmup: 3 }),
      },
      check: { ok: same, text: same ? 'the same frame details' : 'the frames differ' },
    };
  } finally {
    await s.close();
  }
}
