package notify

import (
	"fmt"
	"strings"
	"time"

	"github.com/keeper-project/keeper/internal/amounts"
)

// Event says what happened.
type Event string

// The events keeper notifies about.
const (
	Landed   Event = "landed"
	Failed   Event = "failed"
	Refused  Event = "refused"
	Alert    Event = "alert"
	Resolved Event = "resolved"
)

// Message is one notification. Every field is safe to publish.
type Message struct {
	Event      Event    `json:"event"`
	Policy     string   `json:"policy"`
	Kind       string   `json:"kind"`
	Target     string   `json:"target"`
	ActionID   string   `json:"action_id,omitempty"`
	Severity   string   `json:"severity,omitempty"`
	Reason     string   `json:"reason"`           // the plan's reason text
	Detail     string   `json:"detail,omitempty"` // the error or refusal rule, when any
	Signatures []string `json:"signatures,omitempty"`
	// Links are the signatures' explorer links, in the same order.
	Links []string `json:"links,omitempty"`
	// Amount is what the action spent at most, for people ("412.5 USDC").
	Amount string `json:"amount,omitempty"`
	// FeeLamports and TipLamports are what the action paid the chain and
	// a Jito validator.
	FeeLamports uint64    `json:"fee_lamports,omitempty"`
	TipLamports uint64    `json:"tip_lamports,omitempty"`
	Time        time.Time `json:"time"`
	// Incident identifies an alert's incident: its opening and its
	// resolution carry the same id, so a receiver can match them.
	Incident string `json:"incident,omitempty"`
	// Value is a resolution's: what the facts its alert's condition reads
	// are now, as the observation that found it cleared saw them
	// ("loan.health 0.3102").
	Value string `json:"value,omitempty"`
	// DryRun marks a message of a dry run: nothing was signed. The
	// Dispatcher posts none unless told to (Options.PostDryRun).
	DryRun bool `json:"dry_run,omitempty"`
	// TargetLink is the target's explorer link, when it is an address.
	TargetLink string `json:"target_link,omitempty"`
	// To names the notifiers that should receive the message; empty means all.
	To []string `json:"-"`
}

// Text renders the message as one human-readable line (for chats, email
// and logs).
func (m Message) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", m.headline(), m.Policy)
	if m.Target != "" {
		fmt.Fprintf(&b, " on %s", m.Target)
	}
	m.writeBody(&b)
	switch {
	case len(m.Links) > 0:
		fmt.Fprintf(&b, " tx %s", strings.Join(m.Links, " "))
	case len(m.Signatures) > 0:
		fmt.Fprintf(&b, " tx %s", strings.Join(m.Signatures, ", "))
	}
	return b.String()
}

// headline is how the line starts: "[keeper] ALERT", "[keeper] DRY RUN
// ALERT".
func (m Message) headline() string {
	h := "[keeper] "
	if m.DryRun {
		h += "DRY RUN "
	}
	return h + strings.ToUpper(string(m.Event))
}

// writeBody writes the reason, detail, value now, amount, costs and incident.
func (m Message) writeBody(b *strings.Builder) {
	fmt.Fprintf(b, ": %s", m.Reason)
	if m.Detail != "" {
		fmt.Fprintf(b, " (%s)", m.Detail)
	}
	if m.Value != "" {
		fmt.Fprintf(b, "; now %s", m.Value)
	}
	if m.Amount != "" {
		fmt.Fprintf(b, "; amount %s", m.Amount)
	}
	if m.FeeLamports+m.TipLamports > 0 {
		fmt.Fprintf(b, "; paid %s fee + %s tip", amounts.SOL(m.FeeLamports), amounts.SOL(m.TipLamports))
	}
	if m.Incident != "" {
		fmt.Fprintf(b, " (incident %s)", m.Incident)
	}
}

// key identifies "the same message" for deduplication.
func (m Message) key() string {
	return string(m.Event) + "\x00" + m.Policy + "\x00" + m.Target + "\x00" + m.Reason + "\x00" + m.Detail
}
