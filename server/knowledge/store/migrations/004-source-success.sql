-- When each source was last read, apart from its last attempt (which may have failed): what the report says.
ALTER TABLE knowledge_sources ADD COLUMN succeeded_at timestamptz;
-- Until now a source's one time was that of its last attempt; one that did not fail then succeeded then.
UPDATE knowledge_sources SET succeeded_at = synced_at WHERE state NOT LIKE 'failed:%';
