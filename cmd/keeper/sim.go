package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	simfaults "github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
	"github.com/keeper-project/keeper/signer"
)

// simCommand defines `keeper sim`'s flags on fs and returns its body.
func simCommand(fs *flag.FlagSet) action {
	listen := fs.String("listen", "127.0.0.1:7070", "market API address; RPC listens on the next port, Jito on the one after (port 0: three free ports, printed)")
	scenario := fs.String("scenario", "", "scenario file (default: the built-in scenario exercising every policy kind)")
	wallet := fs.String("wallet", "", "operator wallet (base58) the scenario's positions belong to")
	keypair := fs.String("keypair", "sim-keypair.json", "without --wallet: the operator's keypair file; created (mode 0600) when missing")
	manual := fs.Bool("manual-clock", false, "stop the sim clock: it moves only through POST /_sim/advance (implies --control); for end-to-end tests")
	control := fs.Bool("control", false, "serve the control routes /_sim/advance and /_sim/state on the market's address")
	hostile := fs.String("hostile", "none", "make every transaction-building answer hostile in this way, as a compromised market would: "+hostileModes())
	faults := fs.String("faults", "", "inject faults into the market API, RPC and Jito: "+simfaults.SpecHelp)
	seed := fs.Uint64("seed", 0, "seed of blockhashes and fault draws, to reproduce a run")
	jitoRPS := fs.Float64("jito-rps", sim.DefaultJitoRateLimit, "requests per second the block engine takes from one client IP, answering 429 above it, as Jito's does (its default: 1); 0 for no limit")
	return func(ctx context.Context, s *streams, _ []string) int {
		addrs, err := simAddrs(*listen)
		if err != nil {
			fmt.Fprintf(s.err, "keeper sim: --listen: %v\n", err)
			return exitUsage
		}
		owner, err := simWallet(s, *wallet, *keypair)
		if err != nil {
			fmt.Fprintf(s.err, "keeper sim: %v\n", err)
			return exitUsage
		}
		mode, err := simfaults.ParseHostile(*hostile)
		if err != nil {
			fmt.Fprintf(s.err, "keeper sim: --hostile: %v\n", err)
			return exitUsage
		}
		injected, err := simfaults.Parse(*faults)
		if err != nil {
			fmt.Fprintf(s.err, "keeper sim: --faults: %v\n", err)
			return exitUsage
		}
		injected.Market.HostileAlways = mode
		if !(*jitoRPS >= 0) {
			fmt.Fprintf(s.err, "keeper sim: --jito-rps: %g, want 0 (no limit) or a positive rate\n", *jitoRPS)
			return exitUsage
		}
		return serveSim(ctx, s, simServe{addrs: addrs, scenario: *scenario, owner: owner, manual: *manual,
			control: *control || *manual, faults: injected, seed: *seed, jitoRPS: *jitoRPS})
	}
}

// simAddrs derives the three listen addresses from the market's.
func simAddrs(listen string) (sim.Addrs, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return sim.Addrs{}, err
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65533 {
		return sim.Addrs{}, fmt.Errorf("port %q: want 1-65533 (the next two ports are used too), or 0 for three free ports", port)
	}
	if p == 0 {
		free := net.JoinHostPort(host, "0")
		return sim.Addrs{Market: free, RPC: free, Jito: free}, nil
	}
	at := func(n int) string { return net.JoinHostPort(host, strconv.Itoa(n)) }
	return sim.Addrs{Market: at(p), RPC: at(p + 1), Jito: at(p + 2)}, nil
}

// simWallet returns the operator wallet: --wallet, else the keypair file's
// public key, creating the file with a fresh key when it does not exist.
func simWallet(s *streams, wallet, keypair string) (solana.PublicKey, error) {
	if wallet != "" {
		pk, err := solana.PublicKeyFromBase58(wallet)
		if err != nil {
			return solana.PublicKey{}, fmt.Errorf("--wallet: %w", err)
		}
		return pk, nil
	}
	k, err := signer.Load(signer.KeySource{Path: keypair})
	if err == nil {
		return k.PublicKey(), nil
	}
	if _, statErr := os.Stat(keypair); !errors.Is(statErr, os.ErrNotExist) {
		return solana.PublicKey{}, err
	}
	if k, err = signer.Generate(); err != nil {
		return solana.PublicKey{}, err
	}
	if err := k.WriteKeypairFile(keypair); err != nil {
		return solana.PublicKey{}, err
	}
	fmt.Fprintf(s.out, "wrote a new operator keypair to %s (simulator use only)\n", keypair)
	return k.PublicKey(), nil
}

