package examples_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	// The pgx driver, registered as "pgx", creates each test's schema.
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/keeper-project/keeper/internal/failpoint"
)

// postgresEnv names the PostgreSQL server of the HA tests: a URL whose user may create schemas.
// .ci/run starts one and sets it.
const postgresEnv = "KEEPER_TEST_POSTGRES"

// takeoverBound is how soon a standby must lead after the leader dies, freezes or loses its
// database, with the default journal.lease of 6 s.
const takeoverBound = 10 * time.Second

// Log lines of the leadership (keeper/leader.go) and of the action path.
const (
	logLeading   = `"msg":"Leading: acting on the policies"`
	logWon       = `"msg":"Won the lease; settling the journal before acting"`
	logStandby   = `"msg":"Standing by: another keeper leads"`
	logLanded    = `"msg":"Action landed"`
	logDeposed   = `"msg":"Deposed: another keeper took the lease; standing by"`
	logRanOut    = `"msg":"Lease ran out before it could be renewed; standing by"`
	logNoIntent  = `"msg":"Cannot journal the intent; not acting"`
	logNoJournal = `"msg":"Cannot read the journal; not acting"`
	logNoSigs    = `"msg":"Cannot journal the signatures; not sending"`
)

// haRig is `keeper sim` on a manual clock, and keepers of auto-repay sharing one PostgreSQL
// journal (a schema of its own on the test server).
type haRig struct {
	sim    *simProc
	w      *workspace
	dsn    string
	policy string // auto-repay, scheduled every second
}

// newHARig starts the simulator and makes the journal's schema; it skips the test without a server.
func newHARig(t *testing.T) *haRig {
	t.Helper()
	server := os.Getenv(postgresEnv)
	if server == "" {
		t.Skip(postgresEnv + " is not set: the HA failover tests need a PostgreSQL server (.ci/run starts one)")
	}
	needBinary(t)
	s := startSim(t)
	w := newWorkspace(t, s)
	src, err := os.ReadFile(autoRepay)
	if err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(t.TempDir(), "auto-repay.yaml")
	fast := strings.ReplaceAll(string(src), `schedule: "@every 5s"`, `schedule: "@every 1s"`)
	if fast == string(src) {
		t.Fatal("auto-repay.yaml no longer runs @every 5s")
	}
	if err := os.WriteFile(policy, []byte(fast), 0o644); err != nil {
		t.Fatal(err)
	}
	return &haRig{sim: s, w: w, dsn: newSchema(t, server), policy: policy}
}

// newSchema makes a schema on the server, drops it at the end of the test, and returns a URL whose
// sessions use it.
func newSchema(t *testing.T, server string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "keeper_e2e_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// start runs a keeper daemon named name on the journal at dsn and waits until it has started.
func (r *haRig) start(t *testing.T, name, dsn string, o procOptions) *daemon {
	t.Helper()
	cfg := r.w.configEdited(t, name, []string{r.policy}, func(c map[string]any) {
		section(c, "journal")["dsn"] = dsn
		section(c, "http")["listen"] = "127.0.0.1:0"
	})
	d := startKeeperWith(t, o, r.w.dir, &syncBuffer{}, "run", "--config", cfg, "--log-format", "json")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("keeper %s's log:\n%s", name, d.stderr.String())
		}
	})
	d.waitStarted(t)
	return d
}

// waitFor waits until d logs a line containing what; the test fails if d exits first or the line
// does not come within procTimeout.
func waitFor(t *testing.T, name string, d *daemon, what string) time.Time {
	t.Helper()
	select {
	case <-d.stderr.lineContaining(what):
		return time.Now()
	case <-d.exited:
		t.Fatalf("keeper %s exited before logging %s; log:\n%s", name, what, d.stderr.String())
	case <-time.After(procTimeout):
		t.Fatalf("keeper %s did not log %s within %s; log:\n%s", name, what, procTimeout, d.stderr.String())
	}
	return time.Time{}
}

