package policies

import (
	"slices"
	"text/template"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// Severity is how urgent an alert is.
type Severity string

// The severities.
const (
	SeverityInfo     Severity = "info"
	SeverityWarning  Severity = "warning"
	SeverityCritical Severity = "critical"
)

// AlertParams are the params of an alert policy.
type AlertParams struct {
	// Message is a text/template over the target's facts, addressed by
	// their expression names: {{.loan.health}}, {{.position.in_range}}.
	Message string `yaml:"message"`
	// Severity is info, warning (default) or critical.
	Severity Severity `yaml:"severity"`

	tmpl *template.Template
}

// Kind returns KindAlert.
func (*AlertParams) Kind() Kind { return KindAlert }

func (a *AlertParams) check(b *builder, p *Policy) {
	if !slices.Contains([]Severity{SeverityInfo, SeverityWarning, SeverityCritical}, a.Severity) {
		b.fail([]any{"params", "severity"}, "params.severity must be info, warning or critical, got %q", a.Severity)
	}
	if a.Message == "" {
		b.fail([]any{"params", "message"}, "params.message is required")
		return
	}
	if !slices.Contains(targets, p.Select.Target) {
		return // reported by checkSelect
	}
	tmpl, e := compileTemplate(a.Message, p.Target())
	if e != nil {
		n := strictyaml.Find(b.node, "params", "message")
		line, col := exprPosition(b.r.src, n, e.line, e.col)
		b.r.atPos(line, col, b.name, "params.message: %s", e.msg)
		return
	}
	a.tmpl = tmpl
}
