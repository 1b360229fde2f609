// Package present renders the lines that the headless commands and the
// dashboard both show: a response's usage and cost, its timing, its
// one-line summary, a batch's counts. One function per line, so that the
// two never disagree. Output is plain text: callers pass it through their
// sanitizing writer or style it whole.
package present

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
)

// UsageLine is "in 12 (cached 0) · out 340 (reasoning 0) · total 352 ·
// charged $0.0012" (what the server says it charged), or "" without usage.
func UsageLine(u *api.ResponseUsage) string {
	if u == nil {
		return ""
	}
	return fmt.Sprintf("in %s (cached %s) · out %s (reasoning %s) · total %s · charged %s",
		format.Int(u.InputTokens), format.Int(u.InputTokensDetails.CachedTokens),
		format.Int(u.OutputTokens), format.Int(u.OutputTokensDetails.ReasoningTokens),
		format.Int(u.TotalTokens), format.CostPtr(u.Cost))
}

// CostBreakdown is "upstream input $0.0004 · upstream output $0.0008 ·
// upstream total $0.0012", labelled, or "".
func CostBreakdown(u *api.ResponseUsage) string {
	if u == nil || u.CostDetails == nil {
		return ""
	}
	d := u.CostDetails
	s := "upstream input " + format.Cost(d.UpstreamInferenceInputCost) + " · upstream output " + format.Cost(d.UpstreamInferenceOutputCost)
	if d.UpstreamInferenceCost != nil {
		s += " · upstream total " + format.Cost(*d.UpstreamInferenceCost)
	}
	return s
}

// Timing is "ttft 0.61s · 85.2 tok/s · elapsed 4.20s": the rate only for
// a streamed answer (see api.Outcome.TokensPerSecond).
func Timing(o api.Outcome, now time.Time) string {
	var parts []string
	if ttft := o.TTFT(); ttft > 0 && o.Streamed {
		parts = append(parts, "ttft "+format.Seconds(ttft))
	}
	if tps, ok := o.TokensPerSecond(); ok {
		parts = append(parts, format.Float(tps, 1)+" tok/s")
	}
	parts = append(parts, "elapsed "+format.Seconds(o.Elapsed(now)))
	return strings.Join(parts, " · ")
}

// Summary is the one-line summary of a response: how it ended, its usage
// and cost, its timing and its generation id.
func Summary(o api.Outcome, now time.Time) string {
	parts := []string{o.Message()}
	if u := UsageLine(o.Usage()); u != "" {
		parts = append(parts, u)
	}
	parts = append(parts, Timing(o, now))
	if o.GenerationID != "" {
		parts = append(parts, "generation "+o.GenerationID)
	}
	return strings.Join(parts, " · ")
}

// Counts is "184 completed · 16 failed · 0 pending · 200 total", with the
// server's numbers as received; the requests of a settled batch that never
// ran are "not run", not pending (see NotDone).
func Counts(rc api.RequestCounts, st api.BatchStatus) string {
	return fmt.Sprintf("%s completed · %s failed · %s %s · %s total",
		format.Int(rc.Completed), format.Int(rc.Failed), format.Int(rc.Pending()), NotDone(st, rc.Pending()), format.Int(rc.Total))
}

// NotDone names the n requests neither completed nor failed: "pending"
// while the batch can still run them, "not run" once it is settled
// (expired, cancelled, failed) with some left: they never will.
func NotDone(st api.BatchStatus, n int) string {
	if st.Terminal() && n > 0 {
		return "not run"
	}
	return "pending"
}

// ShortCounts is a list row's "184/16/200" (completed/failed/total).
func ShortCounts(rc api.RequestCounts) string {
	return format.Int(rc.Completed) + "/" + format.Int(rc.Failed) + "/" + format.Int(rc.Total)
}

// BatchCost is a list row's cost: "—" before the batch has usage.
func BatchCost(b *api.Batch) string {
	if b.Usage == nil {
		return "—"
	}
	return format.CostPtr(b.Usage.Cost)
}

