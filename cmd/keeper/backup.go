package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper/config"
)

// backupCommand defines `keeper backup`'s flags on fs and returns its body.
func backupCommand(fs *flag.FlagSet) action {
	cf := addConfigFlags(fs)
	cf.quiet = true
	return cf.withConfig(func(ctx context.Context, s *streams, cfg *config.Config, args []string) int {
		if cfg.Journal.DSN.Shared() {
			fmt.Fprintf(s.err, "keeper backup: the journal is on PostgreSQL (%s): back it up with pg_dump or the server's own backups\n", cfg.Journal.DSN)
			return exitUsage
		}
		j, ok := openJournal(ctx, s, "backup", cfg)
		if !ok {
			return exitUsage
		}
		defer j.Close()
		if err := j.Backup(ctx, args[0]); err != nil {
			fmt.Fprintf(s.err, "keeper backup: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(s.out, "journal %s copied to %s\n", cfg.JournalPath(), args[0])
		return exitOK
	})
}
