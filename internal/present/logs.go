package present

// A row of the request log, worded once for `gwdash logs show` and the
// Logs view's detail.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/reqlog"
)

// LogTokens is a row's tokens in → out ("—" when none were counted).
func LogTokens(e *reqlog.Entry) string {
	if e.InputTokens == nil && e.OutputTokens == nil {
		return "—"
	}
	n := func(p *int64) string {
		if p == nil {
			return "?"
		}
		return format.Int(int(*p))
	}
	return n(e.InputTokens) + "→" + n(e.OutputTokens)
}

// LogTTFT is a row's time to first token ("—" when unknown).
func LogTTFT(ms *int64) string {
	if ms == nil {
		return "—"
	}
	return format.Seconds(time.Duration(*ms) * time.Millisecond)
}

// LogEntryRows are the label and value of each thing known of a row, in
// the order shown; empty values are left out. The text is the log's own
// (from the network once): the caller draws it through textsafe.
func LogEntryRows(e *reqlog.Entry) [][2]string {
	var rows [][2]string
	add := func(k, v string) {
		if v != "" && v != "—" {
			rows = append(rows, [2]string{k, v})
		}
	}
	add("id", strconv.FormatInt(e.ID, 10))
	add("time", format.LocalTime(e.Time))
	add("kind", e.Kind)
	add("profile", e.Profile)
	add("host", e.Host)
	add("model", e.Model)
	if e.ModelServed != e.Model {
		add("served by", e.ModelServed)
	}
	add("provider", e.Provider)
	add("state", e.State)
	add("error", e.Error)
	add("tokens", LogTokens(e))
	if e.ReasoningTokens != nil && *e.ReasoningTokens > 0 {
		add("reasoning", format.Int(int(*e.ReasoningTokens)))
	}
	add("cost", format.CostPtr(e.Cost))
	add("ttft", LogTTFT(e.TTFTMillis))
	if e.TokensPerSecond != nil {
		add("tokens/s", fmt.Sprintf("%.1f", *e.TokensPerSecond))
	}
	add("generation", e.GenerationID)
	add("batch", e.BatchID)
	add("compare group", e.CompareGroup)
	if e.ConversationID != nil && *e.ConversationID != e.ID {
		add("conversation", "continues request "+strconv.FormatInt(*e.ConversationID, 10))
	}
	if e.ReplayOf != nil {
		add("replays", "request "+strconv.FormatInt(*e.ReplayOf, 10))
	}
	return rows
}
