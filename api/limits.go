package api

// The answer cap: how much answer text one answer may keep (the
// playground, each compare pane, the spool of a multi-model respond), and
// the end state of an answer stopped at it.

import (
	"fmt"
	"time"
)

// DefaultAnswerCap is the most answer text (output, reasoning and refusal
// together, in bytes) that one answer keeps when nothing else is set.
// Past it the stream is stopped and the answer ends EndTruncated, with
// what arrived kept.
const DefaultAnswerCap = 64 << 20

// EndTruncated: the answer reached the answer cap (config answer_cap_mb)
// and its stream was stopped; what arrived (up to the cap) is kept.
const EndTruncated EndState = "truncated"

// TruncatedError is the Err of an answer stopped at the cap.
type TruncatedError struct {
	Cap int64
}

func (e *TruncatedError) Error() string {
	return "truncated at " + SizeText(e.Cap) + "; what arrived is kept"
}

// Truncated is the outcome of an answer whose text was cut at the cap (its
// stream stopped at a time): whatever the server said after, the text
// kept is not the whole answer. An end time already set is kept.
func (o Outcome) Truncated(at time.Time, limit int64) Outcome {
	o.State, o.TruncatedAt, o.Err = EndTruncated, limit, &TruncatedError{Cap: limit}
	if o.Ended.IsZero() {
		o.Ended = at
	}
	return o
}

// SizeText words a byte count in binary units ("64 MiB", "1.5 KiB",
// "512 B").
func SizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", max(n, 0))
	}
	v, i := float64(n), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	s := fmt.Sprintf("%.1f", v)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s + " " + string("KMGTPE"[i]) + "iB"
}
