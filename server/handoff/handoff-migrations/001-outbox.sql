-- The handoff outbox: a visitor's message to a person, from the moment the visitor is told "Sent" until every channel
-- has it (then the row is deleted). Times are ms since the epoch, as the server's clock gives them.
CREATE TABLE handoff_outbox (
  id text PRIMARY KEY,
  created_at bigint NOT NULL,
  attempts integer NOT NULL,
  next_at bigint NOT NULL,
  -- A deliverer's claim: no other replica takes the row before this time.
  claimed_until bigint NOT NULL DEFAULT 0,
  pending text[] NOT NULL,
  message jsonb NOT NULL
);
CREATE INDEX handoff_outbox_next_at ON handoff_outbox (next_at);

-- Messages still undeliverable after a day, for the owner to look at and delete.
CREATE TABLE handoff_undeliverable (
  id text PRIMARY KEY,
  created_at bigint NOT NULL,
  set_aside_at bigint NOT NULL,
  pending text[] NOT NULL,
  message jsonb NOT NULL
);
