-- Each user's last bulk action per organization (POST /api/media/bulk), with exactly what it changed, so that
-- POST /api/media/bulk/{actionId}/undo reverses that: `changes` is a JSON array of
-- {id, a: [[group, value]] added, r: [[group, value]] removed} or {id, from: parent path before a move}.
CREATE TABLE bulk_actions (
  id              TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL,
  user_id         TEXT NOT NULL,
  operation       TEXT NOT NULL,
  changed_count   INTEGER NOT NULL,
  changes         TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  undone_at       TEXT
);
CREATE INDEX bulk_actions_user ON bulk_actions (organization_id, user_id);
