-- Idempotency keys of the field app (issue 27, docs/field-app.md "Idempotency keys"): the answer
-- to an app call made with a key, so the same call sent again (its answer was lost) is answered
-- the same and not carried out twice. Kept 30 days, as the task feed; gone with the token.
CREATE TABLE app_requests (
  token_id INTEGER NOT NULL REFERENCES app_tokens(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  path TEXT NOT NULL,
  answer TEXT NOT NULL,
  created INTEGER NOT NULL,
  PRIMARY KEY (token_id, key)
) WITHOUT ROWID;
CREATE INDEX app_requests_created ON app_requests(created);
