package journal

import (
	"testing"
	"time"
)

// TestTriggerFiringsAccumulate records two batches of firings: counts add
// up per trigger, the last firing is the latest batch's, and other
// policies' triggers stay apart.
func TestTriggerFiringsAccumulate(t *testing.T) {
	j := openDSN(t, "sqlite::memory:", newClock())
	ctx := t.Context()
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if err := j.RecordTriggerFirings(ctx, []TriggerFiring{
		{Policy: "p", Trigger: "price X ±3%", Fired: 2, LastFired: at, LastSlot: 50, Detail: "X moved -5%"},
		{Policy: "q", Trigger: "slot every 10", Fired: 1, LastFired: at, LastSlot: 60},
	}); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordTriggerFirings(ctx, []TriggerFiring{
		{Policy: "p", Trigger: "price X ±3%", Fired: 1, LastFired: at.Add(time.Minute), LastSlot: 200, Detail: "X moved +4%"},
	}); err != nil {
		t.Fatal(err)
	}
	got, err := j.TriggerFirings(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	want := TriggerFiring{Policy: "p", Trigger: "price X ±3%", Fired: 3, LastFired: at.Add(time.Minute), LastSlot: 200, Detail: "X moved +4%"}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("firings %+v, want [%+v]", got, want)
	}
	if err := j.RecordTriggerFirings(ctx, []TriggerFiring{{Policy: "p"}}); err == nil {
		t.Error("a firing without a trigger was recorded")
	}
}
