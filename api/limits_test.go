package api

import (
	"errors"
	"testing"
	"time"
)

func TestSizeTextAndTruncatedOutcome(t *testing.T) {
	for n, want := range map[int64]string{-5: "0 B", 0: "0 B", 512: "512 B", 1536: "1.5 KiB", 1 << 20: "1 MiB", DefaultAnswerCap: "64 MiB", 3 << 30: "3 GiB"} {
		if got := SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", n, got, want)
		}
	}
	at := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	o := Outcome{State: EndOpen, Started: at.Add(-time.Second)}.Truncated(at, DefaultAnswerCap)
	var te *TruncatedError
	if o.State != EndTruncated || !o.Ended.Equal(at) || !errors.As(o.Err, &te) || te.Cap != DefaultAnswerCap {
		t.Fatalf("outcome %+v", o)
	}
	if m := o.Message(); m != "truncated at 64 MiB; what arrived is kept" {
		t.Fatalf("message %q", m)
	}
	// A text cut at the cap is not the whole answer, whatever the server
	// said after: a completed outcome becomes truncated, its end kept.
	done := Outcome{State: EndCompleted, Ended: at.Add(-time.Millisecond)}.Truncated(at, 1<<20)
	if done.State != EndTruncated || !done.Ended.Equal(at.Add(-time.Millisecond)) || done.OK() {
		t.Fatalf("completed then cut: %+v", done)
	}
}
