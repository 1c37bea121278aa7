package examples_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// deployFiles are the units and the crontab of examples/deploy.
var deployFiles = []string{"deploy/keeper.service", "deploy/keeper-once.service", "deploy/keeper-once.timer", "deploy/crontab"}

// TestDeployUnitsAreHardened scores each service with `systemd-analyze
// security --offline`: the exposure must stay at 2.0 or below.
func TestDeployUnitsAreHardened(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed: the units' exposure is not scored here")
	}
	exposure := regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`)
	for _, unit := range []string{"deploy/keeper.service", "deploy/keeper-once.service"} {
		out, err := exec.Command(analyze, "security", "--offline=true", "--no-pager", unit).CombinedOutput()
		m := exposure.FindSubmatch(out)
		if m == nil {
			t.Errorf("%s: no exposure level (%v):\n%s", unit, err, out)
			continue
		}
		if level, _ := strconv.ParseFloat(string(m[1]), 64); level > 2.0 {
			t.Errorf("%s: exposure %.1f, want at most 2.0:\n%s", unit, level, out)
		}
	}
}

// TestDeployCommandsExist checks every keeper command line of the units and
// the crontab against the binary: each subcommand and flag must exist, the
// credential the units load must be the one the docs configure, and the
// docs must name each file.
func TestDeployCommandsExist(t *testing.T) {
	needBinary(t)
	keeperLine := regexp.MustCompile(`/usr/local/bin/keeper ([^>]*)`)
	absPath := regexp.MustCompile(`/(?:etc|var|usr)/[A-Za-z0-9_./-]+`)
	docs, err := os.ReadFile(filepath.Join("..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range deployFiles {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") {
				continue
			}
			if m := keeperLine.FindStringSubmatch(line); m != nil {
				checkCommandLine(t, file, strings.Fields(m[1]))
			}
			for _, path := range absPath.FindAllString(line, -1) {
				if !strings.HasPrefix(path, "/bin/") && !strings.Contains(string(docs), path) {
					t.Errorf("%s uses %s, which docs/operations.md never names", file, path)
				}
			}
			if cred, ok := strings.CutPrefix(line, "LoadCredential="); ok {
				name, _, _ := strings.Cut(cred, ":")
				if !strings.Contains(string(docs), "${CREDENTIALS_DIRECTORY}/"+name) {
					t.Errorf("%s loads credential %q, which docs/operations.md does not configure as signer.keypair", file, name)
				}
			}
		}
		f.Close()
		if !strings.Contains(string(docs), "examples/"+file) {
			t.Errorf("docs/operations.md does not name examples/%s", file)
		}
	}
}

// checkCommandLine runs `keeper SUBCOMMAND -h` and checks that it knows every
// flag of args.
func checkCommandLine(t *testing.T, file string, args []string) {
	t.Helper()
	if len(args) == 0 {
		t.Errorf("%s: a keeper line without a subcommand", file)
		return
	}
	help := runKeeper(t, "", args[0], "-h")
	if help.code != 0 {
		t.Errorf("%s: keeper %s is no command: %s", file, args[0], help.stderr)
		return
	}
	for _, a := range args[1:] {
		if name, ok := strings.CutPrefix(a, "--"); ok && !strings.Contains(help.stdout, "-"+strings.SplitN(name, "=", 2)[0]+" ") &&
			!strings.Contains(help.stdout, "-"+strings.SplitN(name, "=", 2)[0]+"\n") {
			t.Errorf("%s: keeper %s has no flag %s", file, args[0], a)
		}
	}
}
