package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loadWith loads text as a config file in a temporary folder with env as
// the whole environment.
func loadWith(t *testing.T, text string, env map[string]string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	return Load(filepath.Join(dir, "config.yaml"), dir, []byte(text), func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	})
}

// bareConfig is the least a config says, plus the chain keys in chain (a
// flow mapping's members) and any further lines.
func bareConfig(chain string, more ...string) string {
	if chain != "" {
		chain = ", " + chain
	}
	return "policies: [\"*.yaml\"]\nmarket: { program_id: SimMarket1111111111111111111111111111111111 }\n" +
		"chain: { dex_a_program: SimDexA111111111111111111111111111111111111, dex_b_program: SimDexB111111111111111111111111111111111111" +
		chain + " }\n" + strings.Join(more, "")
}

func TestRPCMonikers(t *testing.T) {
	for moniker, want := range map[string]string{
		"devnet": "https://api.devnet.solana.com", "mainnet-beta": "https://api.mainnet-beta.solana.com",
		"testnet": "https://api.testnet.solana.com", "localhost": "http://localhost:8899",
	} {
		c, err := loadWith(t, bareConfig("rpc_url: "+moniker+", rpc_urls: [d]"), nil)
		if err != nil {
			t.Fatalf("rpc_url %s: %v", moniker, err)
		}
		if c.Chain.RPCURL.Reveal() != want || c.Chain.RPCURLs[0].Reveal() != "https://api.devnet.solana.com" {
			t.Errorf("rpc_url %s = %s (%v), want %s", moniker, c.Chain.RPCURL.Reveal(), c.Chain.RPCURLs, want)
		}
	}
	c, _ := loadWith(t, bareConfig("rpc_url: devnet"), nil)
	if c.Explorer.Cluster != "devnet" || c.Explorer.Name != "solscan" {
		t.Errorf("explorer for devnet = %+v, want solscan on devnet", c.Explorer)
	}
	_, err := loadWith(t, bareConfig("rpc_url: devnt"), nil)
	if err == nil || !strings.Contains(err.Error(), `got "devnt"`) || !strings.Contains(err.Error(), "devnet") {
		t.Errorf("a misspelt moniker: %v, want the word shown and the monikers named", err)
	}
	_, err = loadWith(t, bareConfig(`rpc_url: "ftp://rpc.example/key-123"`), nil)
	if err == nil || strings.Contains(err.Error(), "key-123") {
		t.Errorf("a bad keyed URL: %v, want it refused without its path", err)
	}
}

func TestSolanaCLIConfig(t *testing.T) {
	home := t.TempDir()
	cli := filepath.Join(home, ".config", "solana", "cli")
	if err := os.MkdirAll(cli, 0o755); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(home, "wallets", "ops.json")
	yml := "---\njson_rpc_url: \"https://api.devnet.solana.com\"\nwebsocket_url: \"\"\nkeypair_path: " + key + "\ncommitment: confirmed\n"
	if err := os.WriteFile(filepath.Join(cli, "config.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home}
	c, err := loadWith(t, bareConfig(""), env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Chain.RPCURL.Reveal() != "https://api.devnet.solana.com" || c.Signer.Keypair != key ||
		!slices.Equal(c.FromSolanaCLI, []string{"chain.rpc_url", "signer.keypair"}) || c.SolanaCLIPath != filepath.Join(cli, "config.yml") {
		t.Errorf("from the Solana CLI: rpc %s keypair %s from %v (%s)", c.Chain.RPCURL.Reveal(), c.Signer.Keypair, c.FromSolanaCLI, c.SolanaCLIPath)
	}
	c, err = loadWith(t, bareConfig("rpc_url: testnet", "signer: { secret_env: K }\n"), env)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.FromSolanaCLI) != 0 || c.Chain.RPCURL.Reveal() != "https://api.testnet.solana.com" {
		t.Errorf("a config that sets both took %v from the Solana CLI (rpc %s)", c.FromSolanaCLI, c.Chain.RPCURL.Reveal())
	}
	c, err = loadWith(t, bareConfig(""), map[string]string{"HOME": t.TempDir()})
	if err != nil || len(c.FromSolanaCLI) != 0 || c.Chain.RPCURL != Default().Chain.RPCURL {
		t.Errorf("without a Solana CLI config: %v, %v; want the defaults", err, c)
	}
}

func TestSetRPC(t *testing.T) {
	c, err := loadWith(t, bareConfig(""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Explorer.Cluster != "custom" {
		t.Fatalf("default explorer cluster %q, want custom for the local simulator", c.Explorer.Cluster)
	}
	if err := c.SetRPC("m"); err != nil || c.Chain.RPCURL.Reveal() != "https://api.mainnet-beta.solana.com" ||
		c.Explorer.Cluster != "mainnet-beta" || c.Explorer.Name != "solscan" {
		t.Errorf("SetRPC(m) = %v: rpc %s explorer %+v", err, c.Chain.RPCURL.Reveal(), c.Explorer)
	}
	if err := c.SetRPC("mainnet"); err == nil || !strings.Contains(err.Error(), "mainnet") {
		t.Errorf("SetRPC(mainnet) = %v, want an error showing the word", err)
	}
}

func TestUnknownAndMissingKeysTogether(t *testing.T) {
	_, err := loadWith(t, "policies: [\"*.yaml\"]\nmarket: { program_idd: X }\nchain: { rpc_url: devnet }\n", nil)
	if err == nil {
		t.Fatal("a config with an unknown key and missing program ids loaded")
	}
	for _, want := range []string{`unknown field "program_idd"`, "market.program_id is required"} { // dex programs are not
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
}

func TestNotifierChannels(t *testing.T) {
	good := bareConfig("", `notifiers:
  - { name: pd, type: pagerduty, routing_key: R0UTE }
  - { name: tg, type: telegram, url: "https://api.telegram.org/botT0KEN/sendMessage", chat_id: "-1001" }
  - { name: dc, type: discord, url: "https://discord.example/api/webhooks/1/x" }
  - { name: mail, type: email, url: "smtp://mail.example:587", from: keeper@example.com, to: [ops@example.com], username: k, password: pw }
`)
	c, err := loadWith(t, good, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Notifiers[0].URL.Reveal() != "https://events.pagerduty.com/v2/enqueue" || c.Notifiers[0].RoutingKey.Reveal() != "R0UTE" {
		t.Errorf("pagerduty = %+v", c.Notifiers[0])
	}
	if strings.Contains(fmt.Sprintf("%+v %v", c.Notifiers, c.Dump()), "R0UTE") || strings.Contains(c.Dump(), "pw") && strings.Contains(c.Dump(), "password: pw") {
		t.Error("a notifier secret is printed")
	}
	bad := bareConfig("", `notifiers:
  - { name: pd, type: pagerduty }
  - { name: tg, type: telegram, url: "https://api.telegram.org/botT0KEN/sendMessage" }
  - { name: mail, type: email, url: "https://mail.example", from: nobody, to: [] }
`)
	_, err = loadWith(t, bad, nil)
	for _, want := range []string{"routing_key (or routing_key_file) is required", "chat_id is required", "smtp://host[:port]"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q: %v", want, err)
		}
	}
}
