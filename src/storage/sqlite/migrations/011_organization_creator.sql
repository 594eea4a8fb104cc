-- The API key that created an organization (POST /api/auth/organization/create).
-- A key acts in its own organization only; the one exception is minting keys in
-- an organization that this very key created, the only way into a new one
-- (src/features/accounts/auth.ts createKey). NULL for organizations made at
-- bootstrap or before this migration.
ALTER TABLE organizations ADD COLUMN created_by_key_id TEXT;
