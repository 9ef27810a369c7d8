-- The sync lock as a lease (it replaces an advisory lock, which a holder whose host vanished kept until its TCP
-- connection timed out): who holds it, the session it holds it from, and when it ends unless renewed. One row at most.
CREATE TABLE knowledge_sync_lock (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  owner text NOT NULL,
  holder text NOT NULL,
  backend_pid integer NOT NULL,
  expires_at timestamptz NOT NULL
);
