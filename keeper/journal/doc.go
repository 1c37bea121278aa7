// Package journal is keeper's durable action journal.
//
// Every action the keeper decides on is written here before anything leaves
// the process, and every step of its path is recorded as it happens: the
// intent (Begin), each attempt and its idempotency key (NewAttempt), the
// transactions the market API built (RecordBuilt), the signatures and their
// blockhashes (RecordSigned, always before the transactions are sent),
// keeper's own Jito tip transactions (RecordTip, each before it is sent), the
// submission (RecordSubmitted) and the outcome (Settle, Finish). After a crash
// Pending returns every action that is not final, with its attempts,
// signatures and tips, so the keeper can ask the chain what happened before
// it acts again.
//
// An action moves through these states:
//
//	planned   → built | failed | refused | skipped
//	built     → signed | expired | failed | refused | skipped
//	signed    → submitted | landed | failed | expired
//	submitted → landed | failed | expired
//	expired   → built (a new attempt, numbered n+1) | failed | refused | skipped
//
// Expired means the chain proved the attempt can never land, so a new attempt
// is safe; landed, failed, refused and skipped are final. Any other transition
// is refused with an error matching ErrIllegalTransition.
//
// The default store is an embedded SQLite database (modernc.org/sqlite, no
// cgo) opened in WAL mode with synchronous=FULL, so a write is on disk when
// its method returns; except a new attempt, its built transactions and its
// submission, which commit without an fsync (nothing outside the process
// depends on them yet, and the next durable commit, the signatures before
// any send, syncs the log with them). Begin, RecordSigned, RecordTip, Settle
// and Finish are durable: three fsyncs per action that lands. The SQL is kept plain (no SQLite-only semantics) so
// another database could implement the same methods. Schema changes are
// numbered migrations recorded in a version table; a database written by a
// newer binary is refused with ErrSchemaTooNew.
//
// A PostgreSQL database ("postgres://…") holds the same schema, through the
// same migrations and statements, for keepers that run as an HA pair: any
// number of them may open it, one leads. Campaign takes the leader's lease
// (a row of leader_lease, measured by the database's clock) for a term
// whose fencing token grows by one at every change of leader; Fence makes
// every later write check that token inside its own transaction, so a
// keeper deposed while paused or cut off can write nothing, and so can
// neither sign-and-record nor send. Lazy records commit with
// synchronous_commit off; every other commit waits for the server's fsync.
//
// All times come from Options.Now and are stored as UTC unix nanoseconds.
package journal
