-- The rounds of questions to the client a recorded call played (a scenario,
-- prompt or resource that asks): a JSON array of
-- {"asked", "sent", "answers", "branch", "timed_out"} (journal.Round), empty
-- for every other call. The journal writer bounds it (journal.MaxRounds
-- bytes of JSON, journal.MaxRoundValue for one question or answer) before
-- it gets here.

-- +goose Up
ALTER TABLE mcp_journal ADD COLUMN rounds jsonb NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE mcp_journal DROP COLUMN rounds;
