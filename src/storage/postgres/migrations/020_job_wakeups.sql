-- Cross-process job wake-ups: a job that becomes queued (enqueued, retried, released, or failed with a retry)
-- sends NOTIFY lumen_jobs, so an idle runner in another process claims it at once instead of at its next poll.
-- The payload is empty: PostgreSQL folds identical notifications of one transaction into one, and a runner only
-- needs to know that it should claim. Polling stays the fallback (a listener that was reconnecting misses some).
CREATE FUNCTION jobs_notify_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('lumen_jobs', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER jobs_queued_notify
  AFTER INSERT OR UPDATE OF status, run_after ON jobs
  FOR EACH ROW WHEN (NEW.status = 'queued')
  EXECUTE FUNCTION jobs_notify_queued();
