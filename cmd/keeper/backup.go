package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/keeper-project/keeper/keeper/journal"
)

func backupCommand() command {
	return command{
		name:    "backup",
		usage:   "[--config config.yaml] FILE",
		summary: "copy the journal to FILE, consistently, while keeper runs (restore: stop keeper, put FILE in the journal's place)",
		flags: func(fs *flag.FlagSet) func(context.Context, *streams, []string) int {
			cf := addConfigFlags(fs)
			cf.quiet = true
			return func(ctx context.Context, s *streams, args []string) int {
				if len(args) != 1 {
					fmt.Fprintln(s.err, "keeper backup: name the file to write")
					return exitUsage
				}
				cfg, err := cf.load(s)
				if err != nil {
					fmt.Fprintln(s.err, err)
					return exitUsage
				}
				if cfg.Journal.DSN.Shared() {
					fmt.Fprintf(s.err, "keeper backup: the journal is on PostgreSQL (%s): back it up with pg_dump or the server's own backups\n", cfg.Journal.DSN)
					return exitUsage
				}
				j, err := journal.Open(ctx, cfg.JournalDSN(), journal.Options{})
				if err != nil {
					fmt.Fprintf(s.err, "keeper backup: %v\n", err)
					return exitUsage
				}
				defer j.Close()
				if err := j.Backup(ctx, args[0]); err != nil {
					fmt.Fprintf(s.err, "keeper backup: %v\n", err)
					return exitFailed
				}
				fmt.Fprintf(s.out, "journal %s copied to %s\n", cfg.JournalPath(), args[0])
				return exitOK
			}
		},
	}
}
