-- The knowledge store's first shape: the sources' states, the pages with their passages, the addresses not taken, and
-- one row per committed sync (replicas poll the newest to notice another's sync).
CREATE TABLE knowledge_sources (
  source text PRIMARY KEY,
  state text NOT NULL,
  synced_at timestamptz NOT NULL
);

CREATE TABLE knowledge_pages (
  source text NOT NULL,
  -- The sitemap's <loc> or the file's path under the folder; url is the page's own link.
  address text NOT NULL,
  url text NOT NULL,
  title text NOT NULL,
  language text NOT NULL,
  etag text,
  last_modified text,
  text_hash text NOT NULL,
  mtime_ms double precision,
  fetched_at timestamptz NOT NULL,
  changed_at timestamptz NOT NULL,
  -- [{ "headings": [...], "text": "...", "tokens": n }]: read whole with its page, never queried inside.
  passages jsonb NOT NULL,
  PRIMARY KEY (source, address)
);

CREATE TABLE knowledge_skipped (
  source text NOT NULL,
  url text NOT NULL,
  reason text NOT NULL,
  PRIMARY KEY (source, url)
);

CREATE TABLE knowledge_syncs (
  generation bigserial PRIMARY KEY,
  finished_at timestamptz NOT NULL DEFAULT now()
);