// Status renders a batch status; an unknown one says so.
func Status(s api.BatchStatus) string {
	if s.Known() {
		return string(s)
	}
	return "unknown status “" + string(s) + "”"
}

// Price renders a per-million price: "$0.15", "free", "router" (the
// routed model's price), "—" unknown.
func Price(p api.Price) string {
	switch {
	case !p.Known:
		return "—"
	case p.Routed:
		return "router"
	case p.PerMillion == 0:
		return "free"
	}
	return format.Cost(p.PerMillion)
}

// Credit is the key's credit line: "$3.20 of $10.00 left this month",
// "$12.40 used, no limit".
func Credit(k *api.KeyInfo) string {
	if k == nil {
		return ""
	}
	if k.Limit == nil {
		return format.Cost(k.Usage) + " used, no limit"
	}
	if *k.Limit >= format.Huge {
		return format.Cost(k.Usage) + " used, " + format.Limit(k.Limit)
	}
	left := *k.Limit - k.Usage
	if k.LimitRemaining != nil {
		left = *k.LimitRemaining
	}
	s := format.Cost(max(0, left)) + " of " + format.Cost(*k.Limit) + " left"
	if k.LimitReset != nil && *k.LimitReset != "" {
		switch *k.LimitReset {
		case "monthly":
			s += " this month"
		case "weekly":
			s += " this week"
		case "daily":
			s += " today"
		default:
			s += " (resets " + *k.LimitReset + ")"
		}
	}
	return s
}

