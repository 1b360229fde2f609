package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/gwdash/gwdash/api"
	"github.com/gwdash/gwdash/internal/format"
	"github.com/gwdash/gwdash/internal/textsafe"
)

// detailOpts choose what the detail of a result shows.
type detailOpts struct {
	raw       bool
	reasoning bool
	logprobs  bool
}

// renderResult renders one result item for a width: its body by shape,
// or its error. All server text is sanitised here.
func renderResult(s Styles, it *api.ResultItem, width int, o detailOpts) string {
	width = max(20, width)
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	label := func(l, v string) { w("%s %s\n", s.Label.Render(l), s.Value.Render(textsafe.Line(v))) }
	label("custom_id", it.CustomID)
	label("id       ", it.ID)
	if o.raw {
		w("\n%s\n", s.Title.Render("Raw JSON"))
		var pretty bytes.Buffer
		if json.Indent(&pretty, it.Raw, "", "  ") != nil {
			pretty.Write(it.Raw)
		}
		b.WriteString(wrap(textsafe.Clean(pretty.String()), width))
		return b.String()
	}
	if e := it.Error; e != nil {
		w("\n%s\n", s.Error.Render("Failed"))
		label("type      ", e.Type)
		label("error_type", it.ErrorTypeName())
		label("param     ", deref(e.Param, "—"))
		w("%s\n%s\n", s.Label.Render("message"), wrap(textsafe.Clean(e.Message), width))
		return b.String()
	}
	if it.Response == nil {
		w("\n%s\n", s.Muted.Render("no response and no error"))
		return b.String()
	}
	rid := "—"
	if it.Response.RequestID != nil {
		rid = *it.Response.RequestID
	}
	label("status   ", fmt.Sprint(it.Response.StatusCode))
	label("request  ", rid)
	body, err := api.DecodeBody(it.Response.Body)
	if err != nil {
		w("\n%s %s\n", s.Error.Render("body did not decode:"), textsafe.Line(err.Error()))
	}
	switch body.Kind {
	case api.BodyChatCompletion:
		renderChat(&b, s, body.Chat, width, o)
	case api.BodyResponse:
		renderResponse(&b, s, body.Response, width)
	case api.BodyMessage:
		renderMessage(&b, s, body.Message, width)
	case api.BodyEmbeddings:
		renderEmbeddings(&b, s, body.Embeddings)
	default:
		w("\n%s\n", s.Warning.Render("unrecognised body shape (press J for the raw JSON)"))
	}
	return b.String()
}

func deref(p *string, def string) string {
	if p == nil || *p == "" {
		return def
	}
	return *p
}

// wrap sanitises nothing: callers pass clean text.
func wrap(s string, width int) string { return ansi.Wrap(s, width, " ") }

func renderChat(b *strings.Builder, s Styles, c *api.ChatCompletion, width int, o detailOpts) {
	fmt.Fprintf(b, "%s %s   %s %s\n", s.Label.Render("model"), textsafe.Line(c.Model), s.Label.Render("provider"), textsafe.Line(deref(c.Provider, "—")))
	if u := c.Usage; u != nil {
		fmt.Fprintf(b, "%s prompt %s · completion %s · total %s · cost %s\n", s.Label.Render("usage"),
			format.Int(u.PromptTokens), format.Int(u.CompletionTokens), format.Int(u.TotalTokens), format.CostPtr(u.Cost))
	}
	for _, ch := range c.Choices {
		fmt.Fprintf(b, "\n%s %s\n", s.Title.Render(fmt.Sprintf("Choice %d", ch.Index)),
			s.Muted.Render("finish: "+textsafe.Line(deref(ch.FinishReason, "—"))+" (native: "+textsafe.Line(deref(ch.NativeFinishReason, "—"))+")"))
		m := ch.Message
		if m.Reasoning != nil && *m.Reasoning != "" {
			if o.reasoning {
				fmt.Fprintf(b, "%s\n%s\n", s.Reasoning.Render("▾ reasoning (R to fold)"), s.Reasoning.Render(wrap(textsafe.Clean(*m.Reasoning), width)))
			} else {
				fmt.Fprintf(b, "%s\n", s.Reasoning.Render(fmt.Sprintf("▸ reasoning, %d characters (R to unfold)", len(*m.Reasoning))))
			}
		}
		if m.Refusal != nil && *m.Refusal != "" {
			fmt.Fprintf(b, "%s %s\n", s.Refusal.Render("refusal:"), s.Refusal.Render(wrap(textsafe.Clean(*m.Refusal), width)))
		}
		if m.Content != nil && *m.Content != "" {
			b.WriteString(wrap(textsafe.Clean(*m.Content), width))
			b.WriteString("\n")
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(b, "%s %s %s\n", s.Info.Render("tool call"), textsafe.Line(tc.Function.Name), s.Muted.Render(textsafe.Line(tc.ID)))
			var pretty bytes.Buffer
			if json.Indent(&pretty, []byte(tc.Function.Arguments), "  ", "  ") == nil {
				b.WriteString("  " + textsafe.Clean(pretty.String()) + "\n")
			} else {
				b.WriteString("  " + textsafe.Line(tc.Function.Arguments) + "\n")
			}
		}
		for _, a := range m.Annotations {
			switch {
			case a.URLCitation != nil:
				fmt.Fprintf(b, "%s %s — %s [%d:%d]\n", s.Info.Render("cite"), textsafe.Line(a.URLCitation.Title), textsafe.Line(a.URLCitation.URL), a.URLCitation.StartIndex, a.URLCitation.EndIndex)
			case a.WebSearchCitation != nil:
				fmt.Fprintf(b, "%s %s — %s\n", s.Info.Render("web"), textsafe.Line(deref(a.WebSearchCitation.Title, "(untitled)")), textsafe.Line(a.WebSearchCitation.URL))
				if a.WebSearchCitation.CitedText != nil {
					fmt.Fprintf(b, "  %s\n", s.Muted.Render("“"+textsafe.Line(*a.WebSearchCitation.CitedText)+"”"))
				}
			case a.File != nil:
				fmt.Fprintf(b, "%s %s %s (%d parts)\n", s.Info.Render("file"), textsafe.Line(deref(a.File.Name, "(unnamed)")), s.Muted.Render(textsafe.Line(a.File.Hash)), len(a.File.Content))
			default:
				fmt.Fprintf(b, "%s %s\n", s.Info.Render("annotation"), textsafe.Line(a.Type))
			}
		}
		for _, im := range m.Images {
			fmt.Fprintf(b, "%s %s\n", s.Info.Render("image"), textsafe.Line(ansi.Truncate(im.ImageURL.URL, 200, "…")))
		}
		if ch.Logprobs != nil && len(ch.Logprobs.Content) > 0 {
			if !o.logprobs {
				fmt.Fprintf(b, "%s\n", s.Muted.Render(fmt.Sprintf("▸ logprobs for %d tokens (L to show)", len(ch.Logprobs.Content))))
			} else {
				fmt.Fprintf(b, "%s\n", s.Muted.Render("▾ logprobs (L to hide)"))
				for _, e := range ch.Logprobs.Content {
					fmt.Fprintf(b, "  %-16q %8.4f", textsafe.Line(e.Token), e.Logprob)
					for _, t := range e.TopLogprobs {
						fmt.Fprintf(b, "   %q %s", textsafe.Line(t.Token), format.Float(t.Logprob, 3))
					}
					b.WriteString("\n")
				}
			}
		}
	}
}

