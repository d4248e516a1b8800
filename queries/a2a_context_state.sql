-- name: GetA2AContextState :one
-- A context's state and its version: {} (version 0) until something
-- changed it.
SELECT COALESCE((SELECT st.state FROM a2a_context_state st
                 WHERE st.agent_card_id = @agent_card_id AND st.context_id = @context_id), '{}')::jsonb AS state,
       COALESCE((SELECT st.version FROM a2a_context_state st
                 WHERE st.agent_card_id = @agent_card_id AND st.context_id = @context_id), 0)::bigint AS version;

-- name: ChangeA2AContextState :one
-- Sets the keys of @sets and deletes those of @deletes in one statement,
-- from {} when the context has no state yet; no row when the state it
-- would leave is larger than @max_bytes (nothing changes then).
INSERT INTO a2a_context_state AS st (agent_card_id, organization_id, context_id, state, version)
SELECT c.id, c.organization_id, sqlc.arg(context_id)::text, ('{}'::jsonb || sqlc.arg(sets)::jsonb) - sqlc.arg(deletes)::text[], 1
FROM agent_cards c
WHERE c.id = sqlc.arg(agent_card_id)::uuid
  AND octet_length((('{}'::jsonb || sqlc.arg(sets)::jsonb) - sqlc.arg(deletes)::text[])::text) <= sqlc.arg(max_bytes)::int
ON CONFLICT (agent_card_id, context_id) DO UPDATE
SET state = (st.state || sqlc.arg(sets)::jsonb) - sqlc.arg(deletes)::text[], version = st.version + 1, updated_at = clock_timestamp()
WHERE octet_length(((st.state || sqlc.arg(sets)::jsonb) - sqlc.arg(deletes)::text[])::text) <= sqlc.arg(max_bytes)::int
RETURNING st.state, st.version;

-- name: TrimA2AContextStates :execrows
-- Keeps the states of a card's most recently changed contexts only.
DELETE FROM a2a_context_state d
WHERE d.agent_card_id = sqlc.arg(card_id)::uuid AND d.context_id IN (
    SELECT s.context_id FROM a2a_context_state s WHERE s.agent_card_id = sqlc.arg(card_id)::uuid
    ORDER BY s.updated_at DESC, s.context_id DESC OFFSET sqlc.arg(keep)::int);

-- name: A2AContextCardExists :one
-- Whether the card is the organization's: tells a change refused for its
-- size from one to a card that is not there.
SELECT EXISTS (SELECT 1 FROM agent_cards WHERE id = @agent_card_id)::bool;
