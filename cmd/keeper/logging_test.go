package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestJSONLogsWriteDurationsInSeconds: a duration is a number of seconds in
// a JSON log line, not integer nanoseconds.
func TestJSONLogsWriteDurationsInSeconds(t *testing.T) {
	var b bytes.Buffer
	l, err := newLogger(&b, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("Alert resolved", "open_for", 5500*time.Millisecond, "timeout", 30*time.Second)
	if !strings.Contains(b.String(), `"open_for":5.5,`) || !strings.Contains(b.String(), `"timeout":30}`) {
		t.Errorf("durations not in seconds: %s", b.String())
	}
}

// TestNoColorOnATerminal: NO_COLOR turns the colours of the text logs off
// on a terminal, as no-color.org asks; without it a terminal gets colours.
func TestNoColorOnATerminal(t *testing.T) {
	for _, colour := range []bool{true, false} {
		var b bytes.Buffer
		l, err := newLoggerFor(&b, "info", "auto", true, colour)
		if err != nil {
			t.Fatal(err)
		}
		l.Warn("paused")
		if got := strings.Contains(b.String(), "\x1b["); got != colour {
			t.Errorf("colour allowed %v: escape codes %v in %q", colour, got, b.String())
		}
	}
	t.Setenv("NO_COLOR", "")
	if !colourAllowed() {
		t.Error("NO_COLOR empty: colours refused")
	}
	t.Setenv("NO_COLOR", "1")
	if colourAllowed() {
		t.Error("NO_COLOR=1: colours allowed")
	}
}
