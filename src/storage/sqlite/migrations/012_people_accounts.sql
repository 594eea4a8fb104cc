-- Accounts for people (issue #15): passwords, browser sessions, invites and the
-- sign-in failures behind the lockout. API keys are unchanged.

-- A PHC-style string: `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (src/features/accounts/passwords.ts),
-- so the parameters can change later; NULL: the user cannot sign in with a password (yet).
ALTER TABLE users ADD COLUMN password_hash TEXT;
-- Emails are stored lowercase by the code; sign-in looks them up without regard to case.
CREATE INDEX users_by_email_nocase ON users(email COLLATE NOCASE);

-- One row per sign-in. The cookie holds a random secret; only its sha256 is kept.
-- A session is live while revoked_at IS NULL, expires_at (absolute) is ahead and
-- last_seen_at is recent enough (idle limit, checked by the code).
CREATE TABLE sessions (
  id              TEXT PRIMARY KEY,
  user_id         TEXT NOT NULL REFERENCES users(id),
  -- The organization the session currently acts in (switchable).
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  secret_hash     TEXT NOT NULL UNIQUE,
  csrf_token      TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  last_seen_at    TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  revoked_at      TEXT,
  user_agent      TEXT,
  ip              TEXT
);
CREATE INDEX sessions_by_user ON sessions(user_id, created_at);

-- One-time invite links into an organization with a role. Only the token's sha256 is kept.
-- Pending: accepted_at IS NULL AND revoked_at IS NULL AND expires_at ahead.
CREATE TABLE invites (
  id              TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  email           TEXT NOT NULL,
  role            TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  token_hash      TEXT NOT NULL UNIQUE,
  invited_by      TEXT NOT NULL REFERENCES users(id),
  created_at      TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  accepted_at     TEXT,
  accepted_by     TEXT REFERENCES users(id),
  revoked_at      TEXT
);
CREATE INDEX invites_by_org ON invites(organization_id, created_at);

-- Failed sign-ins per (lowercased) email, known or not, for the lockout. Kept in the
-- database so a restart (or another process on the same file) does not reset it;
-- rows older than the lockout window are pruned as new ones arrive.
CREATE TABLE login_failures (
  email TEXT NOT NULL,
  at    TEXT NOT NULL
);
CREATE INDEX login_failures_by_email ON login_failures(email, at);
CREATE INDEX login_failures_by_at ON login_failures(at);
