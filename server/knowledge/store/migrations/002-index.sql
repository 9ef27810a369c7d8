-- The index built from the pages, kept so that a start loads it rather than indexing every passage again; the
-- fingerprint names the pages (and the index's format) it was built from. One row.
CREATE TABLE knowledge_index (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  fingerprint text NOT NULL,
  data text NOT NULL
);
