package journal

// migrations is the schema history. Each entry runs once, in its own
// transaction, in order; a new schema version is added by appending an entry
// with the next version number. Never edit an entry that has shipped.
var migrations = []migration{
	{version: 1, name: "initial schema", statements: schemaV1},
	{version: 2, name: "tip transactions", statements: schemaV2},
	{version: 3, name: "alert incidents", statements: schemaV3},
	{version: 4, name: "trigger firings", statements: schemaV4},
}

// schemaV1 creates the actions, attempts, transactions and signatures
// tables. Times are UTC unix nanoseconds; amounts are decimal text so any
// uint64 fits; booleans are 0 or 1.
var schemaV1 = []string{
	`CREATE TABLE actions (
		id         TEXT    NOT NULL PRIMARY KEY,
		policy     TEXT    NOT NULL,
		kind       TEXT    NOT NULL,
		target     TEXT    NOT NULL,
		inputs     TEXT    NOT NULL,
		reason     TEXT    NOT NULL,
		dry_run    INTEGER NOT NULL,
		mint       TEXT    NOT NULL,
		amount     TEXT    NOT NULL,
		state      TEXT    NOT NULL,
		attempts   INTEGER NOT NULL,
		rule       TEXT    NOT NULL,
		detail     TEXT    NOT NULL,
		created_at BIGINT  NOT NULL,
		updated_at BIGINT  NOT NULL,
		settled_at BIGINT
	)`,
	`CREATE INDEX actions_state ON actions (state)`,
	`CREATE INDEX actions_policy_created ON actions (policy, created_at)`,
	`CREATE INDEX actions_policy_target ON actions (policy, target, state)`,
	`CREATE INDEX actions_mint_created ON actions (mint, created_at)`,
	`CREATE INDEX actions_created ON actions (created_at)`,
	`CREATE TABLE attempts (
		action_id       TEXT    NOT NULL REFERENCES actions (id),
		attempt         INTEGER NOT NULL,
		idempotency_key TEXT    NOT NULL UNIQUE,
		mode            TEXT    NOT NULL,
		tip_lamports    BIGINT  NOT NULL,
		fee_lamports    BIGINT  NOT NULL,
		outcome         TEXT    NOT NULL,
		rule            TEXT    NOT NULL,
		detail          TEXT    NOT NULL,
		created_at      BIGINT  NOT NULL,
		built_at        BIGINT,
		signed_at       BIGINT,
		submitted_at    BIGINT,
		settled_at      BIGINT,
		PRIMARY KEY (action_id, attempt)
	)`,
	`CREATE INDEX attempts_created ON attempts (created_at)`,
	`CREATE TABLE attempt_transactions (
		action_id TEXT    NOT NULL,
		attempt   INTEGER NOT NULL,
		seq       INTEGER NOT NULL,
		body      TEXT    NOT NULL,
		PRIMARY KEY (action_id, attempt, seq),
		FOREIGN KEY (action_id, attempt) REFERENCES attempts (action_id, attempt)
	)`,
	`CREATE TABLE signatures (
		action_id               TEXT    NOT NULL,
		attempt                 INTEGER NOT NULL,
		seq                     INTEGER NOT NULL,
		signature               TEXT    NOT NULL UNIQUE,
		blockhash               TEXT    NOT NULL,
		last_valid_block_height BIGINT  NOT NULL,
		signed_tx               TEXT    NOT NULL,
		PRIMARY KEY (action_id, attempt, seq),
		FOREIGN KEY (action_id, attempt) REFERENCES attempts (action_id, attempt)
	)`,
}

// schemaV2 adds the tips table: keeper's own Jito tip transactions, signed
// for the bundles of an attempt and journaled before each is sent. A tip's
// signature is unique here and, checked by RecordTip and RecordSigned,
// against the signatures table too.
var schemaV2 = []string{
	`CREATE TABLE tips (
		action_id   TEXT    NOT NULL,
		attempt     INTEGER NOT NULL,
		seq         INTEGER NOT NULL,
		signature   TEXT    NOT NULL UNIQUE,
		blockhash   TEXT    NOT NULL,
		tip_account TEXT    NOT NULL,
		lamports    BIGINT  NOT NULL,
		signed_tx   TEXT    NOT NULL,
		created_at  BIGINT  NOT NULL,
		PRIMARY KEY (action_id, attempt, seq),
		FOREIGN KEY (action_id, attempt) REFERENCES attempts (action_id, attempt)
	)`,
}

// schemaV3 adds the incidents table: one row per alert incident, from the
// run that found its condition holding to the run that found it cleared.
// At most one incident of a policy and target is open at a time.
var schemaV3 = []string{
	`CREATE TABLE incidents (
		id          INTEGER PRIMARY KEY,
		policy      TEXT    NOT NULL,
		target      TEXT    NOT NULL,
		severity    TEXT    NOT NULL,
		message     TEXT    NOT NULL,
		opened_at   BIGINT  NOT NULL,
		resolved_at BIGINT
	)`,
	`CREATE UNIQUE INDEX incidents_open ON incidents (policy, target) WHERE resolved_at IS NULL`,
	`CREATE INDEX incidents_opened ON incidents (opened_at)`,
}

// schemaV4 adds the trigger_firings table: per policy and trigger, how
// often it fired a run and its last firing, so that `plan` (another
// process) shows what the daemon's triggers did.
var schemaV4 = []string{
	`CREATE TABLE trigger_firings (
		policy     TEXT    NOT NULL,
		trigger    TEXT    NOT NULL,
		fired      INTEGER NOT NULL,
		last_fired BIGINT  NOT NULL,
		last_slot  BIGINT  NOT NULL,
		detail     TEXT    NOT NULL,
		PRIMARY KEY (policy, trigger)
	)`,
}
