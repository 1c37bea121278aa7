package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/journal"
)

// runCommand defines `keeper run`'s flags on fs and returns its body.
func runCommand(fs *flag.FlagSet) action {
	cf := addChainFlags(fs)
	once := fs.Bool("once", false, "run every enabled policy once, wait for its actions to settle, and exit (1 if any action failed)")
	dryRun := fs.Bool("dry-run", false, "plan and journal, never sign; notifications are not posted unless --notify-dry-run")
	notifyDryRun := fs.Bool("notify-dry-run", false, "in a dry run (--dry-run or the config's dry_run), post notifications too, marked \"dry run\"")
	sim := fs.Bool("sim", false, "run against an in-process simulator playing a scripted scenario, with an ephemeral key, then print what was done")
	simFor := fs.Duration("sim-for", 75*time.Second, "with --sim: how long to run")
	logLevel := fs.String("log-level", "", "debug, info, warn or error (default: the config's log.level)")
	logFormat := fs.String("log-format", "", "auto, text or json (default: the config's log.format)")
	return func(ctx context.Context, s *streams, _ []string) int {
		opts := runOptions{config: cf, once: *once, dryRun: *dryRun, notifyDryRun: *notifyDryRun, sim: *sim, simFor: *simFor,
			logLevel: *logLevel, logFormat: *logFormat}
		return runDaemon(ctx, s, opts)
	}
}

type runOptions struct {
	config              *configFlags
	once, dryRun, sim   bool
	notifyDryRun        bool
	simFor              time.Duration
	logLevel, logFormat string
}

// runDaemon loads the config, builds the keeper and runs it.
func runDaemon(ctx context.Context, s *streams, o runOptions) int {
	cfg, logger, ok := loadForRun(s, o)
	if !ok {
		return exitUsage
	}
	if o.sim {
		return runSim(ctx, s, o, cfg, logger)
	}
	k, err := keeper.New(keeper.Options{Config: cfg, Logger: logger, Version: version(), DryRun: o.dryRun, NotifyDryRun: o.notifyDryRun})
	if err != nil {
		logger.Error("Cannot start", "err", err)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintln(s.err, keyHint)
		}
		return exitUsage
	}
	defer k.Close()
	return runKeeper(ctx, k, logger, o.once)
}

// keyHint helps a first run that finds no key file.
const keyHint = "hint: set signer.keypair in the config to your Solana CLI keypair file; " +
	"against the simulator, `keeper sim` creates sim-keypair.json, or try `keeper run --sim`"

// runKeeper runs k once or as a daemon that reloads on SIGHUP.
func runKeeper(ctx context.Context, k *keeper.Keeper, logger *slog.Logger, once bool) int {
	if once {
		if err := k.RunOnce(ctx); err != nil {
			if errors.Is(err, journal.ErrLocked) || errors.Is(err, journal.ErrNotLeader) {
				logger.Error("Cannot start", "err", err)
				return exitUsage
			}
			logger.Error("Run finished with failures", "err", err)
			return exitFailed
		}
		return exitOK
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	reload := make(chan struct{}, 1)
	go func() {
		for range hup {
			select {
			case reload <- struct{}{}:
			default:
			}
		}
	}()
	if err := k.Run(ctx, reload); err != nil {
		logger.Error("keeper stopped", "err", err)
		return exitUsage
	}
	return exitOK
}

// loadForRun loads the config and builds the logger, reporting any error.
func loadForRun(s *streams, o runOptions) (*config.Config, *slog.Logger, bool) {
	cfg, err := o.config.load(s)
	if err != nil {
		sayErr(s.err, err)
		return nil, nil, false
	}
	logger, err := daemonLogger(s, cfg, o)
	if err != nil {
		fmt.Fprintf(s.err, "keeper run: %v\n", err)
		return nil, nil, false
	}
	return cfg, logger, true
}

// daemonLogger builds the logger from the flags, else the config.
func daemonLogger(s *streams, cfg *config.Config, o runOptions) (*slog.Logger, error) {
	level, format := cfg.Log.Level, cfg.Log.Format
	if o.logLevel != "" {
		level = o.logLevel
	}
	if o.logFormat != "" {
		format = o.logFormat
	}
	return newLogger(s.err, level, format)
}
