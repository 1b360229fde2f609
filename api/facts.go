package api

import (
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The outcome words of one result, as exports and comparisons write them.
const (
	ResultSucceeded = "succeeded"
	ResultFailed    = "failed"
)

// ResultFacts is what an export row or a comparison needs of one result:
// its outcome, model, tokens, cost, error and answer text, whatever the
// body's shape. Numbers the body does not carry are absent (nil), not 0.
type ResultFacts struct {
	CustomID string
	Failed   bool
	// StatusCode is response.status_code (0 without a response).
	StatusCode       int
	Model            string
	PromptTokens     *int
	CompletionTokens *int
	Cost             *float64
	// ErrorType is the canonical error type (or the error's type); for a
	// non-2xx response without an error, "HTTP <status>".
	ErrorType    string
	ErrorMessage string
	// Text is the answer: a chat message's content (its refusal, its tool
	// calls), a response's output text, a message's text blocks; "" for
	// embeddings and failures.
	Text string
}

// Outcome is ResultSucceeded or ResultFailed.
func (f *ResultFacts) Outcome() string {
	if f.Failed {
		return ResultFailed
	}
	return ResultSucceeded
}

// factsItem is the members of a result item that facts need.
type factsItem struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int            `json:"status_code"`
		Body       jsontext.Value `json:"body"`
	} `json:"response"`
	Error *struct {
		Type      string `json:"type"`
		Message   string `json:"message"`
		ErrorType string `json:"error_type"`
	} `json:"error"`
}

// factsBody is the members of the four body shapes that facts need.
type factsBody struct {
	bodyMarkers
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   jsontext.Value `json:"content"`
			Refusal   *string        `json:"refusal"`
			ToolCalls []struct {
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	OutputText *string `json:"output_text"`
	Output     []struct {
		Type    string `json:"type"`
		Content []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		} `json:"content"`
	} `json:"output"`
	Content []struct {
		Type  string         `json:"type"`
		Text  string         `json:"text"`
		Name  string         `json:"name"`
		Input jsontext.Value `json:"input"`
	} `json:"content"`
	Usage *struct {
		PromptTokens     *int     `json:"prompt_tokens"`
		CompletionTokens *int     `json:"completion_tokens"`
		InputTokens      *int     `json:"input_tokens"`
		OutputTokens     *int     `json:"output_tokens"`
		Cost             *float64 `json:"cost"`
	} `json:"usage"`
}

// FactsOf reads the facts of one result item as sent. A body that does
// not decode leaves the body's facts empty (the outcome, the error and the
// custom_id stay); only an item that is not a JSON object is an error.
func FactsOf(item []byte) (ResultFacts, error) {
	var it factsItem
	if err := jsonv2.Unmarshal(item, &it, lenient); err != nil {
		return ResultFacts{}, err
	}
	f := ResultFacts{CustomID: it.CustomID}
	if e := it.Error; e != nil {
		f.Failed = true
		f.ErrorType, f.ErrorMessage = e.ErrorType, e.Message
		if f.ErrorType == "" {
			f.ErrorType = e.Type
		}
	}
	r := it.Response
	if r == nil {
		f.Failed = true
		if it.Error == nil {
			f.ErrorMessage = "neither a response nor an error"
		}
		return f, nil
	}
	f.StatusCode = r.StatusCode
	if r.StatusCode < 200 || r.StatusCode > 299 {
		f.Failed = true
		if f.ErrorType == "" {
			f.ErrorType = "HTTP " + strconv.Itoa(r.StatusCode)
		}
	}
	var b factsBody
	if len(r.Body) == 0 || jsonv2.Unmarshal(r.Body, &b, lenient) != nil {
		return f, nil
	}
	f.Model = b.Model
	if u := b.Usage; u != nil {
		f.PromptTokens, f.CompletionTokens = u.PromptTokens, u.CompletionTokens
		if f.PromptTokens == nil {
			f.PromptTokens = u.InputTokens
		}
		if f.CompletionTokens == nil {
			f.CompletionTokens = u.OutputTokens
		}
		f.Cost = u.Cost
	}
	if !f.Failed {
		f.Text = b.text()
	}
	return f, nil
}

// text is the answer of a body, by its shape.
func (b *factsBody) text() string {
	var parts []string
	switch b.kind() {
	case BodyChatCompletion:
		if len(b.Choices) == 0 {
			return ""
		}
		m := b.Choices[0].Message
		var s string
		if jsonv2.Unmarshal(m.Content, &s) == nil && s != "" {
			parts = append(parts, s)
		} else if m.Refusal != nil && *m.Refusal != "" {
			parts = append(parts, "refusal: "+*m.Refusal)
		}
		for _, tc := range m.ToolCalls {
			parts = append(parts, "tool call "+tc.Function.Name+"("+tc.Function.Arguments+")")
		}
	case BodyResponse:
		if b.OutputText != nil {
			return *b.OutputText
		}
		var sb strings.Builder
		for _, o := range b.Output {
			if o.Type != "message" {
				continue
			}
			for _, c := range o.Content {
				switch c.Type {
				case "output_text":
					sb.WriteString(c.Text)
				case "refusal":
					sb.WriteString("refusal: " + c.Refusal)
				}
			}
		}
		return sb.String()
	case BodyMessage:
		for _, c := range b.Content {
			switch c.Type {
			case "text":
				parts = append(parts, c.Text)
			case "tool_use":
				parts = append(parts, "tool use "+c.Name+"("+string(c.Input)+")")
			}
		}
	}
	return strings.Join(parts, "\n")
}
