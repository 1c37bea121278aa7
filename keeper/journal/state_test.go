package journal

import "testing"

func TestStateTransitions(t *testing.T) {
	// legal is the transition table from the design, written out pair by
	// pair independently of the implementation's map.
	legal := map[[2]State]bool{
		{StatePlanned, StateBuilt}:     true,
		{StatePlanned, StateExpired}:   true, // build abandoned, nothing signed
		{StatePlanned, StateFailed}:    true,
		{StatePlanned, StateRefused}:   true,
		{StatePlanned, StateSkipped}:   true,
		{StateBuilt, StateSigned}:      true,
		{StateBuilt, StateExpired}:     true,
		{StateBuilt, StateFailed}:      true,
		{StateBuilt, StateRefused}:     true,
		{StateBuilt, StateSkipped}:     true,
		{StateSigned, StateSubmitted}:  true,
		{StateSigned, StateLanded}:     true,
		{StateSigned, StateFailed}:     true,
		{StateSigned, StateExpired}:    true,
		{StateSigned, StateRefused}:    true, // a later transaction of an RPC sequence
		{StateSubmitted, StateRefused}: true,
		{StateSubmitted, StateLanded}:  true,
		{StateSubmitted, StateFailed}:  true,
		{StateSubmitted, StateExpired}: true,
		{StateExpired, StateBuilt}:     true,
		{StateExpired, StateExpired}:   true, // a later attempt abandoned before signing
		{StateExpired, StateFailed}:    true,
		{StateExpired, StateRefused}:   true,
		{StateExpired, StateSkipped}:   true,
	}
	all := append(States(), State(""), State("bogus"))
	for _, from := range all {
		for _, to := range all {
			if got, want := from.CanBecome(to), legal[[2]State{from, to}]; got != want {
				t.Errorf("%q.CanBecome(%q) = %v, want %v", from, to, got, want)
			}
		}
	}
}

func TestStateFinalAndValid(t *testing.T) {
	tests := []struct {
		s            State
		valid, final bool
	}{
		{StatePlanned, true, false},
		{StateBuilt, true, false},
		{StateSigned, true, false},
		{StateSubmitted, true, false},
		{StateExpired, true, false},
		{StateLanded, true, true},
		{StateFailed, true, true},
		{StateRefused, true, true},
		{StateSkipped, true, true},
		{"", false, false},
		{"done", false, false},
	}
	for _, tt := range tests {
		if tt.s.Valid() != tt.valid || tt.s.Final() != tt.final {
			t.Errorf("%q: Valid %v Final %v, want %v %v", tt.s, tt.s.Valid(), tt.s.Final(), tt.valid, tt.final)
		}
	}
	if n := len(States()); n != 9 {
		t.Errorf("States() has %d states, want 9", n)
	}
}

func TestModeValid(t *testing.T) {
	for m, want := range map[Mode]bool{ModeRPC: true, ModeBundle: true, "": false, "jito": false} {
		if m.Valid() != want {
			t.Errorf("Mode(%q).Valid() = %v, want %v", m, m.Valid(), want)
		}
	}
}