// continueFrozen sends SIGCONT to d once the process is stopped. A failpoint says it stops the
// process just before it does: a SIGCONT sent in between is lost (nothing is stopped yet), and the
// process then stops for good. Where /proc is missing, it sends at once.
func continueFrozen(t *testing.T, name string, d *daemon) {
	t.Helper()
	stat := filepath.Join("/proc", strconv.Itoa(d.cmd.Process.Pid), "stat")
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(procTimeout)
	for {
		b, err := os.ReadFile(stat)
		if err != nil {
			break // no /proc here
		}
		// "pid (comm) STATE ...": the state follows the last ')'; T is stopped.
		if state := bytes.TrimSpace(b[bytes.LastIndexByte(b, ')')+1:]); len(state) > 0 && state[0] == 'T' {
			break
		}
		select {
		case <-tick.C:
		case <-d.exited:
			t.Fatalf("keeper %s exited while it should be frozen; log:\n%s", name, d.stderr.String())
		case <-deadline:
			t.Fatalf("keeper %s did not stop within %s; log:\n%s", name, procTimeout, d.stderr.String())
		}
	}
	if err := d.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// pair starts keeper a (options oa, journal dsnA) and waits until it leads, then keeper b on the
// rig's journal, and waits until b stands by.
func (r *haRig) pair(t *testing.T, oa procOptions, dsnA string) (a, b *daemon) {
	t.Helper()
	a = r.start(t, "a", dsnA, oa)
	waitFor(t, "a", a, logLeading)
	b = r.start(t, "b", r.dsn, procOptions{})
	waitFor(t, "b", b, logStandby)
	return a, b
}

// role reads d's keeper_leader gauge from /metrics and its role from /status.
func role(t *testing.T, d *daemon) (leader, status string) {
	t.Helper()
	var addr string
	for line := range strings.Lines(d.stderr.String()) {
		var started struct {
			HTTP string `json:"http"`
		}
		if strings.Contains(line, `"msg":"keeper started"`) && json.Unmarshal([]byte(line), &started) == nil {
			addr = started.HTTP
		}
	}
	metrics := opsGet(t, addr, "/metrics")
	for line := range strings.Lines(metrics) {
		if v, ok := strings.CutPrefix(line, "keeper_leader "); ok {
			leader = strings.TrimSpace(v)
		}
	}
	var st struct {
		Role string `json:"role"`
	}
	if err := json.Unmarshal([]byte(opsGet(t, addr, "/status")), &st); err != nil {
		t.Fatalf("/status: %v", err)
	}
	return leader, st.Role
}

// opsGet returns the body of GET path on the operations endpoint addr.
func opsGet(t *testing.T, addr, path string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// wantRole checks d's keeper_leader and /status role.
func wantRole(t *testing.T, name string, d *daemon, leader, status string) {
	t.Helper()
	if gotLeader, gotStatus := role(t, d); gotLeader != leader || gotStatus != status {
		t.Errorf("keeper %s: keeper_leader %s, /status role %q; want %s, %q", name, gotLeader, gotStatus, leader, status)
	}
}

// paceInBackground moves the simulator's clock a slot per chain request until the test ends.
func (r *haRig) paceInBackground(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = r.sim.pace(ctx, 1<<30)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// tookOver checks and reports how long after the leader's end (at since) b won the lease.
func tookOver(t *testing.T, how string, since, won time.Time) {
	t.Helper()
	took := won.Sub(since)
	t.Logf("takeover after %s: the standby won the lease %s later", how, took.Round(time.Millisecond))
	if took > takeoverBound {
		t.Errorf("takeover after %s took %s, want at most %s", how, took, takeoverBound)
	}
}

// repaidOnce stops the keepers and checks the journal and the chain: the loan was repaid by exactly
// one landed action, every transaction the wallet signed is in the journal, and nothing was lost.
func (r *haRig) repaidOnce(t *testing.T, want string, ds ...*daemon) {
	t.Helper()
	for _, d := range ds {
		d.stop(t)
	}
	cfg := r.w.configEdited(t, "check", []string{r.policy}, func(c map[string]any) {
		section(c, "journal")["dsn"] = r.dsn
	})
	landedOnceAfterCrash(t, r.w, cfg, map[string]string{"auto-repay": want}, true)
}

// TestE2EFailoverKilledLeader kills the leader with SIGKILL in the middle of a repay, after it
// journaled the signatures and before it sent anything; the standby takes over within 10 s, settles
// the journaled transaction from the chain (rebroadcasting it), and the loan is repaid once.
func TestE2EFailoverKilledLeader(t *testing.T) {
	t.Parallel()
	r := newHARig(t)
	bin := needFailpointBinary(t)
	a, b := r.pair(t, procOptions{bin: bin, env: []string{failpoint.Env + "=" + failpoint.AfterSignatures}}, r.dsn)
	wantRole(t, "a", a, "1", "leader")
	wantRole(t, "b", b, "0", "standby")
	want := r.sim.state(t).Loans["repay-me"].Address
	r.sim.until(t, 10) // the SOL price falls: repay-me needs a repay
	r.paceInBackground(t)
	select {
	case <-a.exited:
	case <-time.After(procTimeout):
		t.Fatalf("the leader did not reach its fail point; log:\n%s", a.stderr.String())
	}
	died := time.Now()
	tookOver(t, "SIGKILL", died, waitFor(t, "b", b, logWon))
	waitFor(t, "b", b, `"msg":"Recovered unsettled action"`)
	waitFor(t, "b", b, logLeading)
	wantRole(t, "b", b, "1", "leader")
	r.repaidOnce(t, want, b)
	if !strings.Contains(b.stderr.String(), `"outcome":"landed"`) {
		t.Errorf("the new leader did not settle the dead leader's repay as landed; log:\n%s", b.stderr.String())
	}
}

// TestE2EFailoverFrozenLeader freezes the leader (SIGSTOP) after it signed a repay and before it
// journaled the signatures; the standby takes over within 10 s and repays; the old leader, continued
// (SIGCONT), cannot journal its signatures, so it sends nothing, and stands down.
func TestE2EFailoverFrozenLeader(t *testing.T) {
	t.Parallel()
	r := newHARig(t)
	bin := needFailpointBinary(t)
	a, b := r.pair(t, procOptions{bin: bin, env: []string{failpoint.Env + "=" + failpoint.AfterSign + "@stop"}}, r.dsn)
	want := r.sim.state(t).Loans["repay-me"].Address
	r.sim.until(t, 10)
	r.paceInBackground(t)
	frozen := waitFor(t, "a", a, "failpoint "+failpoint.AfterSign+": stopping the process")
	tookOver(t, "SIGSTOP", frozen, waitFor(t, "b", b, logWon))
	waitFor(t, "b", b, logLanded)
	continueFrozen(t, "a", a)
	waitFor(t, "a", a, logNoSigs)
	waitFor(t, "a", a, "standing by")
	r.repaidOnce(t, want, a, b)
	// Frozen inside a write, the old leader finds its session ended by the server; frozen between
	// two writes, its next write finds the lease at term 2, or, once its renewal found it deposed,
	// that it no longer leads. Each way it records nothing and sends nothing.
	reasons := []string{"idle-in-transaction timeout", "deposed: this keeper led term 1, the lease is at term 2",
		"this keeper is not the leader"}
	if !hasLineWhere(a.stderr.String(), func(line string) bool {
		return strings.Contains(line, logNoSigs) && slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(line, r) })
	}) {
		t.Errorf("the old leader's refusal to journal its signatures gives none of the reasons %q; log:\n%s", reasons, a.stderr.String())
	}
}

// TestE2EFailoverLeaderCutOff cuts the leader's database connections (a proxy closes them and
// refuses new ones) just as a repay falls due: the old leader cannot journal an intent, so it does
// not act, and its lease runs out; the standby takes over within 10 s and repays. When the database
// comes back the old leader stands by.
func TestE2EFailoverLeaderCutOff(t *testing.T) {
	t.Parallel()
	r := newHARig(t)
	p := newCutProxy(t, r.dsn)
	a, b := r.pair(t, procOptions{}, p.dsn)
	want := r.sim.state(t).Loans["repay-me"].Address
	p.cut()
	cut := time.Now()
	r.sim.until(t, 10)
	r.paceInBackground(t)
	tookOver(t, "a cut connection", cut, waitFor(t, "b", b, logWon))
	waitFor(t, "a", a, logRanOut)
	waitFor(t, "b", b, logLanded)
	p.restore()
	waitFor(t, "a", a, logStandby)
	r.repaidOnce(t, want, a, b)
	if strings.Contains(a.stderr.String(), logLanded) {
		t.Errorf("the cut-off leader landed an action; log:\n%s", a.stderr.String())
	}
	if strings.Contains(a.stderr.String(), haPassword) {
		t.Errorf("the cut-off leader's log shows its journal password:\n%s", a.stderr.String())
	}
	if !strings.Contains(a.stderr.String(), `"journal":"postgres://keeper:<secret>@127.0.0.1:`) {
		t.Errorf("the leader's start line does not name its journal, redacted; log:\n%s", a.stderr.String())
	}
	if log := a.stderr.String(); !strings.Contains(log, logNoJournal) && !strings.Contains(log, logNoIntent) {
		t.Errorf("the cut-off leader, due to repay while its lease lasted, did not say it could not act; log:\n%s", log)
	}
}

// haPassword is the password in the cut-off leader's journal URL, which no log line may show.
const haPassword = "ha-secret-pw"

// cutProxy forwards TCP connections to a PostgreSQL server until cut: then it closes every
// connection and refuses new ones, as a broken network path would, until restored.
type cutProxy struct {
	dsn string // the journal's URL through the proxy
	ln  net.Listener

	mu      sync.Mutex
	blocked bool
	conns   []net.Conn
}

// newCutProxy starts a proxy to the server of dsn and returns it; it stops at the end of the test.
func newCutProxy(t *testing.T, dsn string) *cutProxy {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	u.Host = ln.Addr().String()
	// The test server trusts loopback and ignores it; keeper must never show it.
	u.User = url.UserPassword(u.User.Username(), haPassword)
	p := &cutProxy{dsn: u.String(), ln: ln}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.serve(target)
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		p.cut()
	})
	return p
}