// GenerationRows are a generation record's labelled rows.
func GenerationRows(g *api.Generation) [][2]string {
	str := func(p *string) string {
		if p == nil || *p == "" {
			return "—"
		}
		return *p
	}
	ms := func(p *float64) string {
		if p == nil {
			return "—"
		}
		return format.Seconds(time.Duration(*p * float64(time.Millisecond)))
	}
	n := func(p *int64) string {
		if p == nil {
			return "—"
		}
		return format.Int(int(*p))
	}
	yes := func(p *bool) string {
		if p == nil {
			return "—"
		}
		return format.OnOff(*p) // the one word for a boolean
	}
	return [][2]string{
		{"generation", g.ID},
		{"model", g.Model},
		{"provider", str(g.ProviderName)},
		{"created", g.CreatedAt},
		{"latency", ms(g.Latency)},
		{"generation time", ms(g.GenerationTime)},
		{"tokens", "prompt " + n(g.TokensPrompt) + " · completion " + n(g.TokensCompletion)},
		{"native tokens", "prompt " + n(g.NativeTokensPrompt) + " · completion " + n(g.NativeTokensCompletion) + " · reasoning " + n(g.NativeTokensReasoning) + " · cached " + n(g.NativeTokensCached)},
		{"total cost", format.CostPtr(g.TotalCost)},
		{"upstream cost", format.CostPtr(g.UpstreamInferenceCost)},
		{"finish", str(g.FinishReason)},
		{"streamed", yes(g.Streamed)},
		{"cancelled", yes(g.Cancelled)},
		{"BYOK", yes(g.IsBYOK)},
		{"data region", str(g.DataRegion)},
		{"providers tried", orDash(Attempts(g.ProviderResponses))},
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Attempts is the providers tried for a generation, in order, each with
// its status and latency: "Azure 429 (41ms) → OpenAI 200 (350ms)"; ""
// when none is listed.
func Attempts(rs []api.ProviderResponse) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		name := "?"
		if r.ProviderName != nil && *r.ProviderName != "" {
			name = *r.ProviderName
		}
		p := name + " " + Count(r.Status)
		if r.Latency != nil && *r.Latency >= 0 && *r.Latency < 1e9 {
			p += fmt.Sprintf(" (%dms)", int64(*r.Latency))
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " → ")
}

// Count renders a count the server sent as a number: "240", "—" when
// absent, a fraction or a huge value in short scientific form.
func Count(p *float64) string {
	switch {
	case p == nil:
		return "—"
	case *p == float64(int64(*p)) && *p > -1e15 && *p < 1e15:
		return format.Int(int(*p))
	}
	return fmt.Sprintf("%.3g", *p)
}

// Balance is the organisation's credit balance: "$12.35 left of $25.00".
func Balance(c *api.Credits) string {
	if c == nil {
		return ""
	}
	return format.Cost(c.Balance()) + " left of " + format.Cost(c.TotalCredits)
}

// KeyRows are the key's labelled rows: its credit, what it used, its BYOK
// spend, its rate limit (with the service's note), today's free-model
// requests, its kind, data regions, workspace and expiry. Rows the server
// did not send are left out.
func KeyRows(k *api.KeyInfo) [][2]string {
	rows := [][2]string{{"credit", Credit(k)}}
	if k.Label != "" {
		rows = append(rows, [2]string{"label", k.Label})
	}
	rows = append(rows, [2]string{"used", "today " + format.CostPtr(k.UsageDaily) + " · this week " + format.CostPtr(k.UsageWeekly) + " · this month " + format.CostPtr(k.UsageMonthly) + " · in all " + format.Cost(k.Usage)})
	if k.BYOKUsage != nil {
		in := "not counted in the limit"
		if k.IncludeBYOKInLimit {
			in = "counted in the limit"
		}
		rows = append(rows, [2]string{"BYOK usage", "today " + format.CostPtr(k.BYOKUsageDaily) + " · this week " + format.CostPtr(k.BYOKUsageWeekly) + " · this month " + format.CostPtr(k.BYOKUsageMonthly) + " · in all " + format.CostPtr(k.BYOKUsage) + " (" + in + ")"})
	}
	if r := k.RateLimit; r != nil {
		s := Count(r.Requests) + " requests"
		if r.Interval != "" {
			s += " per " + r.Interval
		}
		// The service's note, unless it only says the same again.
		if r.Note != "" && !strings.Contains(r.Note, Count(r.Requests)+" requests") {
			s += " — " + r.Note
		}
		rows = append(rows, [2]string{"rate limit", s})
	}
	if f := k.FreeModelDailyRequests; f != nil {
		rows = append(rows, [2]string{"free models", Count(f.Remaining) + " of " + Count(f.Limit) + " requests left today (" + Count(f.Used) + " used)"})
	}
	kind := "API key"
	if k.IsManagementKey {
		kind = "management key"
	}
	if k.IsFreeTier {
		kind += " (free tier)"
	}
	rows = append(rows, [2]string{"kind", kind})
	if len(k.AllowedDataRegions) > 0 {
		rows = append(rows, [2]string{"data regions", strings.Join(k.AllowedDataRegions, ", ")})
	}
	if k.WorkspaceID != nil && *k.WorkspaceID != "" {
		rows = append(rows, [2]string{"workspace", *k.WorkspaceID})
	}
	if k.ExpiresAt != nil {
		rows = append(rows, [2]string{"expires", *k.ExpiresAt})
	}
	return rows
}

// Ranking ranks compared answers: by time to first token, by speed and by
// cost, one line each, best first; answers without the figure are left
// out of that line.
func Ranking(os []api.Outcome) []string {
	type entry struct {
		model string
		v     float64
		text  string
	}
	rank := func(title string, less func(a, b float64) bool, get func(o api.Outcome) (float64, string, bool)) string {
		var es []entry
		for _, o := range os {
			if v, text, ok := get(o); ok {
				es = append(es, entry{o.Model, v, text})
			}
		}
		if len(es) == 0 {
			return ""
		}
		for i := 1; i < len(es); i++ {
			for j := i; j > 0 && less(es[j].v, es[j-1].v); j-- {
				es[j], es[j-1] = es[j-1], es[j]
			}
		}
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = fmt.Sprintf("%d. %s %s", i+1, e.model, e.text)
		}
		return title + ": " + strings.Join(parts, "  ")
	}
	lo := func(a, b float64) bool { return a < b }
	hi := func(a, b float64) bool { return a > b }
	var out []string
	for _, line := range []string{
		rank("first token", lo, func(o api.Outcome) (float64, string, bool) {
			t := o.TTFT()
			return t.Seconds(), format.Seconds(t), t > 0 && o.Streamed
		}),
		rank("speed", hi, func(o api.Outcome) (float64, string, bool) {
			v, ok := o.TokensPerSecond()
			return v, format.Float(v, 1) + " tok/s", ok
		}),
		rank("cost", lo, func(o api.Outcome) (float64, string, bool) {
			c := o.Cost()
			if c == nil {
				return 0, "", false
			}
			return *c, format.Cost(*c), true
		}),
	} {
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// CostDetailParts labels a cost_details object: each member a label and
// its amount ("upstream total", "$0.0012"); members that are null are
// left out, and a member that is not a number is shown as sent.
func CostDetailParts(raw json.RawMessage) [][2]string {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out [][2]string
	for _, k := range keys {
		v := m[k]
		if string(v) == "null" {
			continue
		}
		label := strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(k, "upstream_inference_"), "upstream_"), "_", " ")
		if strings.HasPrefix(k, "upstream") {
			label = "upstream " + strings.TrimSuffix(label, " cost")
		}
		var f float64
		if json.Unmarshal(v, &f) == nil {
			out = append(out, [2]string{label, format.Cost(f)})
		} else {
			out = append(out, [2]string{label, string(v)})
		}
	}
	return out
}

