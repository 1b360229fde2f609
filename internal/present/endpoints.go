package present

import (
	"fmt"

	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
)

// EndpointHeader names the columns of EndpointRow.
var EndpointHeader = []string{"PROVIDER", "INPUT $/M", "OUTPUT $/M", "CONTEXT", "QUANT", "UPTIME 1D", "LATENCY P50", "TOKENS/S P50", "STATUS"}

// EndpointRow is one provider of a model, as `gwdash models endpoints`
// and a providers panel show it; "—" where the service sent nothing.
func EndpointRow(e *api.Endpoint) []string {
	quant := "—"
	if e.Quantization != nil && *e.Quantization != "" {
		quant = *e.Quantization
	}
	uptime := "—"
	if e.UptimeLast1d != nil {
		uptime = fmt.Sprintf("%.1f%%", *e.UptimeLast1d)
	}
	latency, speed := "—", "—"
	if e.LatencyLast30m != nil {
		latency = fmt.Sprintf("%.0f ms", e.LatencyLast30m.P50)
	}
	if e.ThroughputLast30m != nil {
		speed = fmt.Sprintf("%.0f", e.ThroughputLast30m.P50)
	}
	ctx := "—"
	if e.ContextLength > 0 {
		ctx = format.Int(int(e.ContextLength))
	}
	return []string{e.ProviderName, Price(e.PriceOf("prompt")), Price(e.PriceOf("completion")), ctx, quant, uptime, latency, speed, e.StatusWord()}
}
