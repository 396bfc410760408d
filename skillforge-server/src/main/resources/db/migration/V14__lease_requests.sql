-- What a holder of many leases looks for several times a second: the few another instance asked for. Only rows
-- with a request pending are in it, so it stays as small as the hand-overs under way.
CREATE INDEX leases_requested ON leases (owner) WHERE requested_by IS NOT NULL;