// Estimate renders a cost estimate made before sending; the caller
// labels it as one ("estimate", "estimated before").
func Estimate(e api.Estimate) string {
	if e.Routed {
		return "the price is that of the model the router picks"
	}
	about := func(c float64) string {
		s := format.Cost(c)
		if strings.HasPrefix(s, "<") {
			return s
		}
		return "~" + s
	}
	var parts []string
	if e.InputKnown {
		parts = append(parts, "input "+about(e.Input)+" (~"+format.Plural(e.InputTokens, "token", "tokens")+")")
	}
	if e.MaxOutputKnown {
		parts = append(parts, "output at most "+format.Cost(e.MaxOutput)+" ("+format.Int(int(e.MaxOutputTokens))+" tokens, reasoning included)")
	}
	if len(parts) == 0 {
		return "no price known for this model"
	}
	return strings.Join(parts, " · ")
}

// GenerationLine is a generation record on one line: provider, latency,
// generation time, native tokens and total cost.
func GenerationLine(g *api.Generation) string {
	var parts []string
	if g.ProviderName != nil && *g.ProviderName != "" {
		parts = append(parts, "provider "+*g.ProviderName)
	}
	ms := func(p *float64) string { return format.Seconds(time.Duration(*p * float64(time.Millisecond))) }
	if g.Latency != nil {
		parts = append(parts, "latency "+ms(g.Latency))
	}
	if g.GenerationTime != nil {
		parts = append(parts, "generation "+ms(g.GenerationTime))
	}
	n := func(p *int64) string {
		if p == nil {
			return "?"
		}
		return format.Int(int(*p))
	}
	if g.NativeTokensPrompt != nil || g.NativeTokensCompletion != nil {
		parts = append(parts, "native tokens "+n(g.NativeTokensPrompt)+" in / "+n(g.NativeTokensCompletion)+" out / "+n(g.NativeTokensReasoning)+" reasoning")
	}
	if g.TotalCost != nil {
		parts = append(parts, "charged "+format.Cost(*g.TotalCost))
	}
	if len(g.ProviderResponses) > 1 {
		parts = append(parts, "fallback: tried "+Attempts(g.ProviderResponses))
	}
	if g.DataRegion != nil && *g.DataRegion != "" {
		parts = append(parts, "region "+*g.DataRegion)
	}
	parts = append(parts, g.ID)
	return strings.Join(parts, " · ")
}

// ModelContext is a model's context length, or "—" when not listed.
func ModelContext(m *api.Model) string {
	if n := m.Context(); n > 0 {
		return format.Int(int(n))
	}
	return "—"
}

// ModelNote marks a router model (priced by what it routes to) or a free
// one, else "".
func ModelNote(m *api.Model) string {
	switch {
	case m.Router():
		return "router"
	case m.Free():
		return "free"
	}
	return ""
}