// serve accepts connections until the listener closes.
func (p *cutProxy) serve(target string) {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		blocked := p.blocked
		if !blocked {
			p.conns = append(p.conns, c)
		}
		p.mu.Unlock()
		if blocked {
			c.Close()
			continue
		}
		go p.forward(c, target)
	}
}

// forward pipes c to a new connection to target, both ways.
func (p *cutProxy) forward(c net.Conn, target string) {
	s, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, s)
	p.mu.Unlock()
	go func() { _, _ = io.Copy(s, c); s.Close() }()
	_, _ = io.Copy(c, s)
	c.Close()
}

// cut closes every connection and refuses new ones.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blocked = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// restore forwards new connections again.
func (p *cutProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blocked = false
}

// TestE2EOnceOnSharedJournal: `keeper run --once` on a PostgreSQL journal acts only as the leader. While
// a daemon leads it refuses to start (exit 2, naming the leader); once the daemon stopped (and
// resigned) it takes the lease, repays, and resigns.
func TestE2EOnceOnSharedJournal(t *testing.T) {
	t.Parallel()
	r := newHARig(t)
	a := r.start(t, "a", r.dsn, procOptions{})
	waitFor(t, "a", a, logLeading)
	cfg := r.w.configEdited(t, "once", []string{r.policy}, func(c map[string]any) {
		section(c, "journal")["dsn"] = r.dsn
	})
	res := runKeeper(t, r.w.dir, "run", "--once", "--config", cfg, "--log-format", "json").wantExit(t, 2)
	if !strings.Contains(res.stderr, "another keeper leads the shared journal (term 1, pid ") {
		t.Errorf("run --once beside a leader does not name it; stderr:\n%s", res.stderr)
	}
	a.stop(t)
	if !strings.Contains(a.stderr.String(), `"msg":"Resigned the lease"`) {
		t.Errorf("the stopped daemon did not resign; log:\n%s", a.stderr.String())
	}
	want := r.sim.state(t).Loans["repay-me"].Address
	r.sim.until(t, 10)
	r.w.once(t, cfg)
	landedOnceAfterCrash(t, r.w, cfg, map[string]string{"auto-repay": want}, true)
}

