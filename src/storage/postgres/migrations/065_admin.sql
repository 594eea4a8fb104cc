-- Admin screens (issue #28): when an API key last authenticated a request (written at most once a minute).
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
