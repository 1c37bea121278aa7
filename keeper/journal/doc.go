// Package journal is keeper's durable action journal.
//
// Every action the keeper decides on is written here before anything leaves
// the process, and every step of its path is recorded as it happens: the
// intent (Begin, or Start, which opens the first attempt in the same
// commit), each attempt and its idempotency key (NewAttempt), the
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
// cgo) opened in WAL mode with synchronous=FULL (a new file with 2 KiB
// pages, pageSize), so a write is on disk when its method returns; except
// the records nothing outside the process depends on yet or that the chain
// keeps, which commit without an fsync: a new attempt, its built
// transactions, its submission, and an outcome the chain decides (landed,
// or expired because every blockhash expired unseen) once the attempt's
// signatures are journaled. A process crash loses none
// of them (the operating system holds the write); a power loss may lose
// those after the last durable commit, and the next durable commit carries
// them all to disk, since the log is one sequence. Recovery treats a lost
// record as a crash before it: a lost attempt or build is rebuilt under the
// same idempotency key, a lost outcome is settled again from the journaled
// signatures by asking the chain (keeper's startup recovery does so for
// every open attempt before the first tick). Begin and Start (the intent,
// before the build), RecordSigned and RecordTip (before any send), Finish
// and every other outcome (refusals, skips, failures: decisions the chain
// cannot give back) are durable: two fsyncs per action that lands. Writes
// that arrive while another commits (several actions in flight at once)
// are committed together, each in a savepoint of its own, with one fsync
// when any of them is durable, so concurrent actions share their flushes;
// a write returns only after the commit that carries it. The SQL is kept
// plain (no SQLite-only semantics) so another database could implement the
// same methods. Schema changes are numbered migrations recorded in a
// version table; a database written by a newer binary is refused with
// ErrSchemaTooNew.
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
