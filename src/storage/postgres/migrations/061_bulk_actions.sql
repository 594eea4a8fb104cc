-- Each user's last bulk action per organization (POST /api/media/bulk), with exactly what it changed, so that
-- POST /api/media/bulk/{actionId}/undo reverses that: `changes` is a JSON array of
-- {id, a: [[group, value]] added, r: [[group, value]] removed} or {id, from: parent path before a move}.
CREATE TABLE bulk_actions (
  id              text PRIMARY KEY,
  organization_id text NOT NULL,
  user_id         text NOT NULL,
  operation       text NOT NULL,
  changed_count   integer NOT NULL,
  changes         text NOT NULL,
  created_at      timestamptz NOT NULL,
  undone_at       timestamptz
);
CREATE INDEX bulk_actions_user ON bulk_actions (organization_id, user_id);