func renderResponse(b *strings.Builder, s Styles, r *api.Response, width int) {
	status := string(r.Status)
	if r.IncompleteDetails != nil {
		status += " (" + r.IncompleteDetails.Reason + ")"
	}
	fmt.Fprintf(b, "%s %s   %s %s\n", s.Label.Render("model"), textsafe.Line(r.Model), s.Label.Render("status"), textsafe.Line(status))
	if u := r.Usage; u != nil {
		fmt.Fprintf(b, "%s in %s · out %s · total %s · cost %s\n", s.Label.Render("usage"), format.Int(u.InputTokens), format.Int(u.OutputTokens), format.Int(u.TotalTokens), format.CostPtr(u.Cost))
	}
	if r.Error != nil {
		fmt.Fprintf(b, "%s %s\n", s.Error.Render("error "+textsafe.Line(r.Error.Code)+":"), textsafe.Line(r.Error.Message))
	}
	b.WriteString("\n" + wrap(textsafe.Clean(r.OutputTextAll()), width) + "\n")
}

func renderMessage(b *strings.Builder, s Styles, m *api.MessageResult, width int) {
	fmt.Fprintf(b, "%s %s   %s %s\n", s.Label.Render("model"), textsafe.Line(m.Model), s.Label.Render("stop"), textsafe.Line(deref(m.StopReason, "—")))
	fmt.Fprintf(b, "%s in %s · out %s\n", s.Label.Render("usage"), format.Int(m.Usage.InputTokens), format.Int(m.Usage.OutputTokens))
	for i, c := range m.Content {
		fmt.Fprintf(b, "\n%s\n", s.Title.Render(fmt.Sprintf("Block %d · %s", i, textsafe.Line(c.Type))))
		switch c.Type {
		case "text":
			b.WriteString(wrap(textsafe.Clean(c.Text), width) + "\n")
		case "thinking":
			b.WriteString(s.Reasoning.Render(wrap(textsafe.Clean(c.Thinking), width)) + "\n")
		case "tool_use":
			fmt.Fprintf(b, "%s %s\n", textsafe.Line(c.Name), textsafe.Line(string(c.Input)))
		default:
			b.WriteString(textsafe.Line(ansi.Truncate(string(c.Raw), width*3, "…")) + "\n")
		}
	}
}

func renderEmbeddings(b *strings.Builder, s Styles, e *api.EmbeddingList) {
	fmt.Fprintf(b, "%s %s   %s %d\n", s.Label.Render("model"), textsafe.Line(e.Model), s.Label.Render("vectors"), len(e.Data))
	if e.Usage != nil {
		fmt.Fprintf(b, "%s prompt %s · cost %s\n", s.Label.Render("usage"), format.Int(e.Usage.PromptTokens), format.CostPtr(e.Usage.Cost))
	}
	for i, d := range e.Data {
		v, err := d.Vector()
		if err != nil {
			fmt.Fprintf(b, "%d: %s\n", i, s.Error.Render(textsafe.Line(err.Error())))
			continue
		}
		form := "float array"
		if strings.HasPrefix(strings.TrimSpace(string(d.Embedding)), `"`) {
			form = "base64"
		}
		preview := make([]string, 0, 6)
		for k := 0; k < len(v) && k < 6; k++ {
			preview = append(preview, format.Float(v[k], 4))
		}
		fmt.Fprintf(b, "\n%s %d dimensions (%s)\n  [%s, …]\n", s.Title.Render(fmt.Sprintf("Vector %d", i)), len(v), form, strings.Join(preview, ", "))
	}
}
