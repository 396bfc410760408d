-- Fencing (several instances on one database): a write made under a lease carries the lease's
-- epoch, and the database applies it only while that epoch is still the conversation's held lease
-- (JdbcConversationStore checks it with one SELECT … FOR SHARE on the lease row per conversation
-- and batch, in the batch's transaction, so a take-over waits for the batch or refuses it).
-- Each entry and turn record keeps the epoch it was written under (NULL: written under no lease,
-- as before this version, or by the recovery of a crashed instance), so what each holder wrote
-- can be told apart afterwards.
ALTER TABLE entries ADD COLUMN lease_epoch BIGINT;
ALTER TABLE turns ADD COLUMN lease_epoch BIGINT;