func loadScenario(path string) (*scenario.Scenario, error) {
	if path == "" {
		return sim.DefaultScenario()
	}
	return sim.LoadScenario(path)
}

// simServe is what `keeper sim` serves.
type simServe struct {
	addrs    sim.Addrs
	scenario string
	owner    solana.PublicKey
	manual   bool             // a manual clock, moved only through the control routes
	control  bool             // serve the control routes
	faults   simfaults.Faults // faults and hostile mode to inject
	seed     uint64
	jitoRPS  float64 // the block engine's limit per client IP; 0: none
}

// serveSim runs the simulator until ctx ends.
func serveSim(ctx context.Context, s *streams, o simServe) int {
	sc, err := loadScenario(o.scenario)
	if err != nil {
		sayErr(s.err, err)
		return exitUsage
	}
	opts := sim.Options{Scenario: sc, Wallet: o.owner, Seed: o.seed, Faults: o.faults, JitoRateLimit: o.jitoRPS,
		Logger: slog.New(slog.NewTextHandler(s.err, nil))} // each scenario event as it is applied
	if o.jitoRPS == 0 {
		opts.JitoRateLimit = math.Inf(1)
	}
	if o.manual {
		opts.Clock = chainsim.NewManualClock(time.Now().UTC().Truncate(time.Second))
	}
	sm, err := sim.New(opts)
	if err != nil {
		fmt.Fprintf(s.err, "keeper sim: %v\n", err)
		return exitUsage
	}
	var urls sim.URLs
	if o.control {
		urls, err = sm.StartControlled(ctx, o.addrs, sim.NewControl(sm))
	} else {
		urls, err = sm.Start(ctx, o.addrs)
	}
	if err != nil {
		fmt.Fprintf(s.err, "keeper sim: %v\n", err)
		return exitUsage
	}
	printSim(s.out, urls, sm)
	printAddresses(s.out, sm, sc)
	if o.control {
		printControl(s.out, urls, o.manual) // last: scripts wait for this line
	}
	<-ctx.Done()
	if err := sm.Wait(); err != nil {
		fmt.Fprintf(s.err, "keeper sim: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// printControl tells the user where the control routes are and how the clock moves.
func printControl(w io.Writer, u sim.URLs, manual bool) {
	clock := "real time"
	if manual {
		clock = "manual: it moves only when told"
	}
	fmt.Fprintf(w, "simulator control %s (POST advance {\"seconds\": N}, GET state, GET squads, POST squads/vote); clock %s\n", u.Control(), clock)
}

// printSim tells the user where the services are and what the scenario holds.
func printSim(w io.Writer, u sim.URLs, sm *sim.Sim) {
	fmt.Fprintf(w, "simulated market  %s\nsimulated RPC     %s\nsimulated Jito    %s\noperator wallet   %s\n",
		u.Market, u.RPC, u.Jito, sm.Wallet())
	fmt.Fprintf(w, "program ids: market %s, earn %s, dex-a %s, dex-b %s\n",
		ids.MarketProgramID, ids.EarnProgramID, ids.DexAProgramID, ids.DexBProgramID)
	fmt.Fprintln(w, "Ctrl-C stops it. In another terminal: keeper run --config config.yaml")
}

// printAddresses lists the scenario's mints, vaults, earn vaults, other
// wallets, loans and multisigs, which policies and reports name.
func printAddresses(w io.Writer, sm *sim.Sim, sc *scenario.Scenario) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(kind, name string) {
		if a, ok := sm.Accounts().Address(kind, name); ok {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", kind, name, a)
		}
	}
	for _, m := range sc.Mints {
		row(ids.KindMint, m.Symbol)
	}
	for _, v := range sc.Vaults {
		row(ids.KindVault, v.Name)
	}
	for _, e := range sc.Earn {
		row(ids.KindEarn, e.Name)
	}
	for _, wl := range sc.Wallets {
		row(ids.KindWallet, wl.Name)
	}
	for _, l := range sc.Loans {
		row(ids.KindLoan, l.Name)
	}
	for _, m := range sc.Multisigs {
		row(ids.KindMultisig, m.Name)
	}
	tw.Flush()
}

// hostileModes lists the names --hostile takes.
func hostileModes() string {
	names := []string{simfaults.HostileNone.String()}
	for _, h := range simfaults.AllHostile() {
		names = append(names, h.String())
	}
	return strings.Join(names, ", ")
}
