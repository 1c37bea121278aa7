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
//	signed    → submitted | landed | failed | expired | refused
//	submitted → landed | failed | expired | refused
//	expired   → built (a new attempt, numbered n+1) | failed | refused | skipped
//
// Expired means the chain proved the attempt can never land, so a new attempt
// is safe; landed, failed, refused and skipped are final. Any other transition
// is refused with an error matching ErrIllegalTransition.
//
// The default store is an embedded SQLite database (modernc.org/sqlite, no
// cgo) opened in WAL mode with synchronous=FULL (a new file with 2 KiB
// pages, pageSize). Writes commit at one of two levels. Durable: the intent
// (Begin, Start), before the build, and the signatures (RecordSigned,
// RecordTip), before anything is sent, are on disk when their method
// returns: two fsyncs per action that lands. Lazy: every other record (a new
// attempt, the built transactions, the submission, the outcome) commits
// without an fsync. A process crash loses none of them (the operating system
// holds the write); a power loss may lose those after the last durable
// commit, and the next durable commit carries them all to disk, since the
// log is one sequence. A lost record is a crash before it: a lost attempt or
// build is rebuilt under the same idempotency key, and a lost outcome leaves
// the attempt open, which keeper settles again from the chain by its
// journaled signatures (or as abandoned, when it has none): its startup
// recovery does so before the first tick, and a running daemon sweeps the
// actions it left unsettled. The action path's statements are prepared when
// the journal opens. The SQL is kept plain (no SQLite-only semantics) so
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
