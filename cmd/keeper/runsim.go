package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/signer"
)

// runSim runs the whole daemon against an in-process simulator playing the
// default scenario, with an ephemeral key and a journal in a temporary
// folder, for o.simFor; then it prints what keeper did.
func runSim(ctx context.Context, s *streams, o runOptions, cfg *config.Config, logger *slog.Logger) int {
	key, err := signer.Generate()
	if err != nil {
		fmt.Fprintf(s.err, "keeper run: %v\n", err)
		return exitUsage
	}
	sc, err := sim.DemoScenario()
	if err != nil {
		fmt.Fprintf(s.err, "keeper run: simulator: %v\n", err)
		return exitUsage
	}
	sm, err := sim.New(sim.Options{Wallet: key.PublicKey(), Scenario: sc, Logger: logger.With("component", "sim")})
	if err != nil {
		fmt.Fprintf(s.err, "keeper run: simulator: %v\n", err)
		return exitUsage
	}
	simCtx, stopSim := context.WithCancel(context.WithoutCancel(ctx))
	defer func() { stopSim(); _ = sm.Wait() }()
	urls, err := sm.Start(simCtx, sim.Addrs{})
	if err != nil {
		fmt.Fprintf(s.err, "keeper run: simulator: %v\n", err)
		return exitUsage
	}
	dir, err := os.MkdirTemp("", "keeper-sim-")
	if err != nil {
		fmt.Fprintf(s.err, "keeper run: %v\n", err)
		return exitUsage
	}
	pointAtSim(cfg, urls, dir)
	armed, err := key.WithGuard(keeper.GuardConfig(cfg))
	if err != nil {
		fmt.Fprintf(s.err, "keeper run: %v\n", err)
		return exitUsage
	}
	k, err := keeper.New(keeper.Options{Config: cfg, Signer: armed, Logger: logger, Version: version(), DryRun: o.dryRun, NotifyDryRun: o.notifyDryRun,
		ShutdownTimeout: simShutdownTimeout})
	if err != nil {
		logger.Error("Cannot start", "err", err)
		return exitUsage
	}
	defer k.Close()
	logger.Info("Simulator started: the demo scenario plays for "+o.simFor.String(), "market", urls.Market,
		"rpc", urls.RPC, "jito", urls.Jito, "wallet", key.PublicKey().String(), "journal", cfg.JournalPath(), "for", o.simFor)
	runCtx, cancel := context.WithTimeout(ctx, o.simFor)
	defer cancel()
	code := runKeeper(runCtx, k, logger, o.once)
	return summarize(s, cfg, code)
}

// simShutdownTimeout bounds the demo's shutdown. The simulator lands what
// it does not drop within a second or two; what the demo scripted to be
// dropped would hold the default 30 s bound until its blockhash expires
// (about a minute after it was sent). What is still in flight is shown as
// such in the summary: the journal is the demo's own, and no recovery
// follows.
const simShutdownTimeout = 3 * time.Second

// pointAtSim redirects the config to the simulator's services and program
// ids, and keeps the journal and the kill switch in dir.
func pointAtSim(cfg *config.Config, u sim.URLs, dir string) {
	cfg.Market.BaseURL = config.URL(u.Market)
	cfg.Market.ProgramID = ids.MarketProgramID.String()
	cfg.Market.EarnProgramID = ids.EarnProgramID.String()
	cfg.Chain.RPCURL, cfg.Chain.RPCURLs, cfg.Chain.SendURL = config.URL(u.RPC), nil, ""
	cfg.Chain.JitoURL = config.URL(u.Jito)
	cfg.Chain.DexAProgram = ids.DexAProgramID.String()
	cfg.Chain.DexBProgram = ids.DexBProgramID.String()
	cfg.Journal.DSN = config.DSN("sqlite:" + filepath.Join(dir, "keeper.db"))
	cfg.HTTP.Listen = "127.0.0.1:0"
	cfg.KillSwitch = filepath.Join(dir, "pause")
}

// summarize prints the journal of the simulated run.
func summarize(s *streams, cfg *config.Config, code int) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	j, err := journal.Open(ctx, cfg.JournalDSN(), journal.Options{})
	if err != nil {
		fmt.Fprintf(s.err, "keeper run: reading the journal: %v\n", err)
		return code
	}
	defer j.Close()
	actions, err := j.List(ctx, journal.Filter{})
	if err != nil {
		fmt.Fprintf(s.err, "keeper run: reading the journal: %v\n", err)
		return code
	}
	fmt.Fprintf(s.out, "\nWhat keeper did in the simulation (journal %s):\n", cfg.JournalPath())
	links, _ := cfg.Explorer.Links(cfg.Chain.RPCURL)
	printHistory(s.out, actions, links)
	return code
}
