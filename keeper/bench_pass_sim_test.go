package keeper

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkPassFiftyAlerts is one pass of fifty alert policies over the
// same 10,000 loans, each pass reading afresh: the policies share one read
// of the loans and one derivation of their facts.
func BenchmarkPassFiftyAlerts(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("policies:\n")
	for i := range 50 {
		fmt.Fprintf(&sb, "  - name: health-%d\n    kind: alert\n    schedule: \"@every 1s\"\n    select: { target: loans }\n"+
			"    when: loan.is_active && loan.health < %.3f\n    params: { severity: warning, message: \"loan {{.loan.address}} is low\" }\n",
			i, 0.05+0.2*float64(i)/50)
	}
	w := newSimWorld(b, simOptions{scenario: benchScenario(b, 10_000, 0), configYAML: benchConfig, wallNow: time.Now})
	w.writePolicy(b, "alerts.yaml", sb.String())
	k := w.open(b, "")
	if err := k.RunOnce(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		k.obs.reads.forget()
		if err := k.RunOnce(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