// TestE2EJournalBlipAfterSend breaks the leader's journal connections right after it sent a repay
// and the chain confirmed it, before it journaled the landing, and brings them back two seconds
// later, as a PostgreSQL restart does to a running leader. The leader must say at ERROR which
// action it could not settle, not announce the landing it could not journal, and settle it from the
// chain while it runs (no restart, no new term): the loan is repaid once and its action is final.
func TestE2EJournalBlipAfterSend(t *testing.T) {
	t.Parallel()
	r := newHARig(t)
	bin := needFailpointBinary(t)
	p := newCutProxy(t, r.dsn)
	a := r.start(t, "a", p.dsn, procOptions{bin: bin, env: []string{failpoint.Env + "=" + failpoint.AfterConfirm + "@stop"}})
	waitFor(t, "a", a, logLeading)
	want := r.sim.state(t).Loans["repay-me"].Address
	r.sim.until(t, 10) // the SOL price falls: repay-me needs a repay
	r.paceInBackground(t)
	waitFor(t, "a", a, "failpoint "+failpoint.AfterConfirm+": stopping the process")
	p.cut()
	continueFrozen(t, "a", a)
	waitFor(t, "a", a, `"msg":"Cannot journal the outcome; keeper settles the action from the chain once the journal answers"`)
	time.Sleep(2 * time.Second) // the database is away for a while: the sweep backs off meanwhile
	p.restore()
	waitFor(t, "a", a, `"msg":"Settled an action the daemon had left unsettled"`)
	if log := a.stderr.String(); strings.Contains(log, logLanded) {
		t.Errorf("the leader announced a landing the journal did not take; log:\n%s", log)
	}
	if strings.Contains(a.stderr.String(), logDeposed) || strings.Contains(a.stderr.String(), logRanOut) {
		t.Fatalf("the leader lost its lease during the blip, so the test did not show the running leader's sweep; log:\n%s", a.stderr.String())
	}
	r.repaidOnce(t, want, a)
}
